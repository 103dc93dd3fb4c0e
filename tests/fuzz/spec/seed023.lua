kernel "a" { inplace = 1, "x=3" }
