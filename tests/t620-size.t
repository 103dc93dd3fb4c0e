#!/bin/sh
# t620-size: make size's tool (bench/size.py) on a case of its own: it
# runs, writes its table, and its instruction count of a known loop
# (a 64-element f32 add on the Cortex-M4F at -Os, --strategy loops) is
# what the loop's disassembly says: the loop body once per element plus
# the instructions outside it once. Its check catches a strategy smaller
# than --optimize size in a fake table, and passes an honest one.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)

# The checker needs no toolchain: a fake table, loops 40 bytes, size 48.
printf 'case\ttarget\tflags\timplementation\ttext_bytes\tinstructions_per_element\n' >fake.tsv
printf 'fake\tm0\t-Os\tloops\t40\t\nfake\tm0\t-Os\tsize\t48\t\nfake\tm0\t-O2\tunroll\t10\t\n' >>fake.tsv
fresh fake.tsv
/usr/bin/python3 "$top/bench/size.py" --check fake.tsv >log 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'larger: fake on m0 at -Os: --optimize size is 48 bytes, loops 40' log
check $? "the check fails on a strategy smaller than --optimize size at -Os, and says which" log
fresh fake.tsv
sed -n 1p fake.tsv >honest.tsv
printf 'fake\tm0\t-Os\tloops\t48\t\nfake\tm0\t-Os\tsize\t48\t\nfake\tm0\t-O2\tsize\t99\t\n' >>honest.tsv
/usr/bin/python3 "$top/bench/size.py" --check honest.tsv >log 2>&1
check $? "the check passes when size is the smallest at -Os (-O2 not checked)" log

for tool in arm-none-eabi-gcc arm-none-eabi-objdump qemu-system-arm timeout; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "ok $((n + 1)) # SKIP $tool not installed (make deps installs it)"
		echo "1..$((n + 1))"
		exit $status
	fi
done

fresh
/usr/bin/python3 "$top/bench/size.py" --gen "$GEN" --out out --targets m4f \
	--case 'add64=x=64 y=64' >log 2>&1
rc=$?
[ $rc = 0 ] && [ -s out/SIZE.md ] && [ -s out/size.tsv ] && grep -q '^add64  *m4f  *-Os' log
check $? "size.py runs a case on the Cortex-M4F and writes its table" log

# The count in the table, against the disassembly: the instructions from
# the backward branch's target to the branch run 64 times, the rest once.
got=$(awk -F'\t' '$1 == "add64" && $3 == "-Os" && $4 == "loops" { print $6 }' out/size.tsv)
obj=out/cases/add64/m4f_Os/add64_loops.o
arm-none-eabi-objdump -d "$obj" >dis
want=$(/usr/bin/python3 -c '
import re, sys
ins = [l for l in open(sys.argv[1]) if re.match(r"^ *[0-9a-f]+:\t", l)]
addr = [int(l.split(":")[0], 16) for l in ins]
back = [i for i, l in enumerate(ins) if re.search(r"\tb(ne|cc|cs|lt|gt|le|ge|hi|ls)(\.n|\.w)?\t", l)]
at = back[-1]
target = int(ins[at].split("\t")[3].split()[0], 16)
body = sum(1 for i in range(at + 1) if addr[i] >= target)
print("%.2f" % ((64 * body + len(ins) - body) / 64))
' dis)
cp dis log
echo "# table: $got instructions per element; disassembly: $want" >>log
[ -n "$got" ] && [ "$got" = "$want" ]
check $? "64-element f32 add, loops, Cortex-M4F -Os: $got instructions per element, as the disassembly gives" log

# Sane in themselves: one vadd.f32 per element at least, a loop of a
# handful; the unrolled kernel fewer than the loop, bc_ref.h's walk more.
unroll=$(awk -F'\t' '$1 == "add64" && $3 == "-Os" && $4 == "unroll" { print $6 }' out/size.tsv)
ref=$(awk -F'\t' '$1 == "add64" && $3 == "-Os" && $4 == "ref" { print $6 }' out/size.tsv)
awk -v g="$got" -v u="$unroll" -v r="$ref" 'BEGIN { exit !(g >= 4 && g <= 10 && u >= 4 && u < g && r > g) }'
check $? "loops $got, unrolled $unroll, bc_ref.h $ref instructions per element: in order" log

echo "1..$n"
exit $status
