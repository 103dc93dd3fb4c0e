defaults { optimize = "size", strategy = "loops", op = "mul" }
kernel "a" { expr = "x - y", "x=2,3", "y=3" }
kernel "b"
{
  --[==[ a long ]] comment ]==] "x=2,3", [[y=3]],
  axis = 1.5,
}
