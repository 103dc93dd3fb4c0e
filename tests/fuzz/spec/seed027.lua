kernel "a" { op = "frob", "x=3" }
