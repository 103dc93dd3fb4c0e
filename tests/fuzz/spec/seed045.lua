kernel "k" { "x=3" }
kernel "t0" { expr = "x*exp(b)", strategy = "loops", "x=3,4", "b=3,1" }
