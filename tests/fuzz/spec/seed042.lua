kernel "ab" { "x=3" }
kernel "AB" { "x=3" }
