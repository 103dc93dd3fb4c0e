kernel "a" { op = {}, "x=3" }
