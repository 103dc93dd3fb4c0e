-- words.lua: the wording of --explain in each language (the text, and
-- the picture's and the page's words in W.picture and W.page), one
-- function a sentence or phrase, the same names and arguments in every
-- language. The facts come from the model (bcast.c's trace, plan.c's
-- plan); only how they are said is here. Runs before the explain.*
-- templates; W is the language of the model's `lang`.

local en, zh = {}, {}
W = lang == "zh" and zh or en

-- The units of text S that no line breaks inside, and the spaces
-- between them ({space = true}); each unit's width in columns (a CJK
-- character is two). A unit is a word, a run of CJK (broken inside only
-- past LONGEST_WORD columns) with the punctuation that closes it, or a
-- number of up to 3 digits glued to its neighbours. "\3" is a space no
-- line breaks at: formulas are written with it, and the spaces inside a
-- unit are kept as it (lay_out spells it).
local closing, opening = {}, {}
for _, c in ipairs({"，", "。", "：", "；", "、", "）", "！", "？"}) do closing[c] = true end
opening["（"] = true

LONGEST_WORD = 32	-- columns: a run of Chinese longer than this may break inside

function word_units(s)
  local units = {}
  for ch in s:gmatch(utf8.charpattern) do
    local is_wide, last = wide(utf8.codepoint(ch)), units[#units]
    if ch == " " then
      units[#units + 1] = {space = true}
    elseif ch == "\3" and last and not last.space then
      last.text, last.width, last.wide, last.closed = last.text .. "\3", last.width + 1, false, false
    elseif last and not last.space and (closing[ch] or not last.closed and (last.open or is_wide == last.wide)
           and (not is_wide or last.width < LONGEST_WORD)) then
      last.text, last.width, last.wide, last.open = last.text .. ch, last.width + (is_wide and 2 or 1), is_wide, opening[ch]
      last.closed = is_wide and closing[ch]
    else
      units[#units + 1] = {text = ch, width = is_wide and 2 or 1, wide = is_wide, open = opening[ch],
                           closed = is_wide and closing[ch]}
    end
  end
  -- a number of up to 3 digits stays with the word before it ("dim 1",
  -- "第 1", "到 2，", "Step 1."), and a number or a formula ending in
  -- one with the Chinese after it ("1 维", "0 .. 127 之内", "（4 是"):
  -- the spaces around it do not break
  for i, u in ipairs(units) do
    local number = not u.space and u.text:match("^%-?%d%d?%d?")
    local rest = number and u.text:sub(#number + 1)
    local before, after = units[i - 2], units[i + 2]
    if number and (rest == "" or closing[rest] or rest:match("^[.,:;)]$")) and units[i - 1] and units[i - 1].space and before
       and not before.closed and not before.text:match("[.:;,]$") then
      units[i - 1].glue = true
    end
    if not u.space and (rest == "" or u.text:match("[ \3]%-?%d%d?%d?$") or u.text:match("^（%-?%d%d?%d?$")) and units[i + 1] and units[i + 1].space
       and after and not after.space and wide(utf8.codepoint(after.text)) and not closing[after.text:sub(1, 3)] then
      units[i + 1].glue = true
    end
  end
  local merged = {}
  for _, u in ipairs(units) do
    local last = merged[#merged]
    if last and (last.glue_next or u.glue) then
      if u.space then
        last.glue_next = true
      else
        last.text, last.width, last.glue_next = last.text .. "\3" .. u.text, last.width + 1 + u.width, false
        last.wide, last.closed = u.wide, u.closed
      end
    else
      merged[#merged + 1] = u
    end
  end
  return merged
end

-- The lines of UNITS (word_units) laid out to LIMIT (0: one line) as
-- MEASURE measures a text, a space between units kept; the first line
-- starts with FIRST, the others with INDENT. A unit wider than a line
-- stays whole, or, with CUT, is cut where it reaches the end. The
-- spaces inside units are spaces, or, in a line not laid out (LIMIT 0)
-- that a page or a slide will break, no-break spaces (U+00A0).
function lay_out(units, limit, measure, first, indent, cut)
  local lines, line, full, gap = {}, first, false, false
  local used, space = measure(first), measure(" ")
  for _, u in ipairs(units) do
    if u.space then
      gap = full
    else
      local text, w = u.text, measure(u.text)
      if full and limit > 0 and used + w + (gap and space or 0) > limit then
        lines[#lines + 1] = line
        line, used, gap = indent, measure(indent), false
      end
      while cut and limit > 0 and used + w > limit and utf8.len(text) > 1 do
        local head = ""
        for _, c in utf8.codes(text) do
          if head ~= "" and used + measure(head .. utf8.char(c)) > limit then break end
          head = head .. utf8.char(c)
        end
        lines[#lines + 1] = line .. head
        text = text:sub(#head + 1)
        line, used, gap, w = indent, measure(indent), false, measure(text)
      end
      if gap then line, used = line .. " ", used + space end
      line, used, full, gap = line .. text, used + w, true, false
    end
  end
  if full then lines[#lines + 1] = line end
  for i, l in ipairs(lines) do lines[i] = l:gsub("\3", limit > 0 and " " or "\u{A0}") end
  return lines
end

-- Paragraph S word-wrapped to COLUMNS columns (0: one line), each line
-- after the first starting with INDENT, the first with the spaces S
-- starts with; a line breaks only between units (word_units).
function wrap(s, columns, indent)
  local lead = s:match("^ *")
  return table.concat(lay_out(word_units(s:sub(#lead + 1)), columns, width, lead, indent or ""), "\n")
end

-- "x", "x and y", "a, b and d" (lib.lua's names) / "x"、"x 和 y"、"a、b 和 d".
en.list = names
function zh.list(l)
  if #l == 1 then return l[1] end
  return table.concat(l, "、", 1, #l - 1) .. " 和 " .. l[#l]
end

-- "-1 (the NumPy rule), 0 to 2, or -3 to -2": the valid axes.
function en.valid(lo, hi, nlo, nhi)
  local s = "-1 (the NumPy rule)" .. (nlo <= nhi and ", " or " or ") .. (lo == hi and lo or lo .. " to " .. hi)
  if nlo <= nhi then s = s .. ", or " .. (nlo == nhi and nlo or nlo .. " to " .. nhi) end
  return s
end
function zh.valid(lo, hi, nlo, nhi)
  local s = "-1（即 NumPy 规则）" .. (nlo <= nhi and "、" or " 和 ") .. (lo == hi and lo or lo .. " 到 " .. hi)
  if nlo <= nhi then s = s .. " 和 " .. (nlo == nhi and nlo or nlo .. " 到 " .. nhi) end
  return s
end

en.sep, zh.sep = " ", ""
-- The language as a picture's and a page's lang attribute names it (BCP 47).
en.lang_tag, zh.lang_tag = "en", "zh-CN"
-- The fonts of a picture and a page: the common CJK fonts before the
-- generic family, so that a machine without the first ones still draws
-- Chinese in a font whose width the layout counted on.
local CJK_FONTS = "Noto Sans CJK SC, Source Han Sans SC, Microsoft YaHei, PingFang SC, WenQuanYi Micro Hei"
SANS_FONTS = "DejaVu Sans, Verdana, Arial, " .. CJK_FONTS .. ", sans-serif"
MONO_FONTS = "DejaVu Sans Mono, Menlo, Consolas, " .. CJK_FONTS .. ", monospace"

function en.step(n) return "Step " .. n .. ". " end
function zh.step(n) return "第 " .. n .. " 步：" end

function en.header(ops, axis)
  if axis then return "Broadcasting " .. en.list(ops) .. " with Paddle's elementwise axis = " .. axis .. "." end
  return "Broadcasting " .. en.list(ops) .. " by the NumPy rule."
end
function zh.header(ops, axis)
  if axis then return "用 Paddle 逐元素运算的 axis = " .. axis .. " 对 " .. zh.list(ops) .. " 做广播。" end
  return "按 NumPy 的规则对 " .. zh.list(ops) .. " 做广播。"
end

function en.not_two(n)
  return "Paddle's axis is defined for exactly two operands, x and y, and " .. n .. " were given: stop here."
end
function zh.not_two(n)
  return "Paddle 的 axis 只用于两个张量 x 和 y，这里却给了 " .. n .. " 个：到此为止。"
end

-- The lower-rank operand Y is placed on X at the axis; KEPT: its shape
-- without its trailing 1s, when it has any.
function en.placed(y, x, ry, rx, shape, kept)
  local s = y .. " has the lower rank (" .. ry .. " < " .. rx .. "), so Paddle places it on " .. x ..
    " at the axis instead of lining it up at the end. "
  if kept then
    return s .. "First its trailing 1s are dropped, so " .. shape .. " becomes " .. kept .. "."
  end
  return s .. "It has no trailing 1s to drop."
end
function zh.placed(y, x, ry, rx, shape, kept)
  local s = y .. " 的维度数较少（" .. ry .. " < " .. rx .. "），所以 Paddle 按 axis 把它放到 " .. x ..
    " 上，而不是从最后一个维度对齐。"
  if kept then
    return s .. "先去掉它尾部大小为 1 的维度，" .. shape .. " 变成 " .. kept .. "。"
  end
  return s .. "它的尾部没有大小为 1 的维度，不用去掉。"
end

-- The axes Paddle takes, and the ones valid for these shapes.
function en.axis_range(max, rule, valid)
  return "Paddle takes an axis from " .. -max .. " to " .. (max - 1) .. ", " .. max ..
    " being the larger rank. An axis k below -1 means " .. rule .. ". For these shapes the valid axes are " .. valid .. "."
end
function zh.axis_range(max, rule, valid)
  return "Paddle 的 axis 可取 " .. -max .. " 到 " .. (max - 1) .. "（" .. max ..
    " 是较大的维度数）。小于 -1 的 axis k 表示 " .. rule .. "。对这两个形状，有效的 axis 是 " .. valid .. "。"
end

function en.axis_out(axis, mapped, rule_at)
  if mapped then return "Axis " .. axis .. " means " .. rule_at .. ", which is out of range: stop here." end
  return "Axis " .. axis .. " is out of range: stop here."
end
function zh.axis_out(axis, mapped, rule_at)
  if mapped then return "axis " .. axis .. " 表示 " .. rule_at .. "，超出了范围：到此为止。" end
  return "axis " .. axis .. " 超出了范围：到此为止。"
end

function en.axis_in(axis, mapped, rule_at, at)
  if mapped then return "Axis " .. axis .. " is below -1, so it means " .. rule_at .. ": axis " .. at .. "." end
  return "Axis " .. axis .. " is in range."
end
function zh.axis_in(axis, mapped, rule_at, at)
  if mapped then return "axis " .. axis .. " 小于 -1，表示 " .. rule_at .. "，即 axis " .. at .. "。" end
  return "axis " .. axis .. " 在范围内。"
end

function en.line_up_axis(y, x, at)
  return "Dim 0 of " .. y .. " lines up with dim " .. at .. " of " .. x ..
    ", and the dimensions that " .. y .. " does not cover are padded with 1s."
end
function zh.line_up_axis(y, x, at)
  return y .. " 的第 0 维与 " .. x .. " 的第 " .. at .. " 维对齐，" .. y .. " 没有覆盖的维度补 1。"
end

en.padded = "(1) marks a padded dimension, which counts as size 1."
zh.padded = "(1) 表示补上的维度，大小算作 1。"

function en.same_rank_bad(x, y, r, axis)
  return x .. " and " .. y .. " have the same rank (" .. r .. ") but different shapes, so the axis must be -1 or 0, which both mean the NumPy rule. Axis " .. axis .. " is not allowed: stop here."
end
function zh.same_rank_bad(x, y, r, axis)
  return x .. " 和 " .. y .. " 的维度数相同（" .. r .. "）但形状不同，所以 axis 只能是 -1 或 0，两者都表示 NumPy 规则。axis " .. axis .. " 不允许：到此为止。"
end

function en.identical(x, y)
  return x .. " and " .. y .. " have identical shapes, so the axis is ignored and the shapes line up as they are."
end
function zh.identical(x, y)
  return x .. " 和 " .. y .. " 的形状完全相同，所以 axis 不起作用，形状按原样对齐。"
end

function en.same_rank(x, y) return x .. " and " .. y .. " have the same rank, so axis 0 means the NumPy rule." end
function zh.same_rank(x, y) return x .. " 和 " .. y .. " 的维度数相同，所以 axis 0 表示 NumPy 规则。" end

en.minus_one = "Axis -1 means the NumPy rule."
zh.minus_one = "axis -1 表示 NumPy 规则。"

en.line_up = "Line the shapes up at their last dimension. A shape of lower rank gets 1s prepended, marked (1). A dimension an operand does not have counts as size 1."
zh.line_up = "把形状从最后一个维度开始对齐。维度数较少的形状在前面补 1，记作 (1)。张量没有的维度，大小算作 1。"

en.all_scalars = "(every operand is a scalar: there is nothing to align)"
zh.all_scalars = "（每个张量都是标量：没有要对齐的维度）"
en.nothing_to_compare = "(every operand is a scalar: there is nothing to compare)"
zh.nothing_to_compare = "（每个张量都是标量：没有要比较的维度）"

-- How the comparison goes: by the NumPy rule, or from the axis START
-- forward (FROM_MINUS_ONE: the axis -1 became START).
function en.compare(axis_mode, start, rank, rule)
  local s
  if not axis_mode then
    s = "Compare the sizes dimension by dimension, from the last to the first."
  elseif start == 0 then
    s = "Compare the sizes dimension by dimension, from the first to the last. With an axis, Paddle compares from the axis forward."
  else
    s = "Compare the sizes from dim " .. start .. " forward to the last, then the dimensions before dim " .. start ..
      ". With an axis, Paddle compares from the axis forward" .. (rule and " (for axis -1, " .. rule .. ")" or "") .. "."
  end
  return s .. " In each dimension, the sizes other than 1 must be equal. An operand of size 1 there is stretched to that size." ..
    " The shapes broadcast only when every dimension does."
end
function zh.compare(axis_mode, start, rank, rule)
  local s
  if not axis_mode then
    s = "从最后一维开始，从后往前逐个维度比较大小。"
  elseif start == 0 then
    s = "从第 0 维开始，从前往后逐个维度比较大小。设置了 axis 后，Paddle 从 axis 开始从前往后比较。"
  else
    s = "先从第 " .. start .. " 维往后比到最后一维，再比第 " .. start ..
      " 维之前的维度。设置了 axis 后，Paddle 从 axis 开始从前往后比较" .. (rule and "（axis 为 -1 时，" .. rule .. "）" or "") .. "。"
  end
  return s .. "每一维上，不是 1 的大小必须相等。在这一维大小为 1 的张量被扩展成这个大小。每一维都满足，形状才能广播。"
end

function en.has(name, size) return name .. " has " .. size end
function zh.has(name, size) return name .. " 是 " .. size end
function en.has_none(name) return name .. " has none (1)" end
function zh.has_none(name) return name .. " 没有这一维 (1)" end
function en.differ(a, b) return a .. " and " .. b .. " differ in size and neither is 1, so there is no result" end
function zh.differ(a, b) return a .. " 和 " .. b .. " 的大小不相等，也都不是 1，所以无法广播" end
function en.stretched(l, r)
  return en.list(l) .. (#l == 1 and " is" or " are") .. " stretched to " .. r .. ", so the result has " .. r
end
function zh.stretched(l, r) return zh.list(l) .. " 被扩展成 " .. r .. "，结果是 " .. r end
function en.equal(r) return "equal, so the result has " .. r end
function zh.equal(r) return "相等，结果是 " .. r end
function en.only(r) return "the result has " .. r end
function zh.only(r) return "结果是 " .. r end
function en.dim_line(d, has, what) return "  dim " .. d .. ": " .. table.concat(has, ", ") .. ": " .. what end
function zh.dim_line(d, has, what) return "  第 " .. d .. " 维：" .. table.concat(has, "，") .. "；" .. what end

function en.cannot(d, a, sa, b, sb)
  return "The shapes cannot be broadcast, because in dim " .. d .. ", " .. a .. " has " .. sa .. " and " .. b .. " has " .. sb .. "."
end
function zh.cannot(d, a, sa, b, sb)
  return "这些形状不能广播，因为第 " .. d .. " 维上 " .. a .. " 是 " .. sa .. "，" .. b .. " 是 " .. sb .. "。"
end
en.no_axis_works = "No axis value makes these shapes broadcast."
zh.no_axis_works = "没有哪个 axis 能让这两个形状广播。"
function en.axes_work(l) return "Axis values that would work: " .. en.list(l) .. "." end
function zh.axes_work(l) return "能让这两个形状广播的 axis：" .. zh.list(l) .. "。" end

function en.too_big(shape)
  return "The result shape would be " .. shape .. ", which has more than 2^63 - 1 elements, the most a shape may have (a signed 64-bit count, as NumPy's): stop here."
end
function zh.too_big(shape)
  return "结果的形状会是 " .. shape .. "，元素个数超过 2^63 - 1，这是一个形状最多能有的元素个数（有符号 64 位整数，与 NumPy 相同）：到此为止。"
end

function en.result(shape, n) return "The result shape is " .. shape .. ": " .. n .. " element" .. (n == 1 and "" or "s") .. "." end
function zh.result(shape, n) return "结果的形状是 " .. shape .. "，共 " .. n .. " 个元素。" end

en.strides = "A stride is how many elements to move in an operand for one step along a dimension of the result. A stride of 0 means the operand is stretched there, and the same elements are read again."
zh.strides = "步长（stride）是沿结果的某一维走一步时，在张量里要移动的元素个数。步长为 0 表示该张量在这一维被扩展，同样的元素被重复读取。"
en.dim, zh.dim = "dim", "维度"
en.result_row, zh.result_row = "result size", "结果的大小"
en.scalar_strides = "(a scalar result has no dimensions, so no strides)"
zh.scalar_strides = "（标量结果没有维度，也就没有步长）"

function en.inplace(x, shape, fits)
  return "An in-place operation writes the result into " .. x .. ", so the result must have the shape of " .. x .. ", " .. shape .. ". " ..
    (fits and "Here it has." or "Here it has not, and an in-place operation cannot change the shape of " .. x .. ".")
end
function zh.inplace(x, shape, fits)
  return "原地（in-place，也称原位）运算把结果写回 " .. x .. "，所以结果的形状必须与 " .. x .. " 相同，即 " .. shape .. "。" ..
    (fits and "这里结果的形状正是这样。" or "这里结果的形状不同，而原地运算不能改变 " .. x .. " 的形状。")
end

-- The loops.
function en.dims(l)
  if #l == 1 then return "dim " .. l[1] end
  return "dims " .. en.list(l)
end
function zh.dims(l) return "第 " .. table.concat(l, "、") .. " 维" end
function en.span(a, b) return a == b and "dim " .. a or "dims " .. a .. " to " .. b end
function zh.span(a, b) return a == b and "第 " .. a .. " 维" or "第 " .. a .. " 到 " .. b .. " 维" end

en.loops_intro = "The kernel walks the result in loops, made from its dimensions in two moves."
zh.loops_intro = "核函数（kernel）用循环遍历结果，循环由结果的维度分两步得到。"
en.scalar_loops = "The result is a scalar: there is no loop, and the kernel computes its one element."
zh.scalar_loops = "结果是标量：没有循环，核函数只计算这一个元素。"
function en.dropped(l)
  if #l == 0 then return "No dimension of the result has size 1, so none is dropped." end
  return "First the dimensions of size 1 are dropped, as there is nothing to walk in them: " .. en.dims(l) .. "."
end
function zh.dropped(l)
  if #l == 0 then return "结果没有大小为 1 的维度，所以不去掉任何维度。" end
  return "首先去掉大小为 1 的维度，它们不需要遍历：" .. zh.dims(l) .. "。"
end
en.merge_rule = "Then, from the last dimension to the first, a dimension merges into the loop just inside it when every operand steps across both as across one: its stride there is the loop's stride times the loop's trip count (both contiguous, or both stretched)."
zh.merge_rule = "然后从最后一维往前，如果每个张量跨过这一维和它里面的循环就像跨过一个维度一样，即它在这一维的步长等于里面循环的步长乘以循环次数（两者都连续，或两者都被扩展），这一维就并入里面的循环。"
function en.merges(d, span, n, checks)
  return "  dim " .. d .. " merges into the loop of " .. span .. " (" .. n .. " times): " .. table.concat(checks, ", ")
end
function zh.merges(d, span, n, checks)
  return "  第 " .. d .. " 维并入" .. span .. "的循环（" .. n .. " 次）：" .. table.concat(checks, "，")
end
function en.apart(d, span, n, who, has, want)
  return "  dim " .. d .. " stays apart from the loop of " .. span .. " (" .. n .. " times): " .. who ..
    " has stride " .. has .. " there, not " .. want
end
function zh.apart(d, span, n, who, has, want)
  return "  第 " .. d .. " 维不能并入" .. span .. "的循环（" .. n .. " 次）：" .. who ..
    " 在这一维的步长是 " .. has .. "，而不是 " .. want
end
-- "So the walk over the result is 3 loops, outermost first:", and when
-- REORDERED, in the order --loop-order asked.
function en.nloops(n, reordered)
  return "So the walk over the result is " .. n .. " loop" .. (n == 1 and "" or "s") ..
    (n > 1 and ", outermost first" or "") .. (reordered and ", in the order asked with --loop-order:" or ":")
end
function zh.nloops(n, reordered)
  return "所以遍历结果需要 " .. n .. " 层循环" .. (n > 1 and "，从外到内" or "") ..
    (reordered and "，按 --loop-order 指定的顺序嵌套：" or "：")
end
function en.chunked(u) return " (a chunk of " .. u .. " iterations of the one loop, for threads to share)" end
function zh.chunked(u) return "（唯一循环的 " .. u .. " 次一段，供多个线程分担）" end
en.moved_in = " (moved in around the block)"
zh.moved_in = "（移到块外紧邻处）"
function en.widened(u) return " (" .. u .. " iterations split from the loop around the block)" end
function zh.widened(u) return "（从块外的循环拆出的 " .. u .. " 次）" end
en.written = " (written out)"
zh.written = "（展开写出）"

-- The reads.
en.reads_intro = "Where each operand is read. A loop in which an operand's stride is 0 does not move it: it reads the same elements again."
zh.reads_intro = "每个张量从哪里读取。在步长为 0 的循环里，读取位置不变，同样的元素被重复读取。"
function en.moves_always(x) return "  " .. x .. " moves in every loop: each element read is a new one." end
function zh.moves_always(x) return "  " .. x .. " 在每层循环里都移动：每次读到的都是新元素。" end
function en.once(x) return "  " .. x .. " is the same element throughout: it is read once, before all loops." end
function zh.once(x) return "  " .. x .. " 始终是同一个元素：在所有循环之前只读一次。" end
function en.once_per(x, still, outer, inner, uses)
  return "  " .. x .. " does not move in " .. still .. ": it is read once per iteration of " .. outer .. ", before " .. inner .. ", and used " .. uses .. " times."
end
function zh.once_per(x, still, outer, inner, uses)
  return "  " .. x .. " 在 " .. still .. " 中不移动：" .. outer .. " 每迭代一次，在 " .. inner .. " 之前读一次，用 " .. uses .. " 次。"
end
function en.once_block(x, outer, uses)
  return "  " .. x .. " does not move in the block written out inside " .. outer .. ": it is read once per iteration of " .. outer .. ", before the block, and used " .. uses .. " times."
end
function zh.once_block(x, outer, uses)
  return "  " .. x .. " 在 " .. outer .. " 里展开写出的块中不移动：" .. outer .. " 每迭代一次，在块之前读一次，用 " .. uses .. " 次。"
end
function en.again(x, still, n)
  return "  " .. x .. " does not move in " .. still .. ": the same " .. n .. " element" .. (n == 1 and " is" or "s are") .. " read again in each of its iterations."
end
function zh.again(x, still, n)
  return "  " .. x .. " 在 " .. still .. " 中不移动：" .. still .. " 的每次迭代都重新读取 " .. x .. " 的同样 " .. n .. " 个元素。"
end
function en.no_kernel(why) return "No kernel is made: " .. why .. "." end
function zh.no_kernel(why) return "不生成核函数：" .. why .. "。" end
function en.via_output(x) return "  " .. x .. " is read through the output's pointer, as the result is written into it." end
function zh.via_output(x) return "  " .. x .. " 通过输出的指针读取，因为结果就写回它。" end

-- The strategy.
en.strategy_intro = "The strategy: "
zh.strategy_intro = "选择策略。"
-- The unroll limit as applied: "64", or when the expression's NODES
-- lowered it, "8: 1024 nodes in all, 128 an element".
function en.unroll_limit(n, nodes, budget)
  return nodes > 0 and n .. ": " .. budget .. " nodes in all, " .. nodes .. " an element" or tostring(n)
end
function zh.unroll_limit(n, nodes, budget)
  return nodes > 0 and n .. "：总共最多 " .. budget .. " 个节点，每个元素 " .. nodes .. " 个" or tostring(n)
end
-- How the code budget counts: "a loop as 6, an element as its operations
-- and its store, and each element of an input it reads once".
function en.code_nodes(loop)
  return "a loop counted as " .. loop .. ", an element as its operations and its store, and each element of an input it reads once"
end
function zh.code_nodes(loop)
  return "一层循环按 " .. loop .. " 个计，一个元素按它的运算和存储计，它读到的每个输入元素只计一次"
end
-- What the odd, short and multiple reasons share: the lanes, and the
-- block written out.
local function en_lanes(p)
  return " (the elements of the narrowest type in a " .. p.vector_bytes .. "-byte vector of the target, " .. p.target .. ")"
end
local function en_written(p)
  return "so its " .. p.block .. " elements are written out as straight-line code inside the loops around them, which compilers vectorize."
end
local function zh_lanes(p)
  return "（目标 " .. p.target .. " 的 " .. p.vector_bytes .. " 字节向量能装下的最窄类型的元素个数）"
end
local function zh_written(p)
  return "所以把它的 " .. p.block .. " 个元素在外层循环里展开成直线代码，编译器会把它向量化。"
end
function en.why(p)
  if p.why == "empty" then return "the result has no elements, so the kernel does nothing." end
  if p.why == "asked" then return p.strategy .. ", as asked with --strategy " .. p.strategy .. "." end
  local s = "auto chose " .. p.strategy .. ": "
  if p.why == "small" then
    return s .. "the result's " .. p.count .. " element" .. (p.count == 1 and " is" or "s are") .. " within the unroll limit (" .. p.limit ..
      "), so each element gets a statement of its own, with no loop."
  elseif p.why == "scalar" and p.vector_bytes > 0 then
    return s .. "the target, " .. p.target .. ", runs its code from a small memory, so elements are written out only where they keep the code within " ..
      p.growth .. " times the loops' (" .. p.budget .. " nodes, about an instruction each: " .. en.code_nodes(p.loop_nodes) .. "): " ..
      (p.no_vector_loads and "unrolled, no input would be read " .. p.lanes .. " elements in a row, so compilers would build each vector lane by lane; " or "") ..
      (p.strategy == "unroll" and "all " .. p.count .. " of the result fit, each a statement of its own, with no loop." or
       p.strategy == "block" and "the innermost loop runs " .. p.inner .. " times, not a multiple of " .. p.lanes ..
         " (the elements of the narrowest type in its " .. p.vector_bytes .. "-byte vector), so " .. p.block ..
         " elements are written out as straight-line code inside the loops around them, which compilers vectorize." or
       p.inner % p.lanes == 0 and "the innermost loop runs " .. p.inner .. " times, a multiple of " .. p.lanes ..
         " (the elements of the narrowest type in its " .. p.vector_bytes .. "-byte vector), which compilers vectorize" ..
         (p.nloops > 1 and p.inner > p.lanes and "; its last vector runs in a loop of its own, which shares the pointer steps of the loop around it." or " as it is.") or
       "no block of the innermost loops that fills a vector fits, so the loops stay" ..
         (p.inner > p.lanes and ", the innermost's tail split off." or "."))
  elseif p.why == "scalar" then
    return s .. "the target, " .. p.target .. ", has no vector registers, so a loop buys nothing but costs a count and a branch for each element; " ..
      "elements are written out, as many as keep the code within " .. p.growth .. " times the loops' (" .. p.budget ..
      " nodes, about an instruction each: " .. en.code_nodes(p.loop_nodes) .. "): " ..
      (p.strategy == "unroll" and "all " .. p.count .. " of the result, each a statement of its own, with no loop." or
       p.strategy == "block" and p.block .. " in each iteration of the loops around them." or
       "no block fits that pays for the loop a split of the innermost would add, so the loops stay as they are.")
  elseif p.why == "odd" then
    return s .. "the innermost loop runs " .. p.inner .. " times, not a multiple of " .. p.lanes .. en_lanes(p) ..
      ", and fits in a block of at most " .. p.block_max .. " elements, " .. en_written(p)
  elseif p.why == "short" then
    return s .. "the innermost loop runs " .. p.inner .. " times, a multiple of " .. p.lanes .. en_lanes(p) ..
      ", but fits in a block of at most " .. p.block_max .. " elements, and on " .. p.target ..
      " so short a loop runs slower than its block (measured at -O2), " .. en_written(p)
  elseif p.why == "multiple" then
    return s .. "the innermost loop runs " .. p.inner .. " times, a multiple of " .. p.lanes .. en_lanes(p) ..
      ", which compilers vectorize as it is."
  elseif p.why == "no_block" then
    return s .. "the result has " .. p.count .. " elements, more than the unroll limit (" .. p.limit .. "), and " ..
      (p.nloops == 1 and "a single loop leaves nothing around a block." or "the innermost loop, of " .. p.inner .. " iterations, is longer than a block of " .. p.block_max .. " elements.")
  elseif p.why == "size" then
    return s .. "with --optimize size, a loop is smaller than code written out from two elements on."
  elseif p.why == "quant_lines" then
    return s .. "the target, " .. p.target .. ", computes a quantized kernel's innermost loop a line at a time, in its vectors, so the loops stay, the innermost one the runtime's line helper."
  end
  return s .. "--stream on needs a loop to stream from."
end
function zh.why(p)
  if p.why == "empty" then return "结果没有元素，核函数什么也不做。" end
  if p.why == "asked" then return p.strategy .. "，由 --strategy " .. p.strategy .. " 指定。" end
  local s = "auto 选了 " .. p.strategy .. "："
  if p.why == "small" then
    return s .. "结果只有 " .. p.count .. " 个元素，不超过展开上限（" .. p.limit .. "），所以每个元素各写一条语句，没有循环。"
  elseif p.why == "scalar" and p.vector_bytes > 0 then
    return s .. "目标 " .. p.target .. " 从一块小存储器运行代码，所以只在代码不超过循环的 " .. p.growth .. " 倍时才展开写出元素（" .. p.budget ..
      " 个节点，每个约一条指令：" .. zh.code_nodes(p.loop_nodes) .. "）：" ..
      (p.no_vector_loads and "完全展开时没有哪个输入能连续读到 " .. p.lanes .. " 个元素，编译器只能一个通道一个通道地拼出每个向量；" or "") ..
      (p.strategy == "unroll" and "结果的 " .. p.count .. " 个元素全部放得下，每个元素一条语句，没有循环。" or
       p.strategy == "block" and "最内层循环 " .. p.inner .. " 次，不是 " .. p.lanes .. "（它的 " .. p.vector_bytes ..
         " 字节向量能装下的最窄类型的元素个数）的倍数，所以把 " .. p.block .. " 个元素写成直线代码，放在外层循环里，编译器会把它们向量化。" or
       p.inner % p.lanes == 0 and "最内层循环 " .. p.inner .. " 次，是 " .. p.lanes .. "（它的 " .. p.vector_bytes ..
         " 字节向量能装下的最窄类型的元素个数）的倍数，编译器能把它向量化" ..
         (p.nloops > 1 and p.inner > p.lanes and "；最后一个向量单独成一个循环，和外层循环共用指针的步进。" or "。") or
       "放得下的块装不满一个向量，所以循环保持原样" .. (p.inner > p.lanes and "，尾部单独拆出。" or "。"))
  elseif p.why == "scalar" then
    return s .. "目标 " .. p.target .. " 没有向量寄存器，循环带不来好处，每个元素却要多一次计数和一次跳转；" ..
      "所以把元素展开写出，以代码不超过循环的 " .. p.growth .. " 倍为限（" .. p.budget ..
      " 个节点，每个约一条指令：" .. zh.code_nodes(p.loop_nodes) .. "）：" ..
      (p.strategy == "unroll" and "结果的 " .. p.count .. " 个元素全部写出，每个元素一条语句，没有循环。" or
       p.strategy == "block" and "外层循环每次迭代写出 " .. p.block .. " 个元素。" or
       "能放下的块抵不上拆分最内层循环多出的那层循环，所以循环保持原样。")
  elseif p.why == "odd" then
    return s .. "最内层循环 " .. p.inner .. " 次，不是 " .. p.lanes .. zh_lanes(p) ..
      "的倍数，又能放进最多 " .. p.block_max .. " 个元素的块，" .. zh_written(p)
  elseif p.why == "short" then
    return s .. "最内层循环 " .. p.inner .. " 次，是 " .. p.lanes .. zh_lanes(p) ..
      "的倍数，但能放进最多 " .. p.block_max .. " 个元素的块，而在 " .. p.target ..
      " 上这么短的循环比写出来的块慢（在 -O2 下测得），" .. zh_written(p)
  elseif p.why == "multiple" then
    return s .. "最内层循环 " .. p.inner .. " 次，是 " .. p.lanes .. zh_lanes(p) .. "的倍数，编译器可以直接向量化。"
  elseif p.why == "no_block" then
    return s .. "结果有 " .. p.count .. " 个元素，超过展开上限（" .. p.limit .. "），而且" ..
      (p.nloops == 1 and "只有一层循环，块外没有循环。" or "最内层循环 " .. p.inner .. " 次，比 " .. p.block_max .. " 个元素的块长。")
  elseif p.why == "size" then
    return s .. "用了 --optimize size，从两个元素起，循环比展开的代码小。"
  elseif p.why == "quant_lines" then
    return s .. "目标 " .. p.target .. " 用向量单元每次计算量化核函数最内层循环的一行，所以保留循环，最内层循环交给运行时的行函数。"
  end
  return s .. "--stream on 需要一个循环来做流式写入。"
end
function en.tail(n, m, lanes)
  return "The innermost loop runs " .. m .. " times, a multiple of " .. lanes .. ", and a second loop does the last " .. n .. "."
end
function zh.tail(n, m, lanes)
  return "最内层循环先跑 " .. m .. " 次（" .. lanes .. " 的倍数），再由第二个循环做最后 " .. n .. " 次。"
end
function en.pressure(target)
  return "The target " .. target .. " says that its gcc (before gcc 14) schedules written-out statements without counting registers: it would start every load and operation before the first store, then save registers to hold them. So the kernel asks gcc to weigh register pressure (BC_PRESSURE in bc.h)."
end
function zh.pressure(target)
  return "目标 " .. target .. " 表明：它的 gcc（gcc 14 之前）调度写出来的语句时不计算寄存器，会把所有加载和运算都放到第一次存储之前，再保存寄存器来存放它们。所以核函数请 gcc 按寄存器压力调度（bc.h 中的 BC_PRESSURE）。"
end
function en.f16_lines(line, target, rest, quiet, not_streamed, found)
  local s = "The f16 data are converted a line of " .. line .. " elements at a time (bc_f16_to_f32_n and bc_f32_to_f16_n in bc_f16.h): the target " .. target .. (found and " may convert" or " converts") .. " between f16 and f32 in hardware, and where the compiler targets it (F16C on x86, BC_F16_HW), or the processor has it, asked once at run time (BC_F16_DISPATCH, x86-64), one instruction converts eight; where neither, SSE2's integer operations convert eight at a time (x86), else bc.h converts one at a time. The floats are computed in a loop of their own, which compilers vectorize."
  if rest > 0 then s = s .. " The last " .. rest .. " elements of the innermost loop are converted one at a time." end
  if quiet then s = s .. " Each f16 read goes into arithmetic, which makes a NaN quiet, or a comparison, which sees both kinds of NaN alike, and the value stored comes from arithmetic: no signalling NaN can reach the output as one, so the conversions need not keep one signalling (the _nq helpers), about half the work." end
  if not_streamed then s = s .. " The data pass the cache size, but the output is not streamed: a streamed line converts its f16s one at a time." end
  return s
end
function zh.f16_lines(line, target, rest, quiet, not_streamed, found)
  local s = "f16 数据每次转换一行，每行 " .. line .. " 个元素（bc_f16.h 中的 bc_f16_to_f32_n 和 bc_f32_to_f16_n）：目标 " .. target .. (found and " 可能" or " ") .. "在硬件上做 f16 与 f32 的转换，编译器面向它时（x86 的 F16C，BC_F16_HW），或处理器具备它时（运行时检查一次，BC_F16_DISPATCH，x86-64），一条指令转换八个；两者都不具备时，由 SSE2 的整数运算每次转换八个（x86），否则由 bc.h 逐个转换。浮点数在单独的循环里计算，编译器会把它向量化。"
  if rest > 0 then s = s .. "最内层循环的最后 " .. rest .. " 个元素逐个转换。" end
  if quiet then s = s .. "读出的每个 f16 都进入算术运算（它把 NaN 变成安静 NaN）或比较（它对两种 NaN 一视同仁），存储的值也来自算术运算：不会有信号 NaN（signalling NaN）原样到达输出，所以转换不必保留信号 NaN（_nq 版本），工作量约减半。" end
  if not_streamed then s = s .. "数据超过了缓存大小，但输出不用流式写入：流式写入的行会逐个转换 f16。" end
  return s
end
function en.parallel(how, extent, name, count, min, target, chunks)
  if how == "yes" then
    return "With --parallel, the outermost loop's " .. extent .. " iterations are shared among threads where the kernel is built with OpenMP (-fopenmp; BC_PARALLEL in bc.h): each thread runs a run of them through " .. name .. "_part, so no two threads write the same element; without OpenMP one thread runs them all, with the same results. The result has " .. count .. " elements, at least the target's " .. min .. ", below which starting threads costs more than it saves."
  end
  local why = {
    one_core = "the target " .. target .. " has one core",
    small = "the result has " .. count .. " elements, fewer than the target's " .. min .. ": starting threads would cost more than they save",
    one_loop = "no outermost loop runs around another loop or a block, and the one loop does not split into " .. chunks .. " equal chunks or more of whole vectors",
  }
  return "--parallel asks for threads, but " .. why[how] .. ", so the kernel runs on one thread."
end
function zh.parallel(how, extent, name, count, min, target, chunks)
  if how == "yes" then
    return "使用 --parallel 时，若核函数用 OpenMP 编译（-fopenmp；bc.h 中的 BC_PARALLEL），最外层循环的 " .. extent .. " 次迭代由多个线程分担：每个线程通过 " .. name .. "_part 运行其中连续的一段，所以没有两个线程写同一个元素；不用 OpenMP 时由一个线程全部运行，结果相同。结果有 " .. count .. " 个元素，不少于目标的 " .. min .. " 个；少于这个数时，启动线程的开销大于节省。"
  end
  local why = {
    one_core = "目标 " .. target .. " 只有一个核",
    small = "结果只有 " .. count .. " 个元素，少于目标的 " .. min .. " 个：启动线程的开销会大于节省",
    one_loop = "没有一个最外层循环套着另一个循环或一个块，唯一的循环也不能分成 " .. chunks .. " 段或更多由整个向量组成的等长段",
  }
  return "--parallel 要求多线程，但" .. why[how] .. "，所以核函数在一个线程上运行。"
end
function en.rebuilt(names, n, loop, extent)
  return "The block reads " .. names .. " again within itself, so compilers build " .. (n == 1 and "its" or "their") .. " vectors by permutes. " .. loop .. " does not move " .. names .. ": it was moved in around the block, from further out, so that those vectors are built once for its " .. extent .. " iterations, not again in each."
end
function zh.rebuilt(names, n, loop, extent)
  return "块内重复读取 " .. names .. "，编译器要靠置换来构造" .. (n == 1 and "它" or "它们") .. "的向量。" .. loop .. " 不移动 " .. names .. "：它从外层移到了块外紧邻处，这样这些向量只为它的 " .. extent .. " 次迭代构造一次，而不是每次都构造。"
end
function en.store_order(n, tune)
  return "The elements written out are stored in order, " .. n .. " (a vector) at a time: on " .. tune .. " (--tune), stores that go last first, as a compiler may vectorize them, ran 2x slower."
end
function zh.store_order(n, tune)
  return "写出的元素按地址顺序存储，每次 " .. n .. " 个（一个向量）：在 " .. tune .. "（--tune）上，先存后面的向量（编译器向量化时可能这样做）会慢 2 倍。"
end
function en.stream(asked, bytes, cache, unpaid)
  if asked then return "The output is written with non-temporal stores, past the cache, as asked with --stream on." end
  if unpaid then return "The data, " .. bytes .. " bytes, pass the cache size of " .. cache .. " bytes, but the output is written with plain stores: on " .. unpaid .. " (--tune), non-temporal stores past the cache are slower than plain ones." end
  return "The output is written with non-temporal stores, past the cache: the data, " .. bytes .. " bytes, pass the cache size of " .. cache .. " bytes."
end
function zh.stream(asked, bytes, cache, unpaid)
  if asked then return "输出用非临时存储（non-temporal store）绕过缓存写入，由 --stream on 指定。" end
  if unpaid then return "数据共 " .. bytes .. " 字节，超过了缓存大小 " .. cache .. " 字节，但输出用普通存储写入：在 " .. unpaid .. "（--tune）上，绕过缓存的非临时存储比普通存储慢。" end
  return "输出用非临时存储（non-temporal store）绕过缓存写入：数据共 " .. bytes .. " 字节，超过了缓存大小 " .. cache .. " 字节。"
end

-- The expression.
function en.expr_intro(f)
  return "The expression " .. f .. " is computed for each element, but a part that varies only in outer loops is computed once, in the loop where it varies:"
end
function zh.expr_intro(f)
  return "表达式 " .. f .. " 对每个元素计算一次，但只随外层循环变化的部分只在它变化的那层循环里算一次："
end
function en.hoisted(t, text, at) return "  t" .. t .. " = " .. text .. ": " .. at end
function zh.hoisted(t, text, at) return "  t" .. t .. " = " .. text .. "：" .. at end
function en.before_all() return "before all loops, once" end
function zh.before_all() return "在所有循环之前，只算一次" end
function en.before(inner, outer) return "before " .. inner .. ", once per iteration of " .. outer end
function zh.before(inner, outer) return "在 " .. inner .. " 之前，" .. outer .. " 每迭代一次算一次" end
function en.expr_none(f)
  return "The expression " .. f .. " is computed for each element: every part of it reads an operand that moves in the innermost loop."
end
function zh.expr_none(f)
  return "表达式 " .. f .. " 对每个元素都要计算：它的每一部分都读取在最内层循环里移动的张量。"
end
function en.expr_unrolled(f) return "Unrolled, the expression " .. f .. " is computed in each element's own statement." end
function zh.expr_unrolled(f) return "展开后，表达式 " .. f .. " 在每个元素自己的语句里计算。" end

-- A quantized kernel: its innermost loop as a line helper; its arithmetic, with its numbers.
function en.quant_line(helper, loop, n, lines)
  return "The innermost loop, " .. loop .. ", runs as the runtime's line helper " .. helper .. " (bc_quant.h), " .. n .. " elements a call, a vector at a time where the compiler targets " .. lines .. " (Helium: VQRDMULH for the rounding multiply and VRSHL for the rounding shift; AVX-512 and AVX2: VPMULDQ, two for the multiply high of a vector, or for an i8 sum whose moving inputs have the larger scale the output step in one piece, in 32-bit lanes), the same bits as the scalar steps; elsewhere one at a time. An input that stays put along it is given as its value, computed once."
end
function zh.quant_line(helper, loop, n, lines)
  return "最内层循环 " .. loop .. " 由运行时的行函数 " .. helper .. "（bc_quant.h）执行，每次调用 " .. n .. " 个元素；编译器面向 " .. lines .. " 时每次一个向量（Helium：VQRDMULH 做舍入乘法、VRSHL 做舍入移位；AVX-512 和 AVX2：VPMULDQ，一个向量的高位乘法用两条；i8 的加减法中移动的输入都是较大的 scale 时，输出一步算完，只用 32 位通道），结果与标量步骤逐位相同；否则逐个计算。沿它不动的输入直接传入算好一次的值。"
end
function en.quant_intro()
  return "The arithmetic is quantized, as TensorFlow Lite Micro computes it, with integers only. Each element q of an operand stands for the real number scale\003×\003(q\003−\003zero\003point):"
end
function zh.quant_intro()
  return "运算是量化的，与 TensorFlow Lite Micro 的算法相同，只用整数。张量的每个元素 q 代表实数值：缩放系数\003×\003(q\003−\003零点)。"
end
function en.quant_scale(scale, zero) return "scale " .. scale .. ", zero point " .. zero end
function zh.quant_scale(scale, zero) return "缩放系数 " .. scale .. "，零点 " .. zero end
function en.quant_multiplier(prepared_in)
  return "A real multiplier r is kept as an integer m and a shift s, r\003=\003m\003×\0032^(s\003−\00331), m from 2^30 to 2^31 (TFLite Micro's QuantizeMultiplier). TFLite Micro computes them on the device, in " .. prepared_in .. "; bcastgen computes them now, the same way, and writes them into the kernel as constants. MBQM(v,\003m,\003s) is v\003×\003m\003×\0032^(s\003−\00331), rounded to an integer."
end
function zh.quant_multiplier(prepared_in)
  return "实数乘数 r 用一个整数 m 和一个移位 s 表示：r\003=\003m\003×\0032^(s\003−\00331)，m 在 2^30 到 2^31 之间（TFLite Micro 的 QuantizeMultiplier）。TFLite Micro 在设备上以 " .. prepared_in .. " 计算它们；bcastgen 现在就以同样的方式算好，作为常数写进核函数。MBQM(v,\003m,\003s) 是 v\003×\003m\003×\0032^(s\003−\00331)，舍入为整数。"
end
function en.quant_common(x, y, made, twice, left)
  return "For their " .. made .. ", " .. x .. " and " .. y .. " are brought to one scale, twice the larger, " .. twice .. ": each offset q − zero point is shifted left by " .. left .. " bits first, so that the integers keep the fraction, then multiplied by its scale over that one:"
end
function zh.quant_common(x, y, made, twice, left)
  local what = made == "sum" and "和" or "差"
  return "为了求" .. what .. "，" .. x .. " 和 " .. y .. " 先换到同一个缩放系数上，即较大者的两倍 " .. twice .. "：每个偏移 q − 零点先左移 " .. left .. " 位，让整数保留小数部分，再乘以它的缩放系数与这个缩放系数之比："
end
function en.quant_out(made, real, m, s, zero, lo, hi, range)
  return "The " .. made .. " is brought to out's scale by " .. real .. "\003=\003" .. m .. "\003×\0032^(" .. s .. "\003−\00331); out's zero point " .. zero .. " is added, and the result clamped to " .. lo .. "\003..\003" .. hi .. ", " .. range .. ":"
end
function zh.quant_out(made, real, m, s, zero, lo, hi, range)
  local what = ({sum = "和", difference = "差", product = "积"})[made]
  return "这个" .. what .. "乘以 " .. real .. "\003=\003" .. m .. "\003×\0032^(" .. s .. "\003−\00331)，换到 out 的缩放系数上；加上 out 的零点 " .. zero .. "，再限制在 " .. lo .. "\003..\003" .. hi .. " 之内，" .. range .. "："
end
function en.quant_product(x, y)
  return "The product of the offsets, (" .. x .. " − zero point) × (" .. y .. " − zero point), stands for the real product over " .. x .. "'s scale × " .. y .. "'s."
end
function zh.quant_product(x, y)
  return "偏移的乘积 (" .. x .. " − 零点) × (" .. y .. " − 零点) 代表实数乘积除以 " .. x .. " 的缩放系数 × " .. y .. " 的缩放系数。"
end
function en.quant_range(activation)
  if activation == "none" then return "the dtype's range (--activation none)" end
  return "the range of " .. activation .. " (--activation " .. activation .. ")"
end
function zh.quant_range(activation)
  if activation == "none" then return "即数据类型的范围（--activation none）" end
  return "即 " .. activation .. " 的范围（--activation " .. activation .. "）"
end
function en.quant_rounding(double)
  if double then return "MBQM rounds twice, as TFLite Micro's default build does (--rounding double): gemmlowp's SaturatingRoundingDoublingHighMul rounds the high half of the 64-bit product, then RoundingDivideByPOT rounds the shift right, halves away from zero." end
  return "MBQM rounds once, as TFLite Micro built with TFLITE_SINGLE_ROUNDING does (--rounding single): the 64-bit product plus half of 2^(31 − s), shifted right by 31 − s."
end
function zh.quant_rounding(double)
  if double then return "MBQM 舍入两次，与 TFLite Micro 的默认构建相同（--rounding double）：gemmlowp 的 SaturatingRoundingDoublingHighMul 对 64 位乘积的高半部分舍入，RoundingDivideByPOT 再对右移舍入，一半时远离零。" end
  return "MBQM 只舍入一次，与用 TFLITE_SINGLE_ROUNDING 构建的 TFLite Micro 相同（--rounding single）：64 位乘积加上 2^(31 − s) 的一半，再右移 31 − s 位。"
end
function en.quant_table(name, table, n)
  return name .. " is stretched along a loop outside one it moves in: requantized element by element, each of its " .. n .. " elements would be requantized again in every iteration of that loop. So its elements are requantized once, before the loops, into a table, " .. table .. ", which the loops read in its place."
end
function zh.quant_table(name, table, n)
  return name .. " 沿着它在其中移动的循环之外的一层循环被扩展：逐个元素再量化的话，它的 " .. n .. " 个元素在那层循环的每次迭代里都要重新再量化一遍。所以在所有循环之前把它的元素一次性再量化进表 " .. table .. "，循环读这张表来代替它。"
end
function en.quant_once(name, inner, at) return name .. " does not move in " .. inner .. ", so its requantized value is computed " .. at .. "." end
function zh.quant_once(name, inner, at) return name .. " 在 " .. inner .. " 里不移动，所以它再量化后的值" .. at .. "。" end

-- The elements.
en.arange = "With --values arange each operand holds its element numbers, NumPy's np.arange(n).reshape(shape), and the kernel computes the result from them. NumPy prints them so:"
zh.arange = "使用 --values arange 时，每个张量的元素等于自己的序号，即 NumPy 的 np.arange(n).reshape(形状)，核函数用这些值算出结果。NumPy 把它们打印成这样："
function en.arange_result(formula, shape) return "out = " .. formula .. ", shape " .. shape .. ":" end
function zh.arange_result(formula, shape) return "out = " .. formula .. "，形状 " .. shape .. "：" end
en.elements = "Below are every element of the result and the elements it reads. A stretched dimension reads index 0, and a dimension an operand does not have is left out."
zh.elements = "下面列出结果的每个元素和它读取的元素。被扩展的维度读下标 0，张量没有的维度不写下标。"

-- The picture's words (explain.svg.lt).
en.picture = {
  dim = "dim",
  result = "result",
  into = function(x) return "result, into " .. x end,
  title = function(ops) return "Broadcasting " .. ops end,
  by_numpy = " by the NumPy rule",
  by_axis = function(k) return " with Paddle's axis = " .. k end,
  own = "an element of the operand as it is in memory",
  copy = "the same element read again (stride 0), with no copy in memory",
  pad = "(1): a dimension the operand does not have, counted as 1",
  numbers = "in each cell, the number of the element in its own operand",
  numbers_arange = "in each cell, its value: an operand's element holds its number (--values arange)",
  conflict = "the sizes in conflict",
  scalars = "Every operand is a scalar, shape (): the result is one element.",
  grids = "Each shape is drawn as a grid in its aligned position (shapes line up at their last dimension). A dimension of size 1, or padded (1), is stretched: the same elements are read again, not copied (faded cells).",
  slices = function(has, rows_dim, cols_dim, in_rows, in_cols)
    return has .. ", so each shape is drawn as a grid of 2-D slices. There is a row of slices for each index of dim " .. rows_dim ..
      (cols_dim and " and a column for each index of dim " .. cols_dim or "") ..
      ", named at the left" .. (cols_dim and " and on top" or "") .. ". In each slice the rows are dim " .. in_rows ..
      " and the columns dim " .. in_cols .. "."
  end,
  has_rank = function(r, aligned)
    return (aligned and "The aligned shapes have " or "The largest shape has ") .. r .. " dimensions"
  end,
  left_out = function(dims)
    return "Dim" .. (#dims > 1 and "s " or " ") .. en.list(dims) .. " of every shape " .. (#dims > 1 and "are" or "is") ..
      " drawn at index 0 alone: the picture keeps the dimensions in conflict and those stretched, and the table gives every size."
  end,
  cut = function(grid, down, across)
    local how = {}
    if grid then how[#how + 1] = "in a grid, a dimension of more than " .. grid .. " shows its first " .. grid // 2 .. " indices and its last" end
    if down then how[#how + 1] = "down the slices, one of more than " .. down .. " its first " .. (down - 2) .. " and its last" end
    if across then how[#how + 1] = "across the slices, one of more than " .. across .. " its first " .. (across - 2) .. " and its last" end
    return "Long dimensions are cut short: " .. table.concat(how, ", ") ..
      ", with ⋯ or ⋮ between; the table and the shapes give the true sizes."
  end,
  cut_table = function(n, r) return "The table shows " .. n .. " of the " .. r .. " dimensions; ⋯ stands for the others." end,
  no_numbers = "The cells hold no numbers: the shapes have too many elements for them.",
  zero = "The result has a dimension of size 0, so it has no elements (∅); each operand is drawn with its own sizes.",
  mismatch = function(d, a, sa, b, sb)
    return "In dim " .. d .. ", " .. a .. " has " .. sa .. " and " .. b .. " has " .. sb ..
      ". Neither is 1, so the shapes cannot be broadcast and there is no result. Each operand is drawn with its own sizes, in its aligned position."
  end,
  axis = function(k) return "Axis " .. k .. " is not valid for these shapes, so they are not aligned, and each operand is drawn with its own shape." end,
  operands = function(n) return "Paddle's axis is defined for exactly two operands, and " .. n .. " were given, so each operand is drawn with its own shape." end,
  too_big = "The result would have more than 2^63 − 1 elements, the most a shape may have: there is no kernel.",
  placed = function(y, x, axis, k, trimmed)
    return "Paddle's axis = " .. axis .. (axis ~= k and " (here " .. k .. ")" or "") .. " places " .. y ..
      " so that its dim 0 lines up with dim " .. k .. " of " .. x ..
      (trimmed and ", once its trailing 1s are dropped" or "") .. "; (1) marks the dimensions " .. y .. " does not cover."
  end,
  inplace_ok = function(x) return "An in-place operation writes the result into " .. x .. ", which has the result's shape." end,
  inplace_bad = function(r, x, s)
    return "An in-place operation would write the result " .. r .. " into " .. x .. ", whose shape is " .. s ..
      ". An in-place operation cannot change the shape of its operand."
  end,
  some_operands = function(m, n) return m .. " of the " .. n .. " operands are drawn; ⋮ stands for the others." end,
  more = function(n) return n .. " more" end,
}
zh.picture = {
  dim = "维度",
  result = "结果",
  into = function(x) return "结果，写回 " .. x end,
  title = function(ops) return "广播 " .. ops end,
  by_numpy = "：NumPy 规则",
  by_axis = function(k) return "：Paddle 的 axis = " .. k end,
  own = "张量在内存中实际存放的元素",
  copy = "同一个元素被重复读取（步长为 0），内存中并没有副本",
  pad = "(1)：张量没有的维度，大小算作 1",
  numbers = "格中的数字：元素在它所属张量中的序号",
  numbers_arange = "格中的数字：元素的值；--values arange 让张量的元素等于它的序号",
  conflict = "冲突的大小",
  scalars = "所有张量都是标量，形状为 ()：结果只有一个元素。",
  grids = "每个形状按对齐后的位置画成网格（形状从最后一个维度对齐）。大小为 1 的维度和补上的维度 (1) 都被扩展，其中的元素被重复读取，并不复制（淡色的格子）。",
  slices = function(has, rows_dim, cols_dim, in_rows, in_cols)
    return has .. "，所以每个形状画成由二维切片组成的网格。第 " .. rows_dim .. " 维的每个下标占一行" ..
      (cols_dim and "，第 " .. cols_dim .. " 维的每个下标占一列" or "") .. "，下标写在" .. (cols_dim and "左边和上方" or "左边") ..
      "。每个切片的行对应第 " .. in_rows .. " 维，列对应第 " .. in_cols .. " 维。"
  end,
  has_rank = function(r, aligned)
    return (aligned and "对齐后的形状有 " or "最大的形状有 ") .. r .. " 个维度"
  end,
  left_out = function(dims)
    return "每个形状的维度 " .. zh.list(dims) .. " 只画下标 0：图中保留冲突的维度和被扩展的维度，表中给出所有大小。"
  end,
  cut = function(grid, down, across)
    local how = {}
    if grid then how[#how + 1] = "网格中大小超过 " .. grid .. " 的维度画前 " .. grid // 2 .. " 个下标和最后一个" end
    if down then how[#how + 1] = "切片的行方向上大小超过 " .. down .. " 的维度画前 " .. (down - 2) .. " 个和最后一个" end
    if across then how[#how + 1] = "切片的列方向上大小超过 " .. across .. " 的维度画前 " .. (across - 2) .. " 个和最后一个" end
    return "过长的维度只画一部分：" .. table.concat(how, "，") .. "，中间用 ⋯ 或 ⋮ 表示；真实大小见表格和形状。"
  end,
  cut_table = function(n, r) return "表中列出 " .. r .. " 个维度中的 " .. n .. " 个，⋯ 代表其余的维度。" end,
  no_numbers = "元素太多，格中不写数字。",
  zero = "结果有一个大小为 0 的维度，所以没有元素（∅）；每个张量按自己的大小画出。",
  mismatch = function(d, a, sa, b, sb)
    return "第 " .. d .. " 维上，" .. a .. " 是 " .. sa .. "，" .. b .. " 是 " .. sb ..
      "，都不是 1，所以这些形状不能广播，也就没有结果。每个张量按自己的大小画出，并放在对齐后的位置。"
  end,
  axis = function(k) return "axis " .. k .. " 对这些形状无效，所以不做对齐，每个张量按自己的形状画出。" end,
  operands = function(n) return "Paddle 的 axis 只适用于恰好两个张量，这里有 " .. n .. " 个，所以每个张量按自己的形状画出。" end,
  too_big = "结果的元素会超过 2^63 − 1 个，超出了形状的上限：不生成核函数。",
  placed = function(y, x, axis, k, trimmed)
    return "Paddle 的 axis = " .. axis .. (axis ~= k and "（即 " .. k .. "）" or "") .. "：" .. (trimmed and "先去掉 " .. y .. " 尾部大小为 1 的维度，再" or "") ..
      "让 " .. y .. " 的第 0 维与 " .. x .. " 的第 " .. k .. " 维对齐；(1) 标出 " .. y .. " 没有覆盖的维度。"
  end,
  inplace_ok = function(x) return "原地（in-place，也称原位）运算把结果写回 " .. x .. "，" .. x .. " 的形状与结果相同。" end,
  inplace_bad = function(r, x, s)
    return "原地（in-place，也称原位）运算要把结果 " .. r .. " 写回 " .. x .. "，但 " .. x .. " 的形状是 " .. s .. "。原地运算不能改变 " .. x .. " 的形状。"
  end,
  some_operands = function(m, n) return "共 " .. n .. " 个张量，画出其中 " .. m .. " 个；⋮ 代表其余的。" end,
  more = function(n) return "还有 " .. n .. " 个" end,
}

-- The page's words (explain.html.lt).
en.page = {
  title = "Broadcasting",
  by_numpy = "by the NumPy rule",
  by_axis = function(k) return "with Paddle's axis = " .. k end,
  explanation = "Explanation",
  picture = "Picture",
  kernel = "Kernel",
  kernel_file = function(n) return "The C file that defines " .. n .. "():" end,
  no_kernel = function(why) return "No kernel: " .. why .. "." end,
  no_kernel_said = "No kernel: the explanation says why.",
  command = "The command that generates it:",
}
zh.page = {
  title = "广播",
  by_numpy = "NumPy 规则",
  by_axis = function(k) return "Paddle 的 axis = " .. k end,
  explanation = "说明",
  picture = "图示",
  kernel = "核函数（kernel）",
  kernel_file = function(n) return "定义 " .. n .. "() 的 C 文件：" end,
  no_kernel = function(why) return "没有生成核函数：" .. why .. "。" end,
  no_kernel_said = "没有生成核函数：原因见说明。",
  command = "生成它的命令：",
}
