kernel "k" { "x=2,3\0" }
