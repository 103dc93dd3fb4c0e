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
-- arguments in order.
local ARANGE_OPS = {
  add = function(a, b) return a + b end,
  subtract = function(a, b) return a - b end,
  multiply = function(a, b) return a * b end,
  maximum = function(a, b) return a > b and a or b end,
  minimum = function(a, b) return a < b and a or b end,
  negative = function(a) return -a end,
  absolute = function(a) return a < 0 and -a or a end,
}

-- X as dtype TYPE holds it: an integer wrapped to its width as C wraps
-- it, a float a float.
function arange_fit(x, type)
  local kind, bits = type:match("^([iuf])(%d+)$")
  if kind == "f" then return x + 0.0 end
  x = math.tointeger(x) or math.floor(x)
  bits = tonumber(bits)
  if bits >= 64 then return x end
  local m = 1 << bits
  x = x % m
  if kind == "i" and x >= m >> 1 then x = x - m end
  return x
end

-- The result's values, element by element in row-major order, when each
-- operand holds its element numbers (NumPy's arange(n).reshape(shape)):
-- the plan's values (the model's), computed in Lua as the kernel
-- computes them. Only for the ops of ARANGE_OPS (bcastgen checks).
function arange_result()
  local out, index = {}, {}
  for d = 1, rank do index[d] = 0 end
  for e = 1, count do
    local v = {}
    for i, val in ipairs(values) do
      local x
      if val.kind == "read" then
        x = 0
        for d = 1, rank do x = x + index[d] * operands[val.operand].strides[d] end
      elseif val.kind == "literal" then
        x = math.tointeger(tonumber(val.digits))
        if val.negative or val.minimum then x = -x end
      elseif val.kind == "op" and val.op then
        x = v[val.args[1]]
        for k = 2, #val.args do x = ARANGE_OPS[val.op](x, v[val.args[k]]) end
        if #val.args == 1 then x = ARANGE_OPS[val.op](x) end
      else
        x = v[val.args[1]]
      end
      v[i] = arange_fit(x, val.type)
    end
    out[e] = v[#values]
    for d = rank, 1, -1 do
      index[d] = index[d] + 1
      if index[d] < result[d] then break end
      index[d] = 0
    end
  end
  return out
end

-- The words NumPy prints for the elements VALS of an array, before they
-- are padded to one width: integers as they are; floats (those --values
-- computes are integers) positionally, "12." ("-0." for minus zero), or,
-- where the largest magnitude is 1e8 or more or over 1000 times the
-- smallest one not 0, in scientific notation with one number of digits,
-- "1.2000e+01", as NumPy's FloatingFormat (precision 8) does.
local function numpy_words(vals, unsigned)
  local words = {}
  if math.type(vals[1]) == "integer" then
    for i, x in ipairs(vals) do
      -- a u64 past 2^63 - 1: its tens (>> is unsigned) and its last digit
      local tens = (x >> 1) // 5
      words[i] = (unsigned and x < 0) and tostring(tens) .. tostring(x - tens * 10) or tostring(x)
    end
    return words
  end
  local lo, hi = math.huge, 0
  for _, x in ipairs(vals) do
    if x ~= 0 then lo, hi = math.min(lo, math.abs(x)), math.max(hi, math.abs(x)) end
  end
  local sci = hi > 0 and (hi >= 1e8 or hi / lo > 1000)
  local parts, frac, exp = {}, 0, 2
  for i, x in ipairs(vals) do
    local sign = (x < 0 or (x == 0 and 1 / x < 0)) and "-" or ""
    local digits = string.format("%.0f", math.abs(x))
    if not sci then
      words[i] = sign .. digits .. "."
    else
      -- d.ddd: the digits without trailing zeros, rounded to 9, half to even
      local e = #digits - 1
      local m = digits:gsub("0+$", "")
      if m == "" then m, e = "0", 0 end
      if #m > 9 then
        local keep, rest = m:sub(1, 9), m:sub(10)
        local up = rest > "5" .. string.rep("0", #rest - 1) or (rest:match("^50*$") and tonumber(keep:sub(-1)) % 2 == 1)
        m = up and tostring(math.tointeger(tonumber(keep)) + 1) or keep
        if #m > 9 then e = e + 1 end
        m = m:sub(1, 9):gsub("0+$", "")
      end
      parts[i] = {sign .. m:sub(1, 1), m:sub(2), e}
      frac = math.max(frac, #m - 1)
      exp = math.max(exp, #tostring(math.abs(e)))
    end
  end
  if sci then
    for i, p in ipairs(parts) do
      words[i] = p[1] .. "." .. p[2] .. string.rep("0", frac - #p[2]) .. "e" .. (p[3] < 0 and "-" or "+")
        .. string.format("%0" .. exp .. "d", math.abs(p[3]))
    end
  end
  return words
end

-- An array of dtype TYPE and SHAPE holding VALS (row-major) as NumPy's
-- str() prints it:
-- each element right-aligned to the widest, rows wrapped at 75 columns,
-- a blank line between blocks for each dimension past the second; a 0-d
-- array as its scalar.
function numpy_str(shape, vals, type)
  local words, w = numpy_words(vals, type == "u64"), 0
  -- a 0-d array prints as its scalar: a float as Python's repr, 3.0
  if #shape == 0 then return math.type(vals[1]) == "float" and tostring(vals[1] + 0.0) or words[1] end
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
