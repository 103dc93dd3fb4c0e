#!/bin/sh
# t440-timings: --timings prints one line of processor times per phase
# to stderr after a successful run and changes no file; templates are
# compiled once per run, yet each kernel still renders in a fresh
# environment (nothing a render leaves is seen by the next), errors
# still name the template's line, and the instruction budget is still
# per render. No speed is asserted here: that is for a benchmark.
. "$(dirname "$0")/lib.sh"


# A spec of varied kernels: ops, expressions, dtypes, axis, strategies.
cat >k.lua <<'EOF'
kernel "bias"  { op = "add", "x=8,64,56,56", "b=64,1,1" }
kernel "relu"  { expr = "max(x*w + b, 0)", "x=4,3", "w=3", "b=" }
kernel "scale" { op = "mul", axis = 1, "x=2,3,4,5", "y=3" }
kernel "mask"  { op = "gt", "a=4,5", "b=5", strategy = "loops", loop_order = "1,0" }
kernel "half"  { op = "max", dtype = "f16", "p=2,3,1,5,7", "q=3,4,1,7" }
kernel "ints"  { op = "shl", dtype = "i16", "u:u8=3,1", "v=4" }
kernel "back"  { op = "sub", inplace = true, "m=16,16", "s=16" }
EOF
pattern='^bcastgen: timings: read [0-9]+\.[0-9]{3} s, plan [0-9]+\.[0-9]{3} s, render [0-9]+\.[0-9]{3} s, write [0-9]+\.[0-9]{3} s, 7 kernels$'

mkdir plain timed fresh late budget
fresh k.lua plain timed
"$GEN" k.lua -o plain/k.c -M plain/k.d 2>plain.err
check $? "the spec generates without --timings"
[ ! -s plain.err ]
check $? "without --timings nothing is printed"
"$GEN" k.lua -o timed/k.c -M timed/k.d --timings 2>timed.err
check $? "the spec generates with --timings"
[ "$(wc -l <timed.err)" = 1 ] && grep -Eq "$pattern" timed.err
rc=$?
check $rc "--timings prints one line: read, plan, render, write and 7 kernels"
[ $rc = 0 ] || sed 's/^/#   /' timed.err
cmp -s plain/k.c timed/k.c && cmp -s plain/k.h timed/k.h
check $? "the .c and .h are the same bytes with and without --timings"
sed 's|timed/|plain/|g' timed/k.d | cmp -s plain/k.d -
check $? "so is the depfile, but for its directory"

fresh
"$GEN" -o one.c --timings x=3 y=3 2>one.err
grep -Eq '^bcastgen: timings: read [0-9.]+ s, plan [0-9.]+ s, render [0-9.]+ s, write [0-9.]+ s, 1 kernel$' one.err
check $? "one kernel from the command line: '1 kernel'"

fresh
"$GEN" --timings x=3 y=3 >out 2>err
rc=$?
[ $rc = 2 ] && [ "$(head -n 1 err)" = "bcastgen: error: --timings needs -o: it times the phases that write the files" ] \
	&& [ ! -s out ]
check $? "--timings without -o is a usage error (exit 2)"
fresh
"$GEN" --timings -o bad.c x=3 y=4 2>err
rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" -gt 0 ] && ! grep -q timings err && [ ! -e bad.c ]
check $? "a failed run prints its error, no timings, and writes nothing"

# Templates compiled once, rendered fresh: a copy of the templates whose
# kernel.c.lt checks at its start that no earlier render left anything,
# and at its end leaves globals, library fields and a clobbered helper.
cd "$SCRATCH" || exit 1
mkdir t
cp "$TESTS"/../templates/* t/
fresh k.lua t fresh
{
	echo '@ assert(leak == nil and string.leak == nil and math.leak == nil and table.leak == nil and utf8.leak == nil, "a render saw what an earlier one left")'
	echo '@ assert(type(tuple) == "function" and type(signature) == "function" and string.format == ("").format, "a render saw an earlier one'"'"'s helpers")'
	cat "$TESTS"/../templates/kernel.c.lt
	echo '@ leak = name; string.leak = name; math.leak = name; table.leak = name; utf8.leak = name'
	echo '@ tuple = nil; signature = 1; string.format = nil'
} >t/kernel.c.lt
"$GEN" k.lua -o fresh/k.c --templates t 2>err
rc=$?
check $rc "each of 7 kernels renders in a fresh environment, its library tables fresh"
[ $rc = 0 ] || sed 's/^/#   /' err

# The model's dtypes table is made for each kernel: what a render writes
# in it does not reach the next.
fresh k.lua t fresh
{
	echo '@ assert(dtypes.f32.bits == 32, "a render saw what an earlier one left in dtypes")'
	cat "$TESTS"/../templates/kernel.h.lt
	echo '@ dtypes.f32.bits = 7'
} >t/kernel.h.lt
n=$((n + 1))
if "$GEN" k.lua -o fresh/k.c --templates t 2>err; then
	echo "ok $n - the model's dtypes table is fresh for each kernel"
else
	echo "not ok $n - the model's dtypes table is fresh for each kernel"
	sed 's/^/# /' err
fi
cp "$TESTS"/../templates/kernel.h.lt t/kernel.h.lt

# An error in the fourth render names the template's line.
fresh k.lua t late
cp "$TESTS"/../templates/kernel.c.lt t/kernel.c.lt
{
	echo 'line one'
	echo '@ if name == "mask" then not_a_function() end'
	cat "$TESTS"/../templates/kernel.h.lt
} >t/kernel.h.lt
"$GEN" k.lua -o late/k.c --templates t 2>err
rc=$?
[ $rc = 1 ] && [ "$(head -n 1 err)" = "bcastgen: error: t/kernel.h.lt:2: attempt to call a nil value (global 'not_a_function')" ] \
	&& [ ! -e late/k.c ]
rc=$?
check $rc "an error in a later kernel's render names the template and line"
[ $rc = 0 ] || sed 's/^/#   /' err

# The budget of 100 million instructions is per render: two kernels of
# 60 million each generate.
fresh t budget
cp "$TESTS"/../templates/kernel.h.lt t/kernel.h.lt
{
	echo '@ for i = 1, 60000000 do end'
	cat "$TESTS"/../templates/kernel.c.lt
} >t/kernel.c.lt
printf 'kernel "a" { "x=3" }\nkernel "b" { "x=4" }\n' >two.lua
"$GEN" two.lua -o budget/k.c --templates t 2>err
rc=$?
check $rc "the instruction budget is per render, not per run"
[ $rc = 0 ] || sed 's/^/#   /' err

echo "1..$n"
exit $status
