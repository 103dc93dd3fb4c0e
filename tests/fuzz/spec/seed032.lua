kernel "a" { op = "add", "x=3" 
