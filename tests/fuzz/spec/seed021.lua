kernel "a" { opp = "add", "x=3" }
