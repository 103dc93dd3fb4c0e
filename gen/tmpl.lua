-- tmpl.lua: compile templates to Lua and render them in a sandbox.
--
-- A template is text. A line whose first character is '@' is Lua code;
-- every other line is output, with each $(expr) replaced by the value of
-- the Lua expression inside. The compiled chunk has exactly one line per
-- template line, so an error names the template's own line number.
-- Numbers print as integers with "%d", strings as themselves; any other
-- value in $() is an error, so a missing field cannot print as "nil".
--
-- Each template and each helper is compiled once per run (M.load), to a
-- function that takes the environment it runs in as its first argument
-- (its first line declares `local _ENV = ...`), so one compiled chunk
-- renders every kernel, each in a fresh environment (M.render).

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

-- Compile one output line into a single Lua statement appending it, as
-- one string: its texts and its $() values joined by one concatenation.
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
  -- the text after the last $(), and the newline, in one literal
  parts[#parts + 1] = string.format("%q", line:sub(pos)):sub(1, -2) .. '\\n"'
  return "_put(" .. table.concat(parts, " .. ") .. ")"
end

-- Compile template source SRC, named NAME in messages, to Lua source.
-- The chunk takes (_ENV, _put, _str) as its arguments: the environment
-- it runs in, and the functions that append output and convert a $().
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
  out[1] = "local _ENV, _put, _str = ...; " .. (out[1] or "")
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
}
local libs = {"math", "string", "table", "utf8"}

-- Compile SRC, named NAME in messages, to a function of the environment
-- it is to run in: a template (KIND "template") through M.compile, or a
-- Lua helper (KIND "helper") whose first line gets `local _ENV = ...;`,
-- so that its line numbers stay its own. The chunk's own upvalue _ENV is
-- nil: every global it names is a field of the environment it is given.
-- Raises an error naming NAME:LINE.
function M.load(src, name, kind)
  local code
  if kind == "template" then
    code = M.compile(src, name)
  else
    code = "local _ENV = ...; " .. src
  end
  local fn, err = load(code, "@" .. name, "t", nil)
  if not fn then error(err, 0) end
  return fn
end

-- Render the compiled template FN (M.load) with the fields of the model,
-- the last argument, as its globals, after running the compiled helpers
-- given before it in the same environment. The environment is fresh:
-- the model, the safe globals, and copies of the safe libraries (so
-- nothing a render leaves in them is seen by the next). Returns the output text;
-- raises an error naming the template's or helper's NAME:LINE.
--
-- M.copy(t, extra), set by the Lua host (gen/lhost.c), is a new table
-- with the fields of T and room for EXTRA more. The model's fields come
-- first, and a safe global or library of the same name does not replace
-- one: the model wins, as it always has.
function M.render(fn, ...)
  local args = table.pack(...)
  local env = M.copy(args[args.n], #safe + #libs + 64)
  for _, k in ipairs(safe) do
    if env[k] == nil then env[k] = _G[k] end
  end
  for _, k in ipairs(libs) do
    if env[k] == nil then env[k] = M.copy(_G[k]) end
  end
  for i = 1, args.n - 1 do args[i](env) end
  local buf, n = {}, 0
  local function put(line)
    n = n + 1
    buf[n] = line
  end
  fn(env, put, tostr)
  return table.concat(buf)
end

return M
