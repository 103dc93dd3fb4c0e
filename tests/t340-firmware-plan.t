#!/bin/sh
# t340-firmware-plan: what the plan decides for firmware, seen in the
# emitted code: max and min against a constant in one compare (and the
# helpers right), a kernel too big for a 32-bit size_t refused there by
# #error, multiply-adds not fused under gcc's GNU dialect, and
# --optimize size choosing loops.
. "$(dirname "$0")/lib.sh"

RT="$TESTS/../runtime"
n=0 status=0
# check DESCRIPTION COMMAND...: one TAP line for COMMAND's success.
check() {
	what=$1
	shift
	n=$((n + 1))
	if "$@" >out 2>&1; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		sed 's/^/# /' out | head -20
		status=1
	fi
}
# skip DESCRIPTION REASON
skip() {
	n=$((n + 1))
	echo "ok $n # skip $1: $2"
}

fresh
check "the constant helpers give the general helpers' bits" \
	sh -c "gcc -std=c99 -Wall -Wextra -Wconversion -Werror -O2 -I'$RT' \
		'$TESTS/plan/constant_helpers.c' -o helpers && ./helpers"

fresh
"$GEN" --expr 'max(x + b, 0)' --strategy loops x=64,16 b=16 -o relu.c
check "max(x + b, 0) calls the constant's helper" grep -q 'bc_maxc_f32(x_0\[i1\] + b\[i1\], 0.0f)' relu.c
if command -v arm-none-eabi-gcc >/dev/null; then
	M4F="arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
	$M4F -std=c99 -ffreestanding -O2 -I"$RT" -c relu.c -o relu.o
	n=$((n + 1))
	compares=$(arm-none-eabi-objdump -d relu.o | grep -c 'vcmp')
	if [ "$compares" = 1 ]; then
		echo "ok $n - max(x + b, 0) on a Cortex-M4F: one compare an element"
	else
		echo "not ok $n - max(x + b, 0) on a Cortex-M4F: $compares compares, want 1"
		status=1
	fi
	fresh
	"$GEN" --dtype u8 x=70000,70000 y=70000 -o big.c
	check "70000x70000 u8: the banner says it needs a 64-bit size_t" \
		grep -q 'more than a 32-bit size_t counts' big.c
	n=$((n + 1))
	if $M4F -std=c99 -ffreestanding -Os -I"$RT" -c big.c -o big.o 2>err; then
		echo "not ok $n - 70000x70000 u8 compiles for a 32-bit target"
		status=1
	elif grep -q "#error \"kernel 'big': its 4900000000 elements are more than this target's size_t counts\"" err; then
		echo "ok $n - 70000x70000 u8 on a 32-bit target: one clear #error"
	else
		echo "not ok $n - 70000x70000 u8 on a 32-bit target: not the #error"
		sed 's/^/# /' err | head -5
		status=1
	fi
else
	skip "one compare on a Cortex-M4F" "arm-none-eabi-gcc is not installed"
	skip "the 32-bit size_t banner" "arm-none-eabi-gcc is not installed"
	skip "the 32-bit size_t #error" "arm-none-eabi-gcc is not installed"
fi
fresh
"$GEN" --dtype u8 x=70000,70000 y=70000 -o big64.c
check "70000x70000 u8 compiles where size_t has 64 bits" \
	gcc -std=c99 -Wall -Wextra -Wconversion -Werror -O2 -I"$RT" -c big64.c

# gcc -std=gnu11 fuses a * b + c by default; the file must prevent it
fresh
"$GEN" --expr 'x*w + b' --strategy loops x=64,64 w=64 b=64 -o muladd.c
n=$((n + 1))
if gcc -std=gnu11 -O2 -mfma -I"$RT" -c muladd.c -o muladd.o 2>err; then
	fused=$(objdump -d muladd.o | grep -c 'vfmadd\|vfnmadd')
	if [ "$fused" = 0 ]; then
		echo "ok $n - x*w + b under gcc -std=gnu11 -mfma: no fused multiply-add"
	else
		echo "not ok $n - x*w + b under gcc -std=gnu11 -mfma: $fused fused multiply-adds"
		status=1
	fi
else
	echo "ok $n # skip gcc -mfma: $(head -1 err)"
fi

# the attributes that ask gcc for all this are the kernel's alone: its
# helpers are still inlined (an optimize attribute on them would stop it)
fresh
"$GEN" --expr 'floor(max(x*w + b, 0))' --strategy loops x=64,64 w=64 b=64 -o asks.c
check "a kernel of loops, multiply-adds and helpers asks for all three" \
	grep -q '^BC_OPTIMIZE(BC_LOOPS(32), BC_NO_MEMCPY, BC_NO_CONTRACT)$' asks.c
# (at -Os gcc may keep a helper of a rare path out of line: its choice)
for flags in "-std=gnu11 -O2" "-std=c99 -O2 -ffreestanding" "-std=gnu11 -Os -ffreestanding"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	gcc $flags -Winline -I"$RT" -c asks.c -o asks.o 2>err
	calls=$(objdump -d asks.o | grep -c 'call')
	case $flags in *-Os*) calls=0 ;; esac
	if [ "$calls" = 0 ] && ! grep -q 'attribute mismatch' err; then
		echo "ok $n - gcc $flags: no helper kept out of the kernel by its attributes"
	else
		echo "not ok $n - gcc $flags: $calls calls"
		sed 's/^/# /' err | head -5
		status=1
	fi
done

fresh
"$GEN" --optimize size x=3,3 y=3 -o small.c
check "--optimize size: a 3x3 add is a loop" grep -q 'for (i1 = 0; i1 < 3; i1++)' small.c
fresh
"$GEN" x=3,3 y=3 -o fast.c
check "--optimize speed: a 3x3 add is unrolled" grep -q 'Unrolled' fast.c
fresh
n=$((n + 1))
if "$GEN" --optimize tiny x=3 -o bad.c 2>err || [ -e bad.c ]; then
	echo "not ok $n - --optimize tiny is refused"
	status=1
elif grep -q "bad optimize 'tiny': expected speed or size" err; then
	echo "ok $n - --optimize tiny: one clear error, nothing written"
else
	echo "not ok $n - --optimize tiny: $(cat err)"
	status=1
fi
echo "1..$n"
exit $status
