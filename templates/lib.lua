-- lib.lua: layout helpers shared by the templates. Runs in each
-- template's sandbox before the template, with the same model.

-- "(2,3)", "(3,)" or "()": a shape as NumPy prints it.
function tuple(dims)
  if #dims == 1 then return "(" .. dims[1] .. ",)" end
  return "(" .. table.concat(dims, ",") .. ")"
end

-- "x", "x and y", "a, b and d".
function names(list)
  if #list == 1 then return list[1] end
  return table.concat(list, ", ", 1, #list - 1) .. " and " .. list[#list]
end

-- Whether code point C is a wide one: CJK and the full-width forms,
-- two columns in a terminal, one em in a picture.
function wide(c)
  return c >= 0x2E80 and c <= 0xFFEF
end

-- The columns S takes in a terminal.
function width(s)
  local n = 0
  for _, c in utf8.codes(s) do n = n + (wide(c) and 2 or 1) end
  return n
end

-- S with & < > and " escaped for XML text and attributes.
function xml(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- Lines of a table: a header LABEL ("dim" unless given) over dimension
-- numbers 0..RANK-1, then one row per {label, cells}; every column
-- right-aligned to its widest cell, each line starting with PREFIX.
function grid(rows, rank, prefix, label)
  local header = {}
  for d = 0, rank - 1 do header[d + 1] = tostring(d) end
  table.insert(rows, 1, {label or "dim", header})
  local lw, cw = 0, 1
  for _, row in ipairs(rows) do
    lw = math.max(lw, width(row[1]))
    for d = 1, rank do cw = math.max(cw, #row[2][d]) end
  end
  local lines = {}
  for _, row in ipairs(rows) do
    local s = prefix .. string.rep(" ", lw - width(row[1])) .. row[1] .. " "
    for d = 1, rank do s = s .. " " .. string.rep(" ", cw - #row[2][d]) .. row[2][d] end
    lines[#lines + 1] = s
  end
  return lines
end

-- The rows of the aligned shapes of OPERANDS at RANK: a dimension an
-- operand does not have shows as (1).
function aligned_rows(operands, rank)
  local rows = {}
  for i, op in ipairs(operands) do
    local cells = {}
    for d = 1, rank do cells[d] = op.own[d] and tostring(op.aligned[d]) or "(1)" end
    rows[i] = {op.name, cells}
  end
  return rows
end

-- Record that the emitted code declares NAME, which is WHAT ("a loop
-- counter of kernel 'k'"), seen by the whole file when SCOPE is "file",
-- else by its kernel only; return NAME. bcastgen checks the names the
-- user chose against these, so every name a template introduces must be
-- declared here.
function declare(name, what, scope)
  if not declared[name] then
    declared[name] = true
    declared[#declared + 1] = {name = name, what = what, file = scope == "file"}
  end
  return name
end

-- The ops --values arange computes (explain.c's arange_ops), over their
-- arguments in order; U: the arguments are u64s, which Lua holds as
-- signed integers. NaN passes through maximum and minimum, as in NumPy.
local ARANGE_OPS = {
  add = function(a, b) return a + b end,
  subtract = function(a, b) return a - b end,
  multiply = function(a, b) return a * b end,
  maximum = function(a, b, u)
    if a ~= a or b ~= b then return a ~= a and a or b end
    if u then return math.ult(a, b) and b or a end
    return b > a and b or a
  end,
  minimum = function(a, b, u)
    if a ~= a or b ~= b then return a ~= a and a or b end
    if u then return math.ult(b, a) and b or a end
    return b < a and b or a
  end,
  negative = function(a) return -a end,
  absolute = function(a, _, u) return (not u and a < 0) and -a or a end,
}

-- X rounded to a float of BITS (16, 32, 64) as C rounds it: to nearest,
-- halves to even; an f16 past 65504 is infinite.
local function round_float(x, bits)
  if bits == 64 or x ~= x or x == math.huge or x == -math.huge or x == 0 then return x end
  if bits == 32 then return (string.unpack("f", string.pack("f", x))) end
  local a = math.abs(x)
  local e = math.max(math.floor(math.log(a, 2)), -14)
  while 2.0 ^ e > a and e > -14 do e = e - 1 end
  while 2.0 ^ (e + 1) <= a do e = e + 1 end
  local q = 2.0 ^ (e - 10)
  local n = a / q
  local r = math.floor(n)
  if n - r > 0.5 or (n - r == 0.5 and r % 2 == 1) then r = r + 1 end
  a = r * q
  if a > 65504 then a = math.huge end
  return x < 0 and -a or a
end

-- X as dtype TYPE holds it: an integer wrapped to its width as C wraps
-- it, a float rounded to its precision (minus zero kept).
function arange_fit(x, type)
  local kind, bits = type:match("^([iuf])(%d+)$")
  bits = tonumber(bits)
  if kind == "f" then return round_float(x * 1.0, bits) end
  x = math.tointeger(x) or math.floor(x)
  if bits >= 64 then return x end
  local m = 1 << bits
  x = x % m
  if kind == "i" and x >= m >> 1 then x = x - m end
  return x
end

-- For each element of the result, in row-major order, the element each
-- operand reads: READS[e][i], its number in operand I, found from the
-- operand's strides (0 where it is stretched).
function element_reads()
  local reads, index = {}, {}
  for d = 1, rank do index[d] = 0 end
  for e = 1, count do
    local at = {}
    for i, op in ipairs(operands) do
      at[i] = 0
      for d = 1, rank do at[i] = at[i] + index[d] * op.strides[d] end
    end
    reads[e] = at
    for d = rank, 1, -1 do
      index[d] = index[d] + 1
      if index[d] < result[d] then break end
      index[d] = 0
    end
  end
  return reads
end

-- The result's values, element by element in row-major order, when each
-- operand holds its element numbers (NumPy's arange(n).reshape(shape)):
-- the plan's values (the model's), computed in Lua as the kernel
-- computes them, each in its value's dtype, then stored in the output's.
-- Only for the ops of ARANGE_OPS (bcastgen checks).
function arange_result()
  local out = {}
  for e, at in ipairs(element_reads()) do
    local v = {}
    for i, val in ipairs(values) do
      local x
      if val.kind == "read" then
        x = at[val.operand]
      elseif val.kind == "literal" then
        x = math.tointeger(tonumber(val.digits)) or tonumber(val.digits)
        if val.negative or val.minimum then x = -x end
      elseif val.kind == "op" and val.op then
        local f, u = ARANGE_OPS[val.op], values[val.args[1]].type == "u64"
        x = v[val.args[1]]
        for k = 2, #val.args do x = f(x, v[val.args[k]], u) end
        if #val.args == 1 then x = f(x, nil, u) end
      else
        x = v[val.args[1]]
      end
      v[i] = arange_fit(x, val.type)
    end
    out[e] = arange_fit(v[#values], out_dtype)	-- stored: an f16 computed in f32 rounds here
  end
  return out
end

-- The shortest digits that give float X of BITS back, as NumPy finds
-- them: its sign, its digits (no trailing zeros) and its exponent; X
-- finite and not 0.
local function shortest(x, bits)
  for p = 1, 17 do
    local s = string.format("%." .. (p - 1) .. "e", math.abs(x))
    if round_float(tonumber(s), bits) == math.abs(x) then
      local m, e = s:match("^(%d)%.?(%d*)e([-+]%d+)$")
      local digits = (m .. e):gsub("0+$", "")
      return x < 0 and "-" or "", digits == "" and "0" or digits, tonumber(s:match("e([-+]%d+)$"))
    end
  end
end

-- "12000.": the digits DIGITS of exponent E (an integer) written out, as
-- NumPy writes a float positionally.
local function positional(digits, e)
  return digits .. string.rep("0", e + 1 - #digits) .. "."
end

-- The words NumPy prints for the elements VALS of an array of dtype
-- TYPE, before they are padded to one width: integers as they are (a
-- u64 as unsigned); floats, with the shortest digits that give them
-- back, positionally, "12." ("-0." for minus zero), or, where the
-- largest magnitude is 1e8 or more or over 1000 times the smallest one
-- not 0, in scientific notation with one number of digits, "1.2000e+01",
-- as NumPy's FloatingFormat (precision 8) does; inf and nan as words.
local function numpy_words(vals, type)
  local words = {}
  if math.type(vals[1]) == "integer" then
    for i, x in ipairs(vals) do
      -- a u64 past 2^63 - 1: its tens (>> is unsigned) and its last digit
      local tens = (x >> 1) // 5
      words[i] = (type == "u64" and x < 0) and tostring(tens) .. tostring(x - tens * 10) or tostring(x)
    end
    return words
  end
  local bits = tonumber(type:match("%d+"))
  local lo, hi = math.huge, 0
  for _, x in ipairs(vals) do
    if x ~= 0 and x == x and math.abs(x) ~= math.huge then
      lo, hi = math.min(lo, math.abs(x)), math.max(hi, math.abs(x))
    end
  end
  local sci = hi > 0 and (hi >= 1e8 or hi / lo > 1000)
  local sci_at, frac = {}, 0	-- the elements in scientific notation; their digits after the point
  for i, x in ipairs(vals) do
    if x ~= x then
      words[i] = "nan"
    elseif math.abs(x) == math.huge then
      words[i] = x < 0 and "-inf" or "inf"
    elseif sci then
      sci_at[#sci_at + 1] = i
      if x ~= 0 then
        local _, digits = shortest(x, bits)
        if #digits > 9 then	-- NumPy's precision, 8 digits after the point, trailing 0s trimmed
          digits = string.format("%.8e", math.abs(x)):gsub("[.]", ""):match("^(%d+)e"):gsub("0+$", "")
        end
        frac = math.max(frac, #digits - 1)
      end
    elseif x == 0 then
      words[i] = (1 / x < 0 and "-" or "") .. "0."
    else
      local sign, digits, e = shortest(x, bits)
      words[i] = sign .. positional(digits, e)
    end
  end
  -- every mantissa with as many digits as the longest shortest one, the
  -- value's own digits (as NumPy's min_digits), correctly rounded; the
  -- exponents with one number of digits, 2 at least
  local exp = 2
  for _, i in ipairs(sci_at) do
    local m, e = string.format("%." .. frac .. "e", vals[i]):match("^(-?%d%.?%d*)e([-+]%d+)$")
    words[i] = {frac == 0 and m .. "." or m, tonumber(e)}
    exp = math.max(exp, #tostring(math.abs(words[i][2])))
  end
  for _, i in ipairs(sci_at) do
    local m, e = words[i][1], words[i][2]
    words[i] = m .. "e" .. (e < 0 and "-" or "+") .. string.format("%0" .. exp .. "d", math.abs(e))
  end
  return words
end

-- A float X of BITS as NumPy prints a 0-d array of it, as its scalar:
-- positionally with ".0" below 1e16, "1e+16" from there, as Python's repr.
local function numpy_scalar(x, bits)
  if x ~= x then return "nan" end
  if math.abs(x) == math.huge then return x < 0 and "-inf" or "inf" end
  if x == 0 then return 1 / x < 0 and "-0.0" or "0.0" end
  local sign, digits, e = shortest(x, bits)
  if math.abs(x) < 1e16 and e >= #digits - 1 then return sign .. positional(digits, e) .. "0" end
  return sign .. digits:sub(1, 1) .. (#digits > 1 and "." .. digits:sub(2) or "") .. "e"
    .. (e < 0 and "-" or "+") .. string.format("%02d", math.abs(e))
end

-- An array of dtype TYPE and SHAPE holding VALS (row-major) as NumPy's
-- str() prints it: each element right-aligned to the widest, rows
-- wrapped at 75 columns, a blank line between blocks for each dimension
-- past the second; a 0-d array as its scalar, one of no elements "[]".
function numpy_str(shape, vals, type)
  for _, n in ipairs(shape) do
    if n == 0 then return "[]" end
  end
  if #shape == 0 and math.type(vals[1]) == "float" then
    return numpy_scalar(vals[1], tonumber(type:match("%d+")))
  end
  local words, w = numpy_words(vals, type), 0
  if #shape == 0 then return words[1] end
  for _, s in ipairs(words) do w = math.max(w, #s) end
  for i, s in ipairs(words) do words[i] = string.rep(" ", w - #s) .. s end
  local steps, n = {}, 1
  for d = #shape, 1, -1 do
    steps[d] = n
    n = n * shape[d]
  end
  local function extend(s, line, word, width, prefix)
    if #line + #word > width and #line > #prefix then
      s, line = s .. line:gsub(" +$", "") .. "\n", prefix
    end
    return s, line .. word
  end
  local function nest(axis, at, hanging, room)
    if axis > #shape then return words[at + 1] end
    local s, last = "", shape[axis] - 1
    if axis == #shape then
      local line = hanging
      for i = 0, last do
        s, line = extend(s, line, nest(axis + 1, at + i * steps[axis], hanging .. " ", room - 1), room - 1, hanging)
        if i < last then line = line .. " " end
      end
      s = s .. line
    else
      local sep = string.rep("\n", #shape - axis)
      for i = 0, last do
        s = s .. hanging .. nest(axis + 1, at + i * steps[axis], hanging .. " ", room - 1) .. (i < last and sep or "")
      end
    end
    return "[" .. s:sub(#hanging + 1) .. "]"
  end
  return nest(1, 0, " ", 75)
end
