kernel "a" { "x=3" }
kernel "b" { "x=3", "A_RANK=3" }
