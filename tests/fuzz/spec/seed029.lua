kernel "a" { op = "add", expr = "x", "x=3" }
