#!/bin/sh
# t060-limits: every documented limit, at it and past it. Operands: any
# number for --shape and --explain (NumPy's own broadcast_shapes cases),
# 127 for a kernel, whose code gcc and clang compile with -Werror and
# which computes what NumPy does; rank 64; names: a warning past 31
# characters, an error past 255; and every long option of --help in the
# man page.
. "$(dirname "$0")/lib.sh"

n=0 status=0
ROOT=$(dirname "$TESTS")

# check NAME CONDITION...: one TAP line for the command CONDITION.
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		status=1
	fi
}

# operands PREFIX COUNT SHAPE: PREFIX0=SHAPE PREFIX1=SHAPE ...
operands() {
	i=0
	while [ "$i" -lt "$2" ]; do
		printf '%s%d=%s ' "$1" "$i" "$3"
		i=$((i + 1))
	done
}

# fails RC MESSAGE ARGS...: bcastgen ARGS exits RC, says MESSAGE first on
# stderr, prints nothing and leaves no file behind.
fails() {
	want_rc=$1 want=$2
	shift 2
	mkdir fails && cd fails || return 1
	"$GEN" "$@" >out 2>err
	rc=$?
	got=$(head -n 1 err)
	rm out err
	left=$(ls -A)
	cd .. && rm -rf fails
	[ "$rc" = "$want_rc" ] && [ "$got" = "$want" ] && [ -z "$left" ] && return 0
	echo "#   want (exit $want_rc): $want"
	echo "#   got  (exit $rc): $got"
	[ -z "$left" ] || echo "#   files left behind: $left"
	return 1
}

# Operands: NumPy's test cases of broadcast_shapes, and a thousand.
fresh
# shellcheck disable=SC2046
check "(1,2) a hundred times gives (1,2)" \
	[ "$("$GEN" --shape $(operands a 100 1,2))" = "1,2" ]
fresh
# shellcheck disable=SC2046
check "32 operands and a scalar" \
	[ "$("$GEN" --shape $(operands a 32 1,2) s=)" = "1,2" ]
fresh
# shellcheck disable=SC2046
check "1000 operands, --shape" \
	[ "$("$GEN" --shape $(operands a 999 1) b=3,4)" = "3,4" ]
fresh
# shellcheck disable=SC2046
check "1000 operands, --explain" \
	sh -c '"$0" --explain "$@" | grep -q "^Step 3. The result shape is (3,4): 12 elements.$"' \
	"$GEN" $(operands a 999 1) b=3,4
fresh
# shellcheck disable=SC2046
check "1000 operands, the plain result" \
	sh -c '"$0" "$@" | grep -q " b(3,4) -> (3,4)$"' "$GEN" $(operands a 999 1) b=3,4
fresh
# shellcheck disable=SC2046
check "1000 operands, --shape --op add" \
	[ "$("$GEN" --shape --op add $(operands a 1000 2))" = "2" ]
fresh
# shellcheck disable=SC2046
check "1000 operands that do not broadcast" \
	fails 1 "bcastgen: error: operands could not be broadcast together with shapes $(
		i=0; while [ $i -lt 998 ]; do printf 'a%d(1,) ' $i; i=$((i + 1)); done)b(2,) c(3,)" \
	--shape $(operands a 998 1) b=2 c=3
fresh
# shellcheck disable=SC2046
check "a duplicate among 1000 operands" \
	fails 1 "bcastgen: error: operand 'a5' is given twice" --shape $(operands a 1000 1) a5=1

# The kernel limit: 127 operands, and one clear error past it.
fresh
# shellcheck disable=SC2046
check "a kernel of 128 operands is an error" \
	fails 1 "bcastgen: error: a kernel takes at most 127 operands (C guarantees 127 parameters to a function), got 128; --shape and --explain take any number" \
	-o k.c $(operands a 128 3)
fresh
{
	printf 'kernel "k" { '
	i=0
	while [ $i -lt 128 ]; do printf '"a%d=3", ' $i; i=$((i + 1)); done
	printf '}\n'
} >big.lua
check "a spec kernel of 128 operands is an error" \
	fails 1 "$PWD/big.lua:1: error: kernel 'k': a kernel takes at most 127 operands (C guarantees 127 parameters to a function)" \
	"$PWD/big.lua" -o k.c

fresh
sum=a0
i=1
while [ $i -lt 127 ]; do sum="$sum+a$i"; i=$((i + 1)); done
# shellcheck disable=SC2046
check "add of 127 operands is generated" \
	"$GEN" -o add127.c --op add $(operands a 126 4,1) a126=3
# shellcheck disable=SC2046
check "an --expr of 127 operands is generated" \
	"$GEN" -o expr127.c --dtype i32 --expr "$sum" $(operands a 127 2,3)
for cc in gcc clang; do
	if ! command -v $cc >/dev/null; then
		n=$((n + 1)); echo "ok $n # skip no $cc"
		n=$((n + 1)); echo "ok $n # skip no $cc"
		continue
	fi
	for k in add127 expr127; do
		check "$k.c compiles with $cc -Werror" \
			$cc -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror -ffp-contract=off \
			-I "$ROOT/runtime" -c $k.c -o $k-$cc.o
	done
done

# add127 against NumPy: a(i) holds i + j/8 (exact in f32), summed from the left.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null && command -v gcc >/dev/null; then
	{
		echo '#include <stdio.h>'
		echo '#include "add127.h"'
		echo 'static float in[127][4], out[3 * 4];'
		echo 'int main(void) {'
		echo '	for (int i = 0; i < 127; i++) for (int j = 0; j < 4; j++) in[i][j] = (float)i + (float)j / 8;'
		printf '\tadd127('
		i=0
		while [ $i -lt 126 ]; do printf 'in[%d], ' $i; i=$((i + 1)); done
		echo 'in[126], out);'
		printf '%s\n' '	for (int e = 0; e < 12; e++) printf("%.9g\n", out[e]);'
		echo '	return 0;'
		echo '}'
	} >main.c
	cat >ref.py <<'EOF_PY'
import numpy as np
ins = [np.array([[i + j / 8] for j in range(4)], dtype=np.float32) for i in range(126)]
ins.append(np.array([126 + j / 8 for j in range(3)], dtype=np.float32))
acc = ins[0]
for a in ins[1:]:
    acc = acc + a
assert acc.shape == (4, 3) and acc.dtype == np.float32
for v in acc.reshape(-1):
    print("%.9g" % v)
EOF_PY
	check "add of 127 operands gives NumPy's result" \
		sh -c 'gcc -std=c99 -I "$0/runtime" -o add127 main.c add127.c -lm && ./add127 >got &&
			/usr/bin/python3 ref.py >want && cmp -s got want' "$ROOT"
else
	n=$((n + 1)); echo "ok $n # skip no NumPy or gcc"
fi

# Rank: 64, and 65 an error.
rank64=$(printf '1,%.0s' $(seq 63))2
fresh
check "rank 64" [ "$("$GEN" --shape x=$rank64)" = "$rank64" ]
fresh
check "rank 65 is an error" \
	fails 1 "bcastgen: error: operand 'x' has more than 64 dimensions" --shape x=1,$rank64
fresh
check "2^63 elements is an error" \
	fails 1 "bcastgen: error: size '9223372036854775808' in shape of operand 'x' is too large (the limit is 9223372036854775807)" \
	--shape x=9223372036854775808

# Names: a warning past 31 characters, an error past 255.
name30=$(printf 'a%.0s' $(seq 30))
name31=$(printf 'b%.0s' $(seq 25))
fresh
"$GEN" -o w.c --name "$name30" x=3 2>err
rc=$?
check "a 30-character kernel name: exit 0, files written" [ $rc = 0 ] && [ -s w.c ] && [ -s w.h ]
check "... and a warning about its macro" grep -q "^bcastgen: warning: kernel name '$name30' makes macros of up to 36 characters (A\{30\}_SHAPE): some toolchains truncate external names to 31 characters" err
fresh
"$GEN" -o w25.c --name "$name31" x=3 2>err
check "a 25-character name (macros of 31) gets no warning" [ $? = 0 ] && [ ! -s err ]
name40=$(printf 'c%.0s' $(seq 40))
fresh
"$GEN" -o w40.c --name "$name40" x=3 2>err
check "a 40-character name: a warning" [ $? = 0 ] && grep -q "kernel name '$name40' is 40 characters long: some toolchains truncate" err
name255=$(printf 'd%.0s' $(seq 255))
fresh
check "a 255-character name is taken" "$GEN" -o w255.c --name "$name255" x=3 2>/dev/null
name256=$(printf 'e%.0s' $(seq 256))
fresh
check "a 256-character name is an error" \
	fails 1 "bcastgen: error: kernel name 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee...' is 256 characters long: the limit is 255" \
	-o k.c --name "$name256" x=3
name100k=$(/usr/bin/python3 -c 'print("f" * 100000)')
fresh
check "a 100,000-character --name is an error" \
	fails 1 "bcastgen: error: kernel name 'ffffffffffffffffffffffffffffffff...' is 100000 characters long: the limit is 255" \
	-o k.c --name "$name100k" x=3
fresh
/usr/bin/python3 -c 'print("kernel \"" + "g" * 1000000 + "\" { \"x=3\" }")' >long.lua
check "a 10^6-character spec kernel name is an error" \
	fails 1 "$PWD/long.lua:1: error: kernel name 'gggggggggggggggggggggggggggggggg...' is 1000000 characters long: the limit is 255" \
	"$PWD/long.lua" -o k.c
fresh
check "a 64-character operand name is an error" \
	fails 1 "bcastgen: error: operand name '$(printf 'h%.0s' $(seq 64))' is longer than 63 characters" \
	--shape "$(printf 'h%.0s' $(seq 64))=3"

# Every long option --help lists is in the man page; -o is required with a spec.
fresh
"$GEN" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >help-options
sed 's/\\-/-/g' "$ROOT/dist/bcastgen.1" >man
missing=
while read -r opt; do
	grep -q -- "$opt\\b" man || missing="$missing $opt"
done <help-options
check "every long option of --help is in the man page" [ -z "$missing" ]
[ -z "$missing" ] || echo "#   missing:$missing"
fresh
check "--help lists --loop-order and its limits" \
	sh -c '"$0" --help | grep -q -- "--loop-order P" && "$0" --help | grep -q "^limits"' "$GEN"
fresh
check "the man page's synopsis shows -o as required with a spec" \
	grep -q '^\\fISPEC\\fB.lua\\fR \\fB\\-o\\fR' "$ROOT/dist/bcastgen.1"
for place in "$ROOT/README.md" "$ROOT/dist/bcastgen.1"; do
	fresh
	check "$(basename "$place") has a Limits section" grep -q -i '^\(## \|\.SH \)limits' "$place"
done

# A long expression: the message shows a window of it.
fresh
expr=$(awk 'BEGIN { for (i = 0; i < 400; i++) printf "x+"; printf "y"; for (i = 0; i < 400; i++) printf "+x" }')
"$GEN" -o k.c --expr "$expr" x=3 2>err
check "a long expression's error: one line and a caret of at most 80 columns" \
	awk 'length > 80 { bad = 1 } END { exit bad || NR != 3 }' err
check "the window is around the error" grep -q '^    [.][.][.][x+]*y[x+]*[.][.][.]$' err
rm -f err

# The output: 64 MB of C in one run at most, one clear error past it.
# (about 1700 kernels of 127 operands, 38 KB each)
fresh
{
	printf 'local ops = {'
	i=0
	while [ $i -lt 127 ]; do printf '"a%d=%s", ' $i "$([ $((i % 2)) = 1 ] && echo 2,1,3,1,5 || echo 1,4,1,6,1)"; i=$((i + 1)); done
	printf '}\nfor i = 1, 2000 do\n  local t = {op = "add"}\n'
	printf '  for j, o in ipairs(ops) do t[j] = o end\n  kernel("k" .. i)(t)\nend\n'
} >huge.lua
"$GEN" huge.lua -o huge.c 2>err
rc=$?
check "64 MB of generated C: one clear error, nothing written" \
	sh -c '[ $0 = 1 ] && grep -q "the generated files would pass the limit of 64 MB" err && ! [ -e huge.c ]' $rc
rm -f err huge.lua

# The largest result streams, and its banner does not print a wrapped size.
fresh
check "2^62 elements: streamed, their data 'more than' Lua's largest integer" \
	sh -c '"$0" x=4611686018427387903 y= -o big.c &&
	       grep -q "the data, more than 9223372036854775807 bytes" big.c &&
	       grep -q "bc_stream_line_f32" big.c' "$GEN"
rm -f big.c big.h

echo "1..$n"
exit $status
