kernel "2a" { "x=3" }
