kernel "a" { op = "add" }
