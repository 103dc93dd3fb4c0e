#!/bin/sh
# t400-spec: spec files as a build step: every kernel of a spec in one
# .c/.h pair, in spec order; errors with the spec's line; the sandbox;
# the depfile; the same bytes whatever the directory or the path the spec
# is named by; nothing written on an error; unchanged files left alone.
. "$(dirname "$0")/lib.sh"


cat >kernels.lua <<'EOF'
-- the kernels of a small network
kernel "bias_add"  { op = "add", "x=8,64,56,56", "b=64,1,1" }
kernel "relu_bias" { expr = "max(x*w + b, 0)", dtype = "f32", "x=8,64,56,56", "w=64,1,1", "b=64,1,1" }
kernel "scale_y"   { op = "mul", axis = 1, "x=2,3,4,5", "y=3" }
local shape = "4,5"
kernel "mask"      { op = "gt", out_dtype = "u8", "a=" .. shape, "b=5", strategy = "loops" }
EOF

mkdir -p out
fresh kernels.lua out
"$GEN" kernels.lua -o out/net.c -M out/net.d 2>err
check $? "a spec of four kernels generates"
[ "$(grep -o '^void [a-z_]*' out/net.c | tr '\n' ' ')" = "void bias_add void relu_bias void scale_y void mask " ]
check $? "the kernels appear in spec order"
[ "$(grep -c '^void .*);$' out/net.h)" = 4 ] && grep -q '^#define RELU_BIAS_SHAPE {8, 64, 56, 56}$' out/net.h
check $? "the header has the four prototypes and their shape macros"
gcc -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror -I"$TESTS/../runtime" -c out/net.c -o net.o
check $? "the spec's kernels compile with -Werror"
grep -q "(kernel 'relu_bias' of kernels.lua, line 3)" out/net.c
check $? "each banner names its kernel's spec and line"

printf 'out/net.c out/net.h: kernels.lua\n\nkernels.lua:\n' >want.d
cmp -s want.d out/net.d
check $? "the depfile lists the spec, with a phony rule for it"
"$GEN" kernels.lua -o out/net.c -M out/net.d -MT out/net.stamp
printf 'out/net.stamp: kernels.lua\n\nkernels.lua:\n' >want.d
cmp -s want.d out/net.d
check $? "-MT sets the depfile's target"
mkdir tmpl
cp "$TESTS"/../templates/* tmpl/
"$GEN" kernels.lua -o out/net.c -M out/net.d --templates tmpl
head -n 1 out/net.d | tr ' ' '\n' | sort >got
printf '%s\n' kernels.lua out/net.c out/net.h: tmpl/file.c.lt tmpl/file.h.lt \
	tmpl/kernel.c.lt tmpl/kernel.h.lt tmpl/lib.lua tmpl/c.lua | sort >want
cmp -s want got && grep -q '^tmpl/lib.lua:$' out/net.d
check $? "the depfile lists the templates read from --templates"

# The same bytes from elsewhere, the spec named by another path.
mkdir -p elsewhere/deep
cp kernels.lua elsewhere/
(out=$PWD/elsewhere/net.c && cd elsewhere/deep && "$GEN" ../kernels.lua -o "$out")
cmp -s out/net.c elsewhere/net.c && cmp -s out/net.h elsewhere/net.h
check $? "the same bytes from another directory and spec path"
grep -q "$SCRATCH" out/net.c out/net.h elsewhere/net.c elsewhere/net.h
[ $? = 1 ]; check $? "no absolute path in the output"

# Unchanged outputs are not rewritten.
touch -d '2001-01-01 00:00' out/net.c out/net.h
"$GEN" kernels.lua -o out/net.c
[ -z "$(find out -newermt '2001-01-02' -name 'net.[ch]')" ]
check $? "unchanged outputs keep their mtime"

# An error in the last kernel writes nothing and leaves old outputs alone.
cp out/net.c net.c.before
cp out/net.h net.h.before
cp kernels.lua broken.lua
echo 'kernel "last" { op = "add", "x=3", "y=4" }' >>broken.lua
"$GEN" broken.lua -o out/net.c -M out/broken.d 2>err
rc=$?
[ $rc = 1 ] && cmp -s out/net.c net.c.before && cmp -s out/net.h net.h.before \
	&& [ ! -e out/broken.d ] && [ -z "$(ls -A out | grep -v '^net\.[chd]$')" ]
check $? "an invalid last kernel: exit 1, nothing written, old outputs untouched"
grep -q '^broken.lua:7: error: kernel .last.: operands could not be broadcast' err
check $? "its error names the spec and the line"

# Errors, each: exit status | spec | the first line of stderr.
while IFS='|' read -r want_rc spec want; do
	fresh out
	printf '%b\n' "$spec" >bad.lua
	"$GEN" bad.lua -o out/bad.c 2>err
	rc=$?
	got=$(head -n 1 err)
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ] && [ ! -e out/bad.c ]; then
		check 0 "$want"
	else
		check 1 "$want"
		echo "#   got (exit $rc): $got"
	fi
done <<'EOF_CASES'
1|kernel "a" { op = "add", "x=3" }\nkernel "a" { op = "mul", "x=3" }|bad.lua:2: error: kernel 'a' is declared twice (first on line 1)
1|kernel "a" { opp = "add", "x=3" }|bad.lua:1: error: kernel 'a': unknown field 'opp' (there are inplace axis strategy unroll_limit loop_order stream parallel cache_size target tune optimize out_shape op expr dtype out_dtype quant activation rounding lang, and the operands)
1|kernel "a" { op = {}, "x=3" }|bad.lua:1: error: kernel 'a': field 'op': expected a string or an integer, not a table
1|kernel "a" { op = "add", dtype = "i8", quant = 5, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'quant': expected a table without a metatable, such as { x = {0.0472, -3}, y = {0.0123, 5}, out = {0.081, -1} }
1|kernel "a" { op = "add", dtype = "i8", quant = { x = {0.05}, y = {0.02, 5}, out = {0.1, -1} }, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'quant': 'x' needs {SCALE, ZERO_POINT}, such as {0.0472, -3}
1|kernel "a" { op = "add", dtype = "i8", quant = { x = {0.05, -3.5}, y = {0.02, 5}, out = {0.1, -1} }, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'quant': 'x' needs {SCALE, ZERO_POINT}, such as {0.0472, -3}
1|kernel "a" { op = "add", dtype = "i8", quant = { }, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'quant': the table is empty: give a pair for each operand and for out, such as { x = {0.0472, -3}, y = {0.0123, 5}, out = {0.081, -1} }
1|kernel "a" { op = "add", dtype = "i8", quant = { {0.05, -3} }, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'quant': its keys are the operands' names and out
1|kernel "a" { op = "add", dtype = "i8", quant = { x = {0.05, -3}, y = {0.02, 5} }, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': a quantized kernel needs the scale and zero point of 'out': give field 'quant' its pair, out = {SCALE, ZERO_POINT}
1|kernel "a" { op = "add", dtype = "i8", quant = { x = {-0.05, -3}, y = {0.02, 5}, out = {0.1, -1} }, "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'quant': bad scale '-0.05' of 'x': expected a positive decimal number, such as 0.0472 or 4.72e-2
1|kernel "a" { op = "add", dtype = "i8", activation = "relu", "x=3", "y=3" }|bad.lua:1: error: kernel 'a': field 'activation' applies to quantized kernels: give field 'quant' for each operand and for out
1|kernel "a" { inplace = 1, "x=3" }|bad.lua:1: error: kernel 'a': field 'inplace': expected true or false, not a number
1|kernel "a" { "x=3", 5 }|bad.lua:1: error: kernel 'a': operand 2 is not a string like "x=2,3"
1|kernel "a" { op = "add", "x=3", [7] = "y=3" }|bad.lua:1: error: kernel 'a': a key that is not a field name (operands are the strings in order: "x=2,3", "y=3")
1|\n\nkernel "a" { expr = "x + z", "x=3" }|bad.lua:3: error: kernel 'a': expr:1:5: unknown operand 'z'
1|kernel "a" { op = "frob", "x=3" }|bad.lua:1: error: kernel 'a': field 'op': unknown op 'frob' (see bcastgen --help)
1|kernel "a" { op = "add" }|bad.lua:1: error: kernel 'a': no operands: list them in order, as "x=2,3", "y=3"
1|kernel "a" { op = "add", expr = "x", "x=3" }|bad.lua:1: error: kernel 'a': give field 'op' or field 'expr', not both
1|kernel "2a" { "x=3" }|bad.lua:1: error: kernel '2a': the name is not a C identifier
1|kernel(3) {}|bad.lua:1: error: kernel needs a name: kernel "bias_add" { ... }
1|kernel "a" { op = "add", "x=3" |bad.lua:2: error: '}' expected (to close '{' at line 1) near <eof>
1|-- nothing|bad.lua: error: the spec declares no kernel: kernel "name" { op = "add", "x=2,3", "y=3" }
1|error({})|bad.lua: error: (error object is a table value)
1|os.execute("touch pwned")|bad.lua:1: error: 'os' is not available in a spec (it reads no file and runs no command)
1|io.open("/etc/passwd")|bad.lua:1: error: 'io' is not available in a spec (it reads no file and runs no command)
1|require "os"|bad.lua:1: error: 'require' is not available in a spec (it reads no file and runs no command)
1|dofile "/etc/passwd"|bad.lua:1: error: 'dofile' is not available in a spec (it reads no file and runs no command)
1|kernel "k" { op = mul, "x=4", "y=4" }|bad.lua:1: error: 'mul' is not defined (a string needs quotes: "mul")
1|kernel "k" {\n  op = "add",\n  out_dtype = i8,\n  "x=4", "y=4" }|bad.lua:3: error: 'i8' is not defined (a string needs quotes: "i8")
1|kernel "k" {\n  "x=4", "y=4",\n  strategy = loops }|bad.lua:3: error: 'loops' is not defined (a string needs quotes: "loops")
1|kernel "k" { "x=4", "y=4",\n  optimize = size }|bad.lua:2: error: 'size' is not defined (a string needs quotes: "size")
1|kernel "k" { "x=4", "y=4",\n  inplace = ture }|bad.lua:2: error: 'ture' is not defined (did you mean true?)
1|local s = "x=4"\nkernal "k" { s }|bad.lua:2: error: 'kernal' is not defined (did you mean kernel?)
1|shape = "4"\nkernel "k" { "x=" .. shape }|bad.lua:1: error: 'shape' is not a global of the spec: declare it with 'local shape = ...'
1|setmetatable(_G, nil)|bad.lua:1: error: cannot change a protected metatable
1|kernel "k" {\n  op = "add",\n  axis = 1.5,\n  "x=2,3", "y=3" }|bad.lua:3: error: kernel 'k': field 'axis': 1.5 is not an integer
1|kernel "k" {\n  "x=2,3",\n  -- y's shape\n  "y=3,a",\n}|bad.lua:4: error: kernel 'k': bad size 'a' in shape '3,a' of operand 'y': sizes are non-negative integers
1|kernel "k" { --[==[ a\nlong ]] comment ]==] "x=2,3", [[y=3,a]], op = "add" }|bad.lua:2: error: kernel 'k': bad size 'a' in shape '3,a' of operand 'y': sizes are non-negative integers
1|kernel "k" { "x=2,3", "y=3",\n  op = "add",\n  strategy = "fast" }|bad.lua:3: error: kernel 'k': field 'strategy': bad strategy 'fast': expected auto, unroll, loops or block
1|kernel "k" { "x=2,3", "y=3",\n  op = "add",\n  optimise = "size" }|bad.lua:3: error: kernel 'k': unknown field 'optimise' (there are inplace axis strategy unroll_limit loop_order stream parallel cache_size target tune optimize out_shape op expr dtype out_dtype quant activation rounding lang, and the operands)
1|kernel "k" { "x=2,3", "y=3",\n  expr = "x +* y" }|bad.lua:2: error: kernel 'k': expr:1:4: expected an operand, a number or '(', not '*'
1|kernel "k" { "x=2,4", "y=4",\n  loop_order = "1,0,2" }|bad.lua:2: error: kernel 'k': the loop order must list each of the plan's 2 loops once, outermost first; their trip counts are 2, 4
1|kernel "k" { "x=2,4", "y=4",\n  unroll_limit = 4,\n  strategy = "unroll" }|bad.lua:3: error: kernel 'k': cannot unroll 8 elements: the limit is 4 (set it with field 'unroll_limit', at most 512, or use strategy = "loops")
1|kernel "k" { "x=2,4", "y=4", strategy = "unroll",\n  stream = "on" }|bad.lua:2: error: kernel 'k': cannot stream the output: non-temporal stores need an innermost loop that writes whole 64-byte lines (16 elements) one after the other, and strategy = "unroll" writes a statement per element, with no loop (use strategy = "loops")
1|kernel "k" { "x=4", "y=2,4",\n  inplace = true }|bad.lua:2: error: kernel 'k': cannot write the result in place into 'x': the result shape (2,4) is not the shape of 'x' (4,)
1|kernel "k" { "x=2,4", "y=4",\n  axis = 5 }|bad.lua:2: error: kernel 'k': axis 5 is out of range for x(2,4) and y(4,): Paddle's axes go from -2 to 1 (the larger rank is 2), and for these shapes it must be -1, 0 to 1, or -2
1|kernel "k" { "x=4", "y=2,4",\n  out_shape = "3,3" }|bad.lua:2: error: kernel 'k': the result shape (2,4) is not the out_shape (3,3)
1|kernel "k" { "x=2,4",\n  "y=3" }|bad.lua:1: error: kernel 'k': operands could not be broadcast together with shapes x(2,4) y(3,)
1|defaults {\n  optimize = "siz" }\nkernel "k" { "x=4" }|bad.lua:2: error: defaults: field 'optimize': bad optimize 'siz': expected speed or size
1|defaults { "x=4", optimize = "size" }|bad.lua:1: error: defaults: the operands belong to each kernel: defaults takes fields only
1|kernel "a" { op = "add", [2] = "y=3" }|bad.lua:1: error: kernel 'a': a key that is not a field name (operands are the strings in order: "x=2,3", "y=3")
1|kernel "good" { "x=3", "y=3" }\npcall(kernel "k", { op = "mul", stratgy = "loops", "x=3", "y=3" })|bad.lua:2: error: kernel 'k': unknown field 'stratgy' (there are inplace axis strategy unroll_limit loop_order stream parallel cache_size target tune optimize out_shape op expr dtype out_dtype quant activation rounding lang, and the operands)
1|pcall(kernel "k", { op = "mull", "x=3", "y=3" })|bad.lua:1: error: kernel 'k': field 'op': unknown op 'mull' (see bcastgen --help)
1|pcall(function() kernel "k" { op = mul, "x=3", "y=3" } end)\nkernel "g" { "x=3" }|bad.lua:1: error: 'mul' is not defined (a string needs quotes: "mul")
1|local ok = pcall(function() x = 1 end)\nkernel "g" { "x=3" }|bad.lua:1: error: 'x' is not a global of the spec: declare it with 'local x = ...'
1|kernel "outer" (setmetatable({ "x=3", "y=3" }, { __index = { op = "mul" } }))|bad.lua:1: error: kernel 'outer': its table has a metatable: write its fields in the table itself
1|kernel "a" { "x=3", "y=3" }\nkernel("b", { op = "mul", "x=3", "y=3" })|bad.lua:2: error: kernel 'b': kernel takes its name, then its table: kernel "b" { ... }, not kernel("b", { ... })
1|kernel "a" { "x=3", "y=3" }\nlocal c = kernel "c"|bad.lua:2: error: kernel 'c' is never given its table: kernel "c" { op = "add", "x=2,3", "y=3" }
1|kernel "k"\n{\n  "x=3", "y=3",\n  axis = 1.5,\n}|bad.lua:4: error: kernel 'k': field 'axis': 1.5 is not an integer
1|kernel "a" { "x=3", "y=3", axis = 0 } kernel "b" { "x=3", "y=3",\n  axis = 1.5 }|bad.lua:2: error: kernel 'b': field 'axis': 1.5 is not an integer
1|local function mk(n, t) kernel(n) { op = t.op, axis = 1.5, "x=2,3", "y=3" } end\nmk("a", {\n  op = "mul",\n  axis = 0,\n})|bad.lua:2: error: kernel 'a': field 'axis': 1.5 is not an integer
1|kernel "k" { "x=3", "y=3",\n  axis = 0,\n  axis = 1.5,\n}|bad.lua:3: error: kernel 'k': field 'axis': 1.5 is not an integer
1|defaults { optimze = "size" }|bad.lua:1: error: defaults: unknown field 'optimze' (there are inplace axis strategy unroll_limit loop_order stream parallel cache_size target tune optimize out_shape op expr dtype out_dtype quant activation rounding lang)
1|defaults "size"|bad.lua:1: error: defaults needs one table: defaults { optimize = "size" }
1|load(string.dump(function() end))()|bad.lua:1: error: 'load' is not available in a spec (it reads no file and runs no command)
1|string.dump(function() end)|bad.lua:1: error: attempt to call a nil value (field 'dump')
1|while true do end|bad.lua: error: the spec runs too long (more than 100 million instructions)
1|local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 4096) end|bad.lua: error: not enough memory (a spec may use 64 MB)
EOF_CASES
[ -z "$(find "$SCRATCH" -name pwned)" ]; check $? "the sandbox ran no command"

# A typo in any field, on its own line of a kernel written over several:
# an unquoted word, a bad value, a misspelt name; each fails at that line.
fresh out
fields=$(printf 'kernel "k" { frob = 1, "x=2" }\n' >typo.lua; "$GEN" typo.lua -o out/t.c 2>&1 \
	| sed -n 's/.*(there are \(.*\), and the operands)$/\1/p')
bad=
for f in $fields; do
	for value in 'typo_word' '"@@"'; do
		printf 'kernel "k" {\n  "x=2,4",\n  "y=4",\n  %s = %s,\n}\n' "$f" "$value" >typo.lua
		"$GEN" typo.lua -o out/t.c 2>err && bad="$bad $f=$value(accepted)"
		head -n 1 err | grep -q '^typo.lua:4: error: ' || bad="$bad $f=$value($(head -n 1 err))"
	done
	printf 'kernel "k" {\n  "x=2,4",\n  "y=4",\n  %sx = 1,\n}\n' "$f" >typo.lua
	"$GEN" typo.lua -o out/t.c 2>err
	head -n 1 err | grep -q "^typo.lua:4: error: kernel 'k': unknown field '${f}x'" || bad="$bad ${f}x"
done
[ -n "$fields" ] && [ -z "$bad" ] && [ ! -e out/t.c ]
check $? "a typo in any field ($(echo $fields | wc -w) fields) fails at its line$bad"

# Defaults: fields for the kernels declared after them; a kernel's own
# fields win, false included; a later defaults replaces them. The
# spec's own locals and helper functions work as before.
fresh out
cat >defaults.lua <<'EOF'
defaults { optimize = "size", target = "cortex-m4f", inplace = true, dtype = "i16" }
local function bias(name, c) kernel(name) { op = "add", "x=4," .. c, "b=" .. c } end
function scaled(name) kernel(name) { op = "mul", inplace = false, "x=4,3", "s=" } end
bias("a", 3)
scaled("b")
defaults { strategy = "unroll", op = "mul" }
kernel "c" { "x=2", "y=2" }
kernel "d" { expr = "x - y", "x=2", "y=2" }
EOF
"$GEN" defaults.lua -o out/d.c 2>err
check $? "a spec with defaults, a local helper and a global one generates" err
made() { grep -A1 'Made by' out/d.c | grep "name $1 " | sed 's/^ \*   //'; }
[ "$(made a)" = "bcastgen --inplace --target cortex-m4f --optimize size --op add --dtype i16 --name a x=4,3 b=3 (kernel 'a' of defaults.lua, line 4)" ] \
	&& [ "$(made b)" = "bcastgen --target cortex-m4f --optimize size --op multiply --dtype i16 --name b x=4,3 s= (kernel 'b' of defaults.lua, line 5)" ] \
	&& [ "$(made c)" = "bcastgen --strategy unroll --op multiply --dtype f32 --name c x=2 y=2 (kernel 'c' of defaults.lua, line 7)" ] \
	&& [ "$(made d)" = "bcastgen --strategy unroll --expr 'x - y' --dtype f32 --name d x=2 y=2 (kernel 'd' of defaults.lua, line 8)" ]
check $? "the banners show the defaults merged with each kernel's own fields (expr stands for op)"

fresh kernels.lua
"$GEN" kernels.lua 2>err
[ $? = 2 ] && grep -q 'a spec file needs -o FILE.c' err
check $? "a spec without -o is a usage error"
fresh kernels.lua out
"$GEN" kernels.lua --op add -o out/x.c 2>err
[ $? = 2 ] && grep -q 'operands and kernel options go in the spec' err
check $? "kernel options beside a spec are a usage error"
fresh kernels.lua out
cp kernels.lua keep.lua
"$GEN" kernels.lua -o out/x.c -M kernels.lua 2>err
[ $? = 1 ] && cmp -s kernels.lua keep.lua && [ ! -e out/x.c ] \
	&& grep -q "the depfile 'kernels.lua' would overwrite the spec" err
check $? "a depfile that names the spec is refused, the spec untouched"
fresh out
"$GEN" missing.lua -o out/x.c 2>err
[ $? = 1 ] && grep -q "cannot open spec file 'missing.lua': No such file" err
check $? "a missing spec file is an input error"

echo "1..$n"
exit $status
