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
