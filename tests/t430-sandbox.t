#!/bin/sh
# t430-sandbox: neither a spec nor a template (--templates DIR) reaches
# io, os, package, require, debug, load, dofile, loadfile, string.dump,
# coroutines, collectgarbage or the strings' metatable; a spec cannot
# take more time or memory than its documented bounds, whatever it
# catches with pcall, and a template cannot take more memory than its
# own. Each attempt is one clear error, exit 1, nothing written.
. "$(dirname "$0")/lib.sh"

n=0 status=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; status=1; fi
}

# Specs, each: exit status | spec (printf %b) | the first line of stderr.
# A case that should end fast must also end within 60 s of wall time.
# The instruction limit may meet the time limit first on a slow machine
# or under a sanitizer: either message says the spec runs too long.
while IFS='|' read -r want_rc spec want; do
	fresh
	printf '%b\n' "$spec" >bad.lua
	start=$(date +%s)
	"$GEN" bad.lua -o out.c 2>err
	rc=$?
	took=$(($(date +%s) - start))
	got=$(head -n 1 err)
	case $want in *"(more than 100 million instructions)")
		[ "$got" = "${want%%(*}(more than 10 s of processor time)" ] && got=$want ;;
	esac
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ] && [ ! -e out.c ] && [ $took -lt 60 ]; then
		ok 0 "$want"
	else
		ok 1 "$want"
		echo "#   spec: $spec"
		echo "#   got (exit $rc, $took s): $got"
	fi
	rm -f out.c out.h
done <<'EOF_CASES'
1|local x = io.open|bad.lua:1: error: 'io' is not available in a spec (it reads no file and runs no command)
1|local x = os.execute|bad.lua:1: error: 'os' is not available in a spec (it reads no file and runs no command)
1|local x = package.loadlib|bad.lua:1: error: 'package' is not available in a spec (it reads no file and runs no command)
1|local x = debug.getinfo|bad.lua:1: error: 'debug' is not available in a spec (it reads no file and runs no command)
1|local x = coroutine.wrap|bad.lua:1: error: 'coroutine' is not available in a spec (it reads no file and runs no command)
1|require "io"|bad.lua:1: error: 'require' is not available in a spec (it reads no file and runs no command)
1|dofile "/etc/passwd"|bad.lua:1: error: 'dofile' is not available in a spec (it reads no file and runs no command)
1|loadfile "/etc/passwd"|bad.lua:1: error: 'loadfile' is not available in a spec (it reads no file and runs no command)
1|load "return 1"|bad.lua:1: error: 'load' is not available in a spec (it reads no file and runs no command)
1|load("\\27Lua")|bad.lua:1: error: 'load' is not available in a spec (it reads no file and runs no command)
1|collectgarbage "count"|bad.lua:1: error: 'collectgarbage' is not available in a spec (it reads no file and runs no command)
1|print "x"|bad.lua:1: error: 'print' is not available in a spec (it reads no file and runs no command)
1|warn "@on"|bad.lua:1: error: 'warn' is not available in a spec (it reads no file and runs no command)
1|string.dump(kernel)|bad.lua:1: error: attempt to call a nil value (field 'dump')
1|(""):dump()|bad.lua:1: error: attempt to call a nil value (method 'dump')
1|local x = getmetatable("").__index|bad.lua:1: error: attempt to index a boolean value
1|getmetatable("").__index = _G|bad.lua:1: error: attempt to index a boolean value
1|rawset(getmetatable(""), "__index", {})|bad.lua:1: error: bad argument #1 to 'rawset' (table expected, got boolean)
1|setmetatable("", {})|bad.lua:1: error: bad argument #1 to 'setmetatable' (table expected, got string)
1|string.dump = function() return io end\nlocal f = (""):dump()\nf.open("x")|bad.lua:1: error: 'io' is not available in a spec (it reads no file and runs no command)
1|rawset(string, "x", 1)\nlocal y = ("").x + os.time()|bad.lua:2: error: 'os' is not available in a spec (it reads no file and runs no command)
1|string.find(("a"):rep(40), ("a?"):rep(40) .. ("a"):rep(40))|bad.lua:1: error: attempt to call a nil value (field 'find')
1|local s = ("a"):rep(40)\ns:match(("a?"):rep(40) .. ("a"):rep(40))|bad.lua:2: error: attempt to call a nil value (method 'match')
1|local x = ("a"):gmatch(".")|bad.lua:1: error: attempt to call a nil value (method 'gmatch')
1|local x = string.gsub("a", "a", "b")|bad.lua:1: error: attempt to call a nil value (field 'gsub')
1|table.move({}, 1, math.maxinteger - 1, 2)|bad.lua:1: error: attempt to call a nil value (field 'move')
1|table.insert(setmetatable({}, {__len = function() return math.maxinteger end}), 1, 1)|bad.lua:1: error: table.insert: a spec may not use it on a value with a metatable
1|table.remove(setmetatable({}, {__len = function() return math.maxinteger end}), 1)|bad.lua:1: error: table.remove: a spec may not use it on a value with a metatable
1|setmetatable({}, {__gc = function() while true do end end})|bad.lua:1: error: a spec may not set a __gc metamethod
1|while true do end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|while true do pcall(function() while true do end end) end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|local p = pcall\nwhile true do p(p, p, function() while true do end end) end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|while true do xpcall(function() while true do end end, function() while true do end end) end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|while true do xpcall(error, function() while true do end end) end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|local function f()\n  local x <close> = setmetatable({}, {__close = function() while true do end end})\n  while true do end\nend\nwhile true do pcall(f) end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|local t = setmetatable({}, {__index = function(t, k) while true do pcall(error) end end})\nwhile true do pcall(function() return t[1] end) end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|local a, b = ("a"):rep(2^24), ("a"):rep(2^24)\nwhile true do pcall(function() return a == b end) end|bad.lua: error: the spec runs too long (more than 10 s of processor time)
1|local s = ("x"):rep(2^40)|bad.lua:1: error: resulting string too large
1|local s = ("x"):rep(2^28)|bad.lua: error: not enough memory (a spec may use 64 MB)
1|local s = ("x"):rep(2^10, ("y"):rep(2^20))|bad.lua: error: not enough memory (a spec may use 64 MB)
1|while true do pcall(string.rep, "x", 2^28) end|bad.lua: error: not enough memory (a spec may use 64 MB)
1|local s = "x" while true do s = s .. s end|bad.lua: error: not enough memory (a spec may use 64 MB)
1|local t = {} for i = 1, 1e9 do t[i] = i end|bad.lua: error: not enough memory (a spec may use 64 MB)
1|local t = {} while true do pcall(function() t[#t + 1] = {} end) end|bad.lua: error: not enough memory (a spec may use 64 MB)
1|local function f() return 1 + f() end f()|bad.lua: error: not enough memory (a spec may use 64 MB)
1|local t = setmetatable({}, {__index = function(t, k) return t[k] end})\nlocal x = t[1]|bad.lua:1: error: C stack overflow
1|for i = 1, 10001 do kernel("k" .. i) { op = "add", "x=2", "y=2" } end|bad.lua:1: error: more than 10000 kernels in one spec
1|kernel "add\\0junk" { op = "add", "x=3" }|bad.lua:1: error: kernel 'add': the name holds a NUL byte
1|kernel "a" { op = "add\\0junk", "x=3" }|bad.lua:1: error: kernel 'a': field 'op': the value holds a NUL byte
1|kernel "a" { op = "add", "x=3", "y\\0=3" }|bad.lua:1: error: kernel 'a': operand 2 holds a NUL byte
1|kernel "a" { ["op\\0x"] = "add", "x=3" }|bad.lua:1: error: kernel 'a': a field name holds a NUL byte
1|local function k(n, y)\n  kernel(n) { op = "add", "x=3", y }\nend\nlocal function outer(n, y) k(n, y) end\nk("good", "y=3")\nouter("bad", "y=4")|bad.lua:6: error: kernel 'bad': operands could not be broadcast together with shapes x(3,) y(4,)
1|local function k(n, f)\n  kernel(n) { op = "add", frob = f, "x=3" }\nend\n\nk("a", 1)|bad.lua:5: error: kernel 'a': unknown field 'frob' (there are inplace axis strategy unroll_limit loop_order stream parallel cache_size target tune optimize out_shape op expr dtype out_dtype quant activation rounding lang, and the operands)
1|local function k(n)\n  kernel(n) { op = "add", "x=3" }\nend\nk("a")\nk("a")|bad.lua:5: error: kernel 'a' is declared twice (first on line 4)
EOF_CASES

# What a caught or hidden attempt leaves: harmless, and the spec still works.
fresh
cat >fine.lua <<'EOF'
local ok, err = pcall(function() return rawget(_G, "io").open("pwned", "w") end)
local mt = {}
local t = setmetatable({}, mt)
mt.__gc = function() while true do end end	-- too late: never a finalizer
string.x = "y"
local function k(name)
  kernel(name) { op = "add", "x=3", "y=3" }
end
local function twice(name) k(name) end
k(("a"):x())
twice("b")
EOF
sed -i 's/("a"):x()/"a" .. ("").x/' fine.lua
"$GEN" fine.lua -o fine.c 2>err
ok $? "caught or hidden attempts are harmless: the spec still generates"
[ ! -e pwned ] && [ ! -s err ]
ok $? "nothing was written but the outputs, nothing printed"
grep -q "(kernel 'ay' of fine.lua, line 10)" fine.c && grep -q "(kernel 'b' of fine.lua, line 11)" fine.c
ok $? "a kernel declared through helpers has its call site's line in its banner"

# Templates, through --templates DIR: the template engine's sandbox.
tcheck() {
	fresh
	mkdir -p t
	printf '%s\n' "$2" >t/explain.txt.lt
	"$GEN" --templates t --explain x=2,3 y=3 >out 2>&1
	rc=$?
	got=$(head -n 1 out)
	if [ "$rc" = "$3" ] && [ "$got" = "$4" ]; then
		ok 0 "template: $1"
	else
		ok 1 "template: $1"
		echo "#   got (exit $rc): $got"
	fi
}
for name in io os package debug coroutine; do
	tcheck "no $name" "@ local x = $name.x" 1 \
		"bcastgen: error: t/explain.txt.lt:1: attempt to index a nil value (global '$name')"
done
for name in require load loadfile dofile collectgarbage getmetatable setmetatable rawset print; do
	tcheck "no $name" "@ $name('x')" 1 \
		"bcastgen: error: t/explain.txt.lt:1: attempt to call a nil value (global '$name')"
done
tcheck "no string.dump" '@ string.dump(tuple)' 1 \
	"bcastgen: error: t/explain.txt.lt:1: attempt to call a nil value (field 'dump')"
tcheck "no dump through the strings' metatable" '@ (""):dump()' 1 \
	"bcastgen: error: t/explain.txt.lt:1: attempt to call a nil value (method 'dump')"
tcheck "the strings' metatable leads to string only" \
	'$(type(("").load)) $(type(("").io)) $(type(("").require)) $(type(_G))' 0 "nil nil nil nil"
tcheck "a huge string is refused" '@ local s = ("x"):rep(2^30 + 1)' 1 \
	"bcastgen: error: not enough memory (the templates may use 1024 MB)"
tcheck "so is a string doubled until it is huge" '@ local s = "x" while true do s = s .. s end' 1 \
	"bcastgen: error: not enough memory (the templates may use 1024 MB)"
tcheck "an endless loop inside pcall stops, uncaught" \
	'@ while true do pcall(function() while true do end end) end' 1 \
	"bcastgen: error: a template runs too long (more than 100 million instructions or 10 s of processor time)"

echo "1..$n"
exit $status
