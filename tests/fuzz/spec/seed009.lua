kernel "k" { op = "copy", out_shape = "2,3", "x=3" }
