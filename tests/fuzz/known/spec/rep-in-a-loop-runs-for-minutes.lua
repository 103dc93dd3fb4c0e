for i = 1, 1e9 do local s = string.rep("x", 4095) end
