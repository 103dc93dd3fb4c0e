kernel "OUT_H" { "x=3" }
