return string.rep("a", 10)
