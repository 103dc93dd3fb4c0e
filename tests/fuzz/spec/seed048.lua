kernel "a" { "x=3", "y=3", axis = 0 } kernel "b" { "x=3", "y=3\z
   ",
  loop_order = "1,0", stream = "on", strategy = "unroll" }
local c = kernel "c"
pcall(kernel "d", { op = mul, "x=3" })
