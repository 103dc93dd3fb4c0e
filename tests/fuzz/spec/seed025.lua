kernel "a" { op = "add", "x=3", [7] = "y=3" }
