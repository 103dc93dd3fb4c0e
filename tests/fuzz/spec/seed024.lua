kernel "a" { "x=3", 5 }
