kernel "memcpy" { "x=3" }
