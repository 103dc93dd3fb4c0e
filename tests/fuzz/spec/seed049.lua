defaults { rounding = "single" }
kernel "qa" { op = "add", dtype = "i8", activation = "relu6", quant = { x = {0.0472, -3}, y = {"0.0123", 5}, out = {0.081, -1} }, "x:i8=1,16,16,8", "y:i8=8" }
kernel "qm" { op = "multiply", dtype = "i16", quant = { a = {"1e-3", 0}, b = {2, 0}, out = {0.5, 0} }, "a=4,3", "b=3" }
kernel "qs" { op = "subtract", dtype = "i8", target = "cortex-m55", quant = { x = {1, 0}, y = {1, 0}, out = {0.01, 0} }, "x=64,256", "y=64,1" }
