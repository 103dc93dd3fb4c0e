-- the kernels of a small network
kernel "bias_add"  { op = "add", "x=8,64,56,56", "b=64,1,1" }
kernel "relu_bias" { expr = "max(x*w + b, 0)", dtype = "f32", "x=8,64,56,56", "w=64,1,1", "b=64,1,1" }
kernel "scale_y"   { op = "mul", axis = 1, "x=2,3,4,5", "y=3" }
local shape = "4,5"
kernel "mask"      { op = "gt", out_dtype = "u8", "a=" .. shape, "b=5", strategy = "loops" }
