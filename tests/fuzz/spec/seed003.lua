for i=1,50 do kernel("k"..i) { "x=2,"..i } end
