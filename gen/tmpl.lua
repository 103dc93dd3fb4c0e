-- tmpl.lua: compile templates to Lua and render them in a sandbox.
--
-- A template is text. A line whose first character is '@' is Lua code;
-- every other line is output, with each $(expr) replaced by the value of
-- the Lua expression inside. The compiled chunk has exactly one line per
-- template line, so an error names the template's own line number.
-- Numbers print as integers with "%d", strings as themselves; any other
-- value in $() is an error, so a missing field cannot print as "nil".

local M = {}

-- Return the position of the ')' that closes the '(' at position I of S,
-- skipping nested parentheses and quoted strings; nil if there is none.
local function closing_paren(s, i)
  local depth, j = 0, i
  while j <= #s do
    local c = s:sub(j, j)
    if c == '"' or c == "'" then
      j = j + 1
      while j <= #s and s:sub(j, j) ~= c do
        if s:sub(j, j) == "\\" then j = j + 1 end
        j = j + 1
      end
    elseif c == "(" then
      depth = depth + 1
    elseif c == ")" then
      depth = depth - 1
      if depth == 0 then return j end
    end
    j = j + 1
  end
  return nil
end

-- Compile one output line into a single Lua statement appending it.
local function compile_text(line, lineno, name)
  local parts, pos = {}, 1
  while true do
    local s = line:find("$(", pos, true)
    if not s then break end
    local e = closing_paren(line, s + 1)
    if not e then
      error(string.format("%s:%d: '$(' is not closed", name, lineno), 0)
    end
    if s > pos then parts[#parts + 1] = string.format("%q", line:sub(pos, s - 1)) end
    parts[#parts + 1] = "_str(" .. line:sub(s + 2, e - 1) .. ")"
    pos = e + 1
  end
  if pos <= #line then parts[#parts + 1] = string.format("%q", line:sub(pos)) end
  parts[#parts + 1] = '"\\n"'
  return "_put(" .. table.concat(parts, ", ") .. ")"
end

-- Compile template source SRC, named NAME in messages, to Lua source.
-- The chunk takes (_put, _str) as its arguments.
function M.compile(src, name)
  if src:sub(-1) ~= "\n" then src = src .. "\n" end
  local out, lineno = {}, 0
  for line in src:gmatch("(.-)\n") do
    lineno = lineno + 1
    if line:sub(1, 1) == "@" then
      out[lineno] = line:sub(2)
    else
      out[lineno] = compile_text(line, lineno, name)
    end
  end
  out[1] = "local _put, _str = ...; " .. (out[1] or "")
  return table.concat(out, "\n") .. "\n"
end

-- Convert the value of a $() to text.
local function tostr(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if type(v) == "string" then return v end
  error("$() gives a " .. (math.type(v) or type(v)) .. " value, not a string or integer", 2)
end

-- The globals a template may use; everything else (io, os, load,
-- require, print, ...) is absent.
local safe = {
  "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal",
  "rawget", "rawlen", "select", "tonumber", "tostring", "type",
  "math", "string", "table", "utf8",
}

-- Render template source SRC, named NAME, with the fields of the model,
-- the last argument, as its globals, after running the Lua helpers given
-- before it as (source, name) pairs in the same environment. Returns the
-- output text; raises an error naming NAME:LINE.
function M.render(src, name, ...)
  local args = table.pack(...)
  local model, env = args[args.n], {}
  for _, k in ipairs(safe) do env[k] = _G[k] end
  for k, v in pairs(model) do env[k] = v end
  for i = 1, args.n - 1, 2 do
    local libfn, liberr = load(args[i], "@" .. args[i + 1], "t", env)
    if not libfn then error(liberr, 0) end
    libfn()
  end
  local fn, err = load(M.compile(src, name), "@" .. name, "t", env)
  if not fn then error(err, 0) end
  local buf = {}
  local function put(...)
    for i = 1, select("#", ...) do buf[#buf + 1] = select(i, ...) end
  end
  fn(put, tostr)
  return table.concat(buf)
end

return M
