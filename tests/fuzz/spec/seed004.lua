local t = {} setmetatable(t, {__index=function() return "x=2" end}) kernel "k" (t)
