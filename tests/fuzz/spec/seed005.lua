kernel "k" { op = "add", "x=2,3", "y=3", name = 1 }
