-- c.lua: how the plan is spelled in C. The plan (gen/plan.h) decides
-- everything; this says only how each decision reads in C: the types,
-- the values of the computation, the signature. Runs in each template's
-- environment, after lib.lua.

-- The C type of each dtype, as stored.
local ctypes = {
  f16 = "bc_f16", f32 = "float", f64 = "double",
  i8 = "int8_t", i16 = "int16_t", i32 = "int32_t", i64 = "int64_t",
  u8 = "uint8_t", u16 = "uint16_t", u32 = "uint32_t", u64 = "uint64_t",
}

-- "float" for "f32": the C type a dtype is stored as.
function ctype(dtype)
  return ctypes[dtype] or error("no C type for dtype " .. tostring(dtype))
end

-- The C type a value of DTYPE is held in: f16's is a float.
function vtype(dtype)
  return ctype(dtypes[dtype].compute or dtype)
end

-- The read of an element EL of input I, as a value: f16's bits widened.
function widened(i, el)
  if reads[i].widen then return "bc_f16_to_f32(" .. el .. ")" end
  return el
end

-- The store of value E into an element of the output, as the plan says.
function narrowed(e)
  if store == "f16" then return "bc_f32_to_f16(" .. e .. ")" end
  if store == "f16_f64" then return "bc_f64_to_f16(" .. e .. ")" end
  return e
end

-- How tightly an expression binds, loosest first.
local TERNARY, EQUALITY, ADD, MUL, UNARY, PRIMARY = 1, 2, 3, 4, 5, 6

-- C's operator for each op computed by an operator.
local operators = {
  add = "+", subtract = "-", multiply = "*", divide = "/", negative = "-",
  equal = "==", not_equal = "!=", less = "<", less_equal = "<=",
  greater = ">", greater_equal = ">=",
  logical_and = "&&", logical_or = "||", logical_xor = "!=",
}

-- How tightly the C operator of each infix op binds: * and / above + and -.
local infix_binding = {multiply = MUL, divide = MUL, add = ADD, subtract = ADD}

-- An expression spelled: its text, how it binds, and whether it is a 0 or 1.
local function expr(text, prec, is_bool)
  return {text = text, prec = prec, is_bool = is_bool}
end

-- E's text, in parentheses if it binds looser than PREC.
local function nest(e, prec)
  if e.prec < prec then return "(" .. e.text .. ")" end
  return e.text
end

-- The truth of E as 0 or 1: E itself if it is one already.
local function truth(e)
  if e.is_bool then return nest(e, UNARY) end
  return "(" .. nest(e, ADD) .. " != 0)"
end

-- "bc_add_i32": the runtime helper of op value V; "bc_maxc_f32" where
-- its second argument is a constant, "bc_cmax_f32" where its first is.
local function helper(v)
  local c = v.constant_arg
  return "bc_" .. (c == 1 and "c" or "") .. v.helper .. (c == 2 and "c" or "") .. "_" .. v.calc
end

-- A literal: 2.5f, -0.5, (int8_t)-3, 7u, UINT64_C(7), INT32_MIN.
local function literal(v)
  local t, sign = dtypes[v.type], v.negative and "-" or ""
  local prec = v.negative and UNARY or PRIMARY
  if t.is_float then
    local text = sign .. v.digits
    if not v.digits:find("[.e]") then text = text .. ".0" end
    if vtype(v.type) == "float" then text = text .. "f" end
    return expr(text, prec)
  end
  local text = sign .. v.digits
  if v.minimum and t.bits >= 32 then return expr("INT" .. t.bits .. "_MIN", PRIMARY) end
  if t.bits < 32 then return expr("(" .. ctype(v.type) .. ")" .. text, UNARY) end
  if t.bits == 64 then return expr((t.is_signed and "INT64_C(" or "UINT64_C(") .. text .. ")", PRIMARY) end
  return expr(t.is_signed and text or text .. "u", prec)
end

-- A conversion of A, a value of dtype FROM, to dtype TO, as the plan
-- says it is done. A float saturates through the runtime's helper for
-- the C type it is held in (an f16's is a float): bc_f32_to_i16(x),
-- never through double.
local function conversion(how, a, from, to)
  if how == "none" then return a end
  if how == "cast" then return expr("(" .. ctype(to) .. ")" .. nest(a, UNARY), UNARY) end
  if how == "wrap" then return expr("bc_wrap_" .. to .. "((uint64_t)" .. nest(a, UNARY) .. ")", PRIMARY) end
  if how == "saturate" then
    local held = vtype(from) == "float" and "f32" or "f64"
    return expr("bc_" .. held .. "_to_" .. to .. "(" .. a.text .. ")", PRIMARY)
  end
  if how == "round_f16" then return expr("bc_round_f16(" .. a.text .. ")", PRIMARY) end
  if how == "round_f16_f64" then return expr("bc_f16_to_f32(bc_f64_to_f16(" .. a.text .. "))", PRIMARY) end
  error("unknown conversion " .. tostring(how))
end

-- An op in the form the plan chose, on its arguments A spelled.
local forms = {
  pass = function(v, a) return a[1] end,
  prefix = function(v, a)
    -- -(-x), never --x
    return expr(operators[v.op] .. nest(a[1], a[1].text:sub(1, 1) == "-" and PRIMARY or UNARY), UNARY)
  end,
  infix = function(v, a)
    local op, prec = operators[v.op], infix_binding[v.op]
    local text = nest(a[1], prec)
    for k = 2, #a do text = text .. " " .. op .. " " .. nest(a[k], prec + 1) end
    return expr(text, prec)
  end,
  helper = function(v, a)
    local text = a[1].text
    if #a == 1 then return expr(helper(v) .. "(" .. text .. ")", PRIMARY, v.is_bool) end
    for k = 2, #a do text = helper(v) .. "(" .. text .. ", " .. a[k].text .. ")" end
    return expr(text, PRIMARY, v.is_bool)
  end,
  compare = function(v, a)
    return expr("(uint8_t)(" .. nest(a[1], ADD) .. " " .. operators[v.op] .. " " .. nest(a[2], ADD) .. ")", UNARY, true)
  end,
  logical = function(v, a)
    return expr("(uint8_t)(" .. truth(a[1]) .. " " .. operators[v.op] .. " " .. truth(a[2]) .. ")", UNARY, true)
  end,
  ["not"] = function(v, a)
    return expr("(uint8_t)(" .. nest(a[1], ADD) .. " == 0)", UNARY, true)
  end,
  select = function(v, a)
    local text = truth(a[1]) .. " ? " .. nest(a[2], EQUALITY) .. " : " .. nest(a[3], EQUALITY)
    if dtypes[v.calc].is_float then return expr(text, TERNARY) end
    -- integers: C would promote the arms to int
    return expr("(" .. vtype(v.calc) .. ")(" .. text .. ")", UNARY)
  end,
}

-- The C expression of value I of VALUES. READ(v) spells a read; a value
-- computed once appears by its name, but for I itself when DEFINE is set.
function spell(values, i, read, define)
  local v = values[i]
  if v.temp and not define then return expr("t" .. v.temp, PRIMARY, v.is_bool) end
  if v.kind == "read" then return expr(read(v), PRIMARY) end
  if v.kind == "literal" then return literal(v) end
  local a = {}
  for k, j in ipairs(v.args) do a[k] = spell(values, j, read) end
  if v.kind == "convert" then return conversion(v.convert, a[1], values[v.args[1]].type, v.type) end
  return forms[v.form](v, a)
end

-- The kernel's name for its result: "out", or the first operand in place.
function result_name()
  return inplace and operands[1].name or "out"
end

-- The kernel's C signature, without the final ';'. Its pointers are
-- BC_RESTRICT, which the header defines for C and C++ alike.
function signature()
  local params = {}
  for i, op in ipairs(operands) do
    if inplace and i == 1 then
      params[i] = ctype(out_dtype) .. " *BC_RESTRICT " .. op.name
    else
      params[i] = "const " .. ctype(op.dtype) .. " *BC_RESTRICT " .. op.name
    end
  end
  if not inplace then
    params[#params + 1] = ctype(out_dtype) .. " *BC_RESTRICT "
      .. declare("out", "the output parameter of kernel '" .. name .. "'")
  end
  return "void " .. name .. "(" .. table.concat(params, ", ") .. ")"
end

-- "K_SHAPE": the kernel's macro named SUFFIX, declared for the whole file.
function macro(suffix)
  return declare(name:upper() .. "_" .. suffix, "a macro of kernel '" .. name .. "'", "file")
end
