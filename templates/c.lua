-- c.lua: how the plan is spelled in C. The plan (gen/plan.h) decides
-- everything; this says only how each decision reads in C: the types,
-- the values of the computation, the code items of the kernel's body,
-- the signature. Runs in each template's environment, after lib.lua.

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

-- How tightly an expression binds, loosest first: the plan's levels
-- (gen/plan.h), by which it counts the brackets a statement nests; none
-- where no kernel was planned, and nothing is spelled.
local levels = precedence or {}
local TERNARY, EQUALITY, ADD, MUL, UNARY, PRIMARY =
  levels.ternary, levels.equality, levels.add, levels.mul, levels.unary, levels.primary

-- C's operator for each op computed by an operator.
local operators = {
  add = "+", subtract = "-", multiply = "*", divide = "/", negative = "-",
  equal = "==", not_equal = "!=", less = "<", less_equal = "<=",
  greater = ">", greater_equal = ">=",
  logical_and = "&&", logical_or = "||", logical_xor = "!=",
}

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
-- says it is done, within the brackets the plan counts for it
-- (plan_convert_spelling in gen/plan.c). A float saturates through the
-- runtime's helper for the C type it is held in (an f16's is a float):
-- bc_f32_to_i16(x), never through double.
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

-- An op in the form the plan chose, on its arguments A spelled. The
-- brackets each nests around an argument are those the plan counts
-- (plan_form_spelling in gen/plan.c): a spelling that nests more must
-- say so there.
local forms = {
  pass = function(v, a) return a[1] end,
  prefix = function(v, a)
    -- -(-x), never --x
    return expr(operators[v.op] .. nest(a[1], a[1].text:sub(1, 1) == "-" and PRIMARY or UNARY), UNARY)
  end,
  infix = function(v, a)
    local op, prec = operators[v.op], v.binds
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

-- A step of a quantized kernel on its argument A, with its constants
-- (bc_quant.h): bc_q_offset(x[i], -3), bc_q_input_d(x[i], -3, 20,
-- 1073741824, 0), bc_q_output_i8_d(t0 + t1, 1518500250, -17, -1, -128, 127).
local function quant_step(v, a)
  local args = {a.text}
  for _, c in ipairs(v.constants) do args[#args + 1] = tostring(c) end
  local name = "bc_q_" .. v.step
  if v.step == "output" then name = name .. "_" .. v.type end
  if v.step ~= "offset" then name = name .. (v.single and "_s" or "_d") end
  return expr(name .. "(" .. table.concat(args, ", ") .. ")", PRIMARY)
end

-- "bc_q_add_line_i8_d": the line helper of a quantized kernel whose
-- output step is value ROOT and whose inputs make value MADE.
function quant_line_helper(root, made)
  return "bc_q_" .. made.op .. "_line_" .. root.type .. (root.single and "_s" or "_d")
end

-- The vectors a target's quant_lines names, as the kernel's words say them.
function line_vectors(lines)
  return ({helium = "Helium (BC_Q_MVE)", avx2 = "AVX2 (BC_Q_X86)",
           ["avx-512"] = "AVX-512 or AVX2 (BC_Q_X86)",
           ["avx2-run-time"] = "AVX-512 or AVX2 (BC_Q_X86), or AVX2 found at run time (BC_Q_X86_DISPATCH)"})[lines]
         or lines
end

-- "x - (-3)": a number after an operator, in parentheses when negative.
function signed_text(n)
  return n < 0 and "(" .. n .. ")" or tostring(n)
end

-- "y - 5": input NAME's offset from its zero point ZERO, MINUS the sign
-- the text writes ("-", or "−" in --explain's).
local function offset_text(name, zero, minus)
  return name .. " " .. minus .. " " .. signed_text(zero)
end

-- "MBQM((y - 5) << 20, 1717986854, -2)": input NAME requantized, its
-- offset shifted left by LEFT and brought by multiplier M and shift S.
local function requant_text(name, zero, left, m, s, minus)
  return "MBQM((" .. offset_text(name, zero, minus) .. ") << " .. left .. ", " .. m .. ", " .. s .. ")"
end

-- A step of a quantized kernel as its banner writes it, on the operand
-- that value V of VALUES reads: "MBQM((y - 5) << 20, 1717986854, -2)".
function quant_text(values, v)
  local c, name = v.constants, operands[values[v.args[1]].operand].name
  if v.step == "offset" then return offset_text(name, c[1], "-") end
  return requant_text(name, c[1], c[2], c[3], c[4], "-")
end

-- The formulas of an element of quantized kernel Q (the model's quant),
-- as rows {name, "= formula"}: a, b and out, or out alone for a product;
-- MINUS and TIMES the signs the text writes.
function quant_formulas(q, minus, times)
  local ops = q.operands
  local function out(acc)
    return {"out", "= clamp(MBQM(" .. acc .. ", " .. q.out.mult .. ", " .. q.out.shift .. ") + "
      .. signed_text(ops[3].zero) .. ", " .. q.lo .. ", " .. q.hi .. ")"}
  end
  if q.made == "product" then
    return {out("(" .. offset_text(ops[1].name, ops[1].zero, minus) .. ") " .. times .. " ("
      .. offset_text(ops[2].name, ops[2].zero, minus) .. ")")}
  end
  local rows = {}
  for k, name in ipairs({"a", "b"}) do
    local o = ops[k]
    rows[k] = {name, "= " .. requant_text(o.name, o.zero, q.left_shift, o.mult.mult, o.mult.shift, minus)}
  end
  rows[3] = out("a " .. q.operator .. " b")
  return rows
end

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
  if v.kind == "quant" then return quant_step(v, a[1]) end
  return forms[v.form](v, a)
end

-- The kernel's name for its result: "out", or the first operand in place.
function result_name()
  return inplace and operands[1].name or "out"
end

-- The code items of the plan (gen/plan.h, struct code_item) spelled in
-- C. The plan lays out every declaration, loop and statement; these say
-- only how each reads, and name what it declares through declare().

-- "x", or "out": the parameter of operand O, the output after the inputs.
local function parameter(o)
  return o > #operands and result_name() or operands[o].name
end

-- "y_q": the table of quantized input I's elements requantized, which
-- the kernel reads in its place.
function table_name(i)
  local op = operands[i].name
  return declare(op .. "_q", "the table of " .. op .. "'s elements requantized in kernel '" .. name .. "'")
end

-- Whether operand O is read from its table: an input's elements requantized.
local function tabled(o)
  return o <= #operands and reads[o].table
end

-- The C type of an element of operand O as the kernel reads it: its
-- dtype's, or int32_t from its table.
local function read_ctype(o)
  return tabled(o) and "int32_t" or ctype(o > #operands and out_dtype or operands[o].dtype)
end

-- "x_0": the name of pointer K of the kernel's pointers, which its
-- loop moves through its operand (an input's table, where it has one);
-- without a loop, the parameter itself, or the table. Each is named
-- once, and kept in POINTER_NAMES.
local pointer_names = {}
local function pointer(k)
  if not pointer_names[k] then
    local p = pointers[k]
    local base = tabled(p.operand) and table_name(p.operand) or parameter(p.operand)
    pointer_names[k] = p.loop and declare(base .. "_" .. p.loop,
      "a pointer kernel '" .. name .. "' moves through " .. base) or base
  end
  return pointer_names[k]
end

-- "i0": the counter of loop L.
local function counter(l)
  return declare("i" .. l, "a loop counter of kernel '" .. name .. "'")
end

-- The streaming stores' names: the elements before a line boundary, the
-- line computed before it is stored, and an element of it.
local function head_name()
  return declare("head", "the elements kernel '" .. name .. "' writes before a line boundary")
end
local function line_name()
  return declare("line", "the line of the output kernel '" .. name .. "' computes before streaming it")
end
local function lane_name()
  return declare("lane", "an element of a line in kernel '" .. name .. "'")
end

-- "share": the iterations of the outermost loop a thread runs, the part
-- function's first parameter (--parallel).
local function share_name()
  return declare("share", "the iterations of kernel '" .. name .. "' a thread runs")
end

-- "x_v": the local that holds input I's value where the plan reads it once.
local function local_name(i)
  local op = operands[i].name
  return declare(op .. "_v", "the local that holds " .. op .. "'s value in kernel '" .. name .. "'")
end

-- "x_0[3]", "*x", "x[i1 * 4]", "x[(i1 + lane) * 4]", "line[lane]": the
-- element AT.
local function element(at)
  if at.kind == "line" or at.kind == "float_line" then return line_name() .. "[" .. lane_name() .. "]" end
  local p = pointer(at.pointer)
  if at.kind == "pointer" then return "*" .. p end
  if at.kind == "offset" then return p .. "[" .. at.offset .. "]" end
  local i = counter(at.loop)
  if at.lane then i = i .. " + " .. lane_name() end
  if at.stride == 1 then return p .. "[" .. i .. "]" end
  return p .. "[" .. (at.lane and "(" .. i .. ")" or i) .. " * " .. at.stride .. "]"
end

-- "x_f": the floats a line of input I's f16 elements is converted to.
local function staged_name(i)
  local op = operands[i].name
  return declare(op .. "_f", "the floats of a line of " .. op .. " in kernel '" .. name .. "'")
end

-- Input I's value at AT: its line's float, or its element, widened if f16.
local function input_value(i, at)
  if at.kind == "staged" then return staged_name(i) .. "[" .. lane_name() .. "]" end
  return widened(i, element(at))
end

-- "bc_f16_to_f32_nq(x_f, x_1 + i2, 64);": the line conversion HELPER of N
-- elements, SRC to DST; its _nq form where QUIET (a signalling NaN may
-- become quiet).
local function line_conversion(helper, quiet, dst, src, n)
  return helper .. (quiet and "q" or "") .. "(" .. dst .. ", " .. src .. ", " .. n .. ");"
end

-- A function that spells a read of an input as READS say: its local,
-- or its value at its place.
local function reader(reads)
  return function(v)
    local at = reads[v.operand]
    if at.kind == "local" then return local_name(v.operand) end
    return input_value(v.operand, at)
  end
end

-- The statements, each spelled as one line.
local statements = {
  counters = function(it)
    local list = {}
    for k, l in ipairs(it.loops) do list[k] = counter(l) end
    return "uint_fast" .. it.bits .. "_t " .. table.concat(list, ", ") .. ";"
  end,
  pointer = function(it)
    local o = pointers[it.pointer].operand
    local pointee = (o > #operands and "" or "const ") .. read_ctype(o)
    return pointee .. " *" .. pointer(it.pointer) .. " = " .. pointer(it.from) .. ";"
  end,
  ["local"] = function(it)
    local i = it.operand
    local t = tabled(i) and "int32_t" or vtype(operands[i].dtype)
    return "const " .. t .. " " .. local_name(i) .. " = " .. input_value(i, it.at) .. ";"
  end,
  -- with the text it computes as a comment, unless it is a temporary
  -- only to keep the code shallow
  temp = function(it)
    local v = values[it.value]
    local note = v.text and not v.split and "\t/* " .. v.text .. " */" or ""
    local t = declare("t" .. v.temp, "a value kernel '" .. name .. "' computes once")
    return "const " .. vtype(v.type) .. " " .. t .. " = " .. spell(values, it.value, reader(it.reads), true).text .. ";" .. note
  end,
  -- into a float line as computed: the line is converted to f16 at once
  store = function(it)
    local e = spell(values, it.value, reader(it.reads)).text
    return element(it.at) .. " = " .. (it.at.kind == "float_line" and e or narrowed(e)) .. ";"
  end,
  -- "bc_f16_to_f32_n(x_f, x_1 + i2, 64);": a line of f16s converted at once
  widen = function(it)
    return line_conversion("bc_f16_to_f32_n", it.quiet, staged_name(it.operand),
      pointer(it.at.pointer) .. " + " .. counter(it.at.loop), it.line)
  end,
  -- "bc_q_add_line_i8_d(out_0, 256, x_0, 1, 0, y_0, 0, t0, -3, 20, ...);":
  -- the innermost loop by the runtime's line helper (bc_quant.h), each
  -- input's pointer, whether it moves, and for one that stays put its
  -- step's value computed once; each input's constants, then the output's
  quant_line = function(it)
    local root = values[it.value]
    local made = values[root.args[1]]
    local args, constants = {pointer(it.pointer), tostring(it.to)}, {}
    for k, j in ipairs(made.args) do
      local step, r = values[j], it.reads[k]
      args[#args + 1] = pointer(r.pointer)
      if r.kind == "once" then
        args[#args + 1] = "0"
        args[#args + 1] = "t" .. (step.temp or error("a quantized line's input that stays put is not computed once"))
      else
        args[#args + 1] = "1"
        args[#args + 1] = "0"
      end
      for _, c in ipairs(step.constants) do constants[#constants + 1] = tostring(c) end
    end
    for _, c in ipairs(root.constants) do constants[#constants + 1] = tostring(c) end
    return quant_line_helper(root, made) .. "(" .. table.concat(args, ", ") .. ", " .. table.concat(constants, ", ") .. ");"
  end,
  fence = function() return "bc_stream_fence();" end,
  order = function() return "BC_STORE_ORDER();" end,
  unused = function(it) return "(void)" .. parameter(it.operand) .. ";" end,
  empty = function() return "/* The result has no elements: nothing to do. */" end,
}

local blocks

-- The lines of code items ITEMS at DEPTH tabs, appended to INTO (a new
-- list when nil); return INTO.
function spell_code(items, depth, into)
  into = into or {}
  for _, it in ipairs(items) do
    if blocks[it.kind] then
      blocks[it.kind](it, depth, into)
    else
      into[#into + 1] = string.rep("\t", depth) .. statements[it.kind](it)
    end
  end
  return into
end

-- The items that hold others, each appending its lines at DEPTH to INTO.
blocks = {
  -- "for (i0 = 0; i0 < 8; i0++, x_0 += 3) {" ... "} /* i0 */"; a loop of
  -- one element's statements closes unnamed, in braces only around more
  -- than one
  loop = function(it, depth, into)
    local tabs, i = string.rep("\t", depth), it.lane and lane_name() or counter(it.loop)
    local steps = {i .. "++"}
    for _, s in ipairs(it.steps) do steps[#steps + 1] = pointer(s.pointer) .. " += " .. s.by end
    local bound = it.to_head and head_name() or it.to_share and share_name() or it.to
    local head = "for (" .. (it.from and i .. " = " .. it.from or "") .. "; " .. i .. " < "
      .. bound .. "; " .. table.concat(steps, ", ") .. ")"
    -- a line's loop stays a loop, which compilers vectorize (bc_stream.h)
    if it.lane then into[#into + 1] = tabs .. "BC_LINE_LOOP" end
    if it.elements and #it.body == 1 then
      into[#into + 1] = tabs .. head
      spell_code(it.body, depth + 1, into)
      return
    end
    into[#into + 1] = tabs .. head .. " {"
    spell_code(it.body, depth + 1, into)
    into[#into + 1] = tabs .. (it.elements and "}" or "} /* " .. i .. " */")
  end,
  -- "{ const float x_v = x[3]; out[3] = x_v * x_v; }  /* i1 = 1, i2 = 3 */":
  -- one line, with where the element is in the loops, or in the result
  element = function(it, depth, into)
    local s, at = {}, {}
    for k, item in ipairs(it.body) do s[k] = statements[item.kind](item) end
    local text = #s > 1 and "{ " .. table.concat(s, " ") .. " }" or s[1]
    if it.counters then
      for k, c in ipairs(it.counters) do at[k] = "i" .. (it.loop + k - 1) .. " = " .. c end
      text = text .. "  /* " .. table.concat(at, ", ") .. " */"
    elseif #it.index > 0 then
      text = text .. "  /* [" .. table.concat(it.index, ",") .. "] */"
    end
    into[#into + 1] = string.rep("\t", depth) .. text
  end,
  -- "int32_t y_q[8];" ... "for (y_k = 0; y_k < 8; y_k++) y_q[y_k] = ...;":
  -- a quantized input's elements requantized once, into its table
  quant_table = function(it, depth, into)
    local tabs, i = string.rep("\t", depth), it.operand
    local op, q = operands[i].name, table_name(i)
    local k = declare(op .. "_k", "the counter of " .. op .. "'s table in kernel '" .. name .. "'")
    local step = values[it.value]
    into[#into + 1] = tabs .. "int32_t " .. q .. "[" .. it.to .. "];\t/* each " .. op .. " requantized once: " .. quant_text(values, step) .. " */"
    into[#into + 1] = tabs .. "uint_fast16_t " .. k .. ";"
    into[#into + 1] = tabs .. "for (" .. k .. " = 0; " .. k .. " < " .. it.to .. "; " .. k .. "++)"
    into[#into + 1] = tabs .. "\t" .. q .. "[" .. k .. "] = " .. quant_step(step, expr(op .. "[" .. k .. "]", PRIMARY)).text .. ";"
  end,
  -- the head: the elements before the output's first line boundary
  stream = function(it, depth, into)
    local tabs, p = string.rep("\t", depth), pointer(it.pointer)
    into[#into + 1] = tabs .. "{"
    into[#into + 1] = tabs .. "\tconst size_t " .. head_name() .. " = bc_stream_head(" .. p .. ", sizeof *" .. p .. ", " .. it.to .. ");"
    spell_code(it.body, depth + 1, into)
    into[#into + 1] = tabs .. "}"
  end,
  -- whole lines, each computed into a line and stored around the cache;
  -- or, converting f16, each input's converted to floats first, and the
  -- floats computed converted to the output at once
  lines = function(it, depth, into)
    local tabs, i, line = string.rep("\t", depth), counter(it.loop), line_name()
    local buffers = {}
    for _, b in ipairs(it.body) do
      if b.kind == "widen" then buffers[#buffers + 1] = staged_name(b.operand) .. "[" .. it.line .. "]" end
    end
    if not it.convert or it.narrow then buffers[#buffers + 1] = line .. "[" .. it.line .. "]" end
    into[#into + 1] = tabs .. "for (" .. (it.convert and i .. " = 0" or "") .. "; " .. i .. " + " .. it.line .. " <= " .. it.to .. "; " .. i .. " += " .. it.line .. ") {"
    into[#into + 1] = tabs .. "\t" .. (it.convert and "float" or ctype(out_dtype)) .. " " .. table.concat(buffers, ", ") .. ";"
    into[#into + 1] = tabs .. "\tsize_t " .. lane_name() .. ";"
    spell_code(it.body, depth + 1, into)
    if not it.convert then
      into[#into + 1] = tabs .. "\tbc_stream_line_" .. out_dtype .. "(" .. pointer(it.pointer) .. " + " .. i .. ", " .. line .. ");"
    elseif it.narrow then
      into[#into + 1] = tabs .. "\t" .. line_conversion("bc_f32_to_f16_n", it.quiet, pointer(it.pointer) .. " + " .. i, line, it.line)
    end
    into[#into + 1] = tabs .. "}"
  end,
  -- where the target has streaming stores (BC_STREAM, bc_stream.h)
  ["if"] = function(it, depth, into)
    into[#into + 1] = it.hosted and "#if BC_STREAM && __STDC_HOSTED__" or "#if BC_STREAM"
    spell_code(it.body, depth, into)
    if #it.orelse > 0 then
      into[#into + 1] = "#else"
      spell_code(it.orelse, depth, into)
    end
    into[#into + 1] = "#endif"
  end,
}

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

-- "k_part": the function a thread runs on its share of the outermost
-- loop (--parallel); static, named for the whole file.
local function part_name()
  return declare(name .. "_part", "the function kernel '" .. name .. "' runs on each thread", "file")
end

-- The part function's C signature: the kernel's, static, with the share
-- first.
function part_signature()
  return (signature():gsub("^void " .. name .. "%(", "static void " .. part_name() .. "(size_t " .. share_name() .. ", "))
end

-- The kernel's body that runs the part function: on each thread of a
-- parallel region, its share of the outermost loop's iterations and the
-- parameters moved that far (BC_PARALLEL, bc.h); else all of them here.
function parallel_body()
  local extent, args, moved = loops[1].extent, {}, {}
  local from, to = declare("from", "a thread's first iteration in kernel '" .. name .. "'"),
    declare("to", "the iteration past a thread's last in kernel '" .. name .. "'")
  -- parameter P, of stride STRIDE in the outermost loop, moved to FROM
  local function move(p, stride)
    args[#args + 1] = p
    moved[#moved + 1] = stride == 0 and p or p .. " + " .. from .. (stride == 1 and "" or " * " .. stride)
  end
  for i, op in ipairs(operands) do
    -- an operand written in place moves as the output does
    move(op.name, loops[1].strides[inplace and i == 1 and #operands + 1 or i])
  end
  if not inplace then move(result_name(), loops[1].strides[#operands + 1]) end
  return {
    "#if BC_PARALLEL",
    "#pragma omp parallel",
    "\t{",
    "\t\tsize_t " .. from .. ", " .. to .. ";",
    "",
    "\t\tbc_share(" .. extent .. ", &" .. from .. ", &" .. to .. ");",
    "\t\t" .. part_name() .. "(" .. to .. " - " .. from .. ", " .. table.concat(moved, ", ") .. ");",
    "\t}",
    "#else",
    "\t" .. part_name() .. "(" .. extent .. ", " .. table.concat(args, ", ") .. ");",
    "#endif",
  }
end

-- "K_SHAPE": the kernel's macro named SUFFIX, declared for the whole file.
function macro(suffix)
  return declare(name:upper() .. "_" .. suffix, "a macro of kernel '" .. name .. "'", "file")
end
