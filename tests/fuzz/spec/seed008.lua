kernel "k" { expr = "x" .. ("+x"):rep(10), "x=4" }
