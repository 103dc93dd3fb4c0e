

kernel "a" { expr = "x + z", "x=3" }
