#!/bin/sh
# t415-contract: the kernels keep x*w + b from being fused into one
# multiply-add by themselves, with no -ffp-contract flag: gcc and clang,
# and g++ and clang++ compiling the .c as C++, in their ISO and GNU
# dialects, at -O0, -O2 and -O3, with and without -flto, all with
# -march=native, give NumPy's result (two roundings) bit for bit, on
# inputs where one rounding differs, and the program holds no fused
# multiply-add instruction. The same kernels with their protection taken
# out (bc.h's BC_NO_CONTRACT and the file's pragma) do fuse, so the
# inputs and the instruction count would see it.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
	echo "1..0 # SKIP /usr/bin/python3 with numpy not available"
	exit 0
fi
case $(uname -m) in
x86_64 | i?86)
	if ! grep -qw fma /proc/cpuinfo 2>/dev/null; then
		echo "1..0 # SKIP this processor has no fused multiply-add: nothing can fuse"
		exit 0
	fi ;;
esac
# A fused multiply-add instruction, on x86 or Arm.
fma='fn\?m\(add\|sub\)\|fml[as]\|vfm[as]'

# One group: every check builds on the kernels and NumPy's data of the
# first two, and the control takes the protection out of them last.
fresh
cat >k.lua <<'EOF'
kernel "k32" { expr = "x*w + b", dtype = "f32", "x=1000", "w=1000", "b=1000" }
kernel "k64" { expr = "x*w + b", dtype = "f64", "x=1000", "w=1000", "b=1000" }
EOF
"$GEN" k.lua -o k.c >log 2>&1
check $? "a spec with x*w + b in f32 and in f64 generates" log

# Inputs: half the b are -(x*w) rounded, where two roundings give 0 and
# one gives the first rounding's error; the others random.
cat >inputs.py <<'EOF'
import numpy as np
r = np.random.default_rng(415)
ins, want = [], []
for t in (np.float32, np.float64):
    x = r.standard_normal(1000).astype(t)
    w = r.standard_normal(1000).astype(t)
    b = -(x * w)
    b[::2] = r.standard_normal(500).astype(t)
    ins += [x, w, b]
    want.append(x * w + b)
open("in.bin", "wb").write(b"".join(a.tobytes() for a in ins))
open("want.bin", "wb").write(b"".join(a.tobytes() for a in want))
EOF
cat >main.c <<'EOF'
/* Reads x, w, b in f32, then in f64, from in.bin; writes both results. */
#include <stdio.h>
#include "k.h"
static float x[1000], w[1000], b[1000], o[1000];
static double xd[1000], wd[1000], bd[1000], od[1000];
int main(void)
{
	FILE *f = fopen("in.bin", "rb");
	if (!f || fread(x, 4, 1000, f) != 1000 || fread(w, 4, 1000, f) != 1000
	    || fread(b, 4, 1000, f) != 1000 || fread(xd, 8, 1000, f) != 1000
	    || fread(wd, 8, 1000, f) != 1000 || fread(bd, 8, 1000, f) != 1000)
		return 1;
	k32(x, w, b, o);
	k64(xd, wd, bd, od);
	fwrite(o, 4, 1000, stdout);
	fwrite(od, 8, 1000, stdout);
	return 0;
}
EOF
/usr/bin/python3 inputs.py
check $? "NumPy writes the inputs and its results"

# run CC FLAGS...: build main.c and k.c as one program with the runtime
# in RT (default the tree's), run it; 0 if its results are NumPy's and it
# holds no fused multiply-add, 1 if not, 2 if it did not build.
RT=$top/runtime
run() {
	cc=$1; shift
	rm -f prog got.bin
	case $cc in *++) lang="-x c++" ;; *) lang= ;; esac
	$cc $lang "$@" -I. -I"$RT" main.c k.c -o prog >build.log 2>&1 || return 2
	./prog >got.bin || return 1
	cmp -s got.bin want.bin || return 1
	! objdump -d prog | grep -q "$fma"
}

# Each compiler there is, in each dialect, at each level, with and
# without link-time optimization.
ran=0
for cc in gcc clang g++ clang++; do
	command -v $cc >/dev/null 2>&1 || continue
	case $cc in
	*++) dialects="-std=c++17 -std=gnu++17" ;;
	*) dialects="-std=c99 -std=gnu11" ;;
	esac
	bad=
	for std in $dialects; do
		for level in -O0 -O2 -O3; do
			for lto in "" -flto; do
				run $cc $std $level -march=native $lto
				rc=$?
				[ $rc = 2 ] && { cat build.log >>fails; rc=1; }
				[ $rc = 0 ] || bad="$bad [$std $level -march=native $lto]"
				ran=$((ran + 1))
			done
		done
	done
	[ -z "$bad" ]
	check $? "$cc: NumPy's unfused result, no multiply-add instruction, in every dialect and level${bad:+; fused or failed:$bad}" fails
done
[ $ran -ge 24 ]
check $? "at least two compilers were measured ($ran builds)"

# The control: without the protection, the same inputs show fusing.
mkdir rt
cp "$top"/runtime/*.h rt/
sed -i 's/^#define BC_NO_CONTRACT .*/#define BC_NO_CONTRACT/' rt/bc.h
sed -i 's/^#pragma STDC FP_CONTRACT OFF$//' k.c
grep -q 'define BC_NO_CONTRACT$' rt/bc.h && ! grep -q 'FP_CONTRACT OFF$' k.c
check $? "the control takes the protection out of bc.h and k.c"
RT=$PWD/rt
fused=
for cfg in "gcc -std=gnu11 -O2" "clang -std=c99 -O2" "g++ -std=c++17 -O2" "clang++ -std=c++17 -O0"; do
	set -- $cfg
	command -v $1 >/dev/null 2>&1 || continue
	run $cfg -march=native
	[ $? = 1 ] && fused="$fused [$cfg]"
done
[ -n "$fused" ]
check $? "without the protection, fusing shows:${fused:- nowhere}"

echo "1..$n"
exit $status
