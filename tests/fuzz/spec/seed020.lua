kernel "a" { op = "add", "x=3" }
kernel "a" { op = "mul", "x=3" }
