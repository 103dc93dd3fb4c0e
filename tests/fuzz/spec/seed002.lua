kernel "k" { "x=2,3" }
