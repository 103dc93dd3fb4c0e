#!/bin/sh
# t210-firmware-example: examples/firmware as a user would use it:
# install bcastgen into a temporary prefix with a space in it, not in
# PATH, copy the folder, and run the commands its README gives for that:
# make BCASTGEN_MK=..., then make run. The first builds it (its Makefile
# generates the kernels through the installed Make fragment) for the
# Cortex-M4F, the second runs it under QEMU: it says pass and exits 0;
# with one expected value changed it says fail and exits 1.
# Its quantized kernels' expected values, a dozen elements each in
# main.c, are TFLite Micro's: tests/quant_oracle.py computes them from
# kernels.lua's scales and zero points and main.c's inputs.
# Its start-up code built for a Cortex-M55 at -O3 turns the FPU on
# before any vector instruction, and runs on QEMU's mps3-an547.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
PATH=$(path_without_bcastgen)
for tool in arm-none-eabi-gcc qemu-system-arm timeout; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not installed (make deps installs it)"
		exit 0
	fi
done

# The walkthrough, one group: each check goes on from the ones before it
# (the Cortex-M55 build too: it takes the kernels the first make wrote).
fresh
PREFIX="$SCRATCH/pre fix"
export PREFIX
install_at "$PREFIX" >log 2>&1
check $? "make install PREFIX='.../pre fix'" log

# The README's commands for a bcastgen outside /usr/local and PATH: the
# sh block that gives BCASTGEN_MK, as it is, line by line.
cp -r "$top/examples/firmware" fw
awk '/^```sh$/ { b = ""; on = 1; next }
	on && /^```$/ { on = 0; if (b ~ /BCASTGEN_MK=/) printf "%s", b; next }
	on { b = b $0 "\n" }' fw/README.md >cmds
[ "$(wc -l <cmds)" = 2 ] && grep -q '^make BCASTGEN_MK=".*" *$' cmds && grep -q '^make run\b' cmds
check $? "the README gives two commands: make BCASTGEN_MK=\"...\", then make run" cmds
(cd fw && eval "$(sed -n 1p ../cmds)") >log 2>&1 &&
	grep -q "'$PREFIX/bin/bcastgen' *kernels.lua" log && [ -f fw/firmware.elf ]
check $? "its first: the example generates its kernels and builds firmware.elf" log

(cd fw && eval "$(sed -n 2p ../cmds)") >out 2>&1
rc=$?
cp out log
[ $rc = 0 ] && [ "$(tail -n 1 out)" = pass ] && [ "$(grep -c ': pass$' out)" = 5 ]
check $? "its second, make run: every kernel passes under QEMU, exit status 0" log

# Later makes, given no BCASTGEN_MK, use the one the first was given.
mk() { make --no-print-directory -C fw "$@"; }
mk >log 2>&1 && ! grep -q 'bcastgen\|gcc' log
check $? "a second make does nothing" log
sleep 1
touch fw/kernels.lua
mk >log 2>&1 && grep -q "'$PREFIX/bin/bcastgen' *kernels.lua" log
check $? "an edited kernels.lua: make regenerates it with the bcastgen the first make was given" log

# The start-up code on a Cortex-M55 at -O3, where gcc makes its memory
# loops Helium (MVE) vector code: the FPU must be on (CPACR, then DSB and
# ISB) before any float or vector instruction runs, and before any call
# or branch (no loop, nor another function, runs before it).
m55="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard"
if echo 'int f(void) { return 0; }' >m55.c &&
   arm-none-eabi-gcc $m55 -c m55.c -o m55.o 2>/dev/null; then
	# shellcheck disable=SC2086
	arm-none-eabi-gcc $m55 -std=c99 -ffreestanding -O3 -Wall -Wextra -Werror \
		-c fw/startup.c -o startup-m55.o >log 2>&1 &&
	arm-none-eabi-objdump -d -m armv8.1-m.main startup-m55.o >startup-m55.dis 2>>log &&
	awk -F '\t' '
		/<reset_handler>:$/ { on = 1; next }
		on && /^$/ { exit }
		on && NF >= 3 {
			op = $3
			if (op ~ /^str/) stored = 1
			else if (op ~ /^dsb/ && stored) dsb = 1
			else if (op ~ /^isb/ && dsb) { isb = 1; exit }
			else if (op ~ /^(v|ldc|stc|mcr|mrc|cdp)/ || op ~ /^(bl|blx|bx|cbz|cbnz)$/ ||
			         op ~ /^b(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?(\.[nw])?$/) {
				print "a float or vector instruction, a call or a branch before the FPU is on:"
				print $0; bad = 1; exit
			}
		}
		END { if (!isb) print "no CPACR store, DSB and ISB in reset_handler"; exit bad || !isb }
	' startup-m55.dis >>log
	check $? "startup.c for a Cortex-M55 at -O3: reset_handler turns the FPU on (CPACR, DSB, ISB) before any float or vector instruction, call or branch" log
	grep -q 'vldrw\|vstrw' startup-m55.dis
	check $? "... and gcc does use Helium for its memory loops there (the check sees vector code)" startup-m55.dis
	# Run it: the whole example at -O3 for the Cortex-M55 on QEMU's
	# mps3-an547 (its RAM at 0x20000000 has 512 KiB).
	if qemu-system-arm -M help 2>/dev/null | grep -q '^mps3-an547 '; then
		sed 's/LENGTH = 4M/LENGTH = 512K/' fw/m4f.ld >an547.ld
		for f in startup semihost main kernels; do
			# shellcheck disable=SC2086
			arm-none-eabi-gcc $m55 -std=c99 -ffreestanding -O3 -I"$top/runtime" \
				-c "fw/$f.c" -o "$f-m55.o" || break
		done >log 2>&1 &&
		# shellcheck disable=SC2086
		arm-none-eabi-gcc $m55 -nostdlib -T an547.ld -o m55.elf startup-m55.o \
			semihost-m55.o main-m55.o kernels-m55.o -lgcc >>log 2>&1 &&
		timeout 30 qemu-system-arm -M mps3-an547 -nographic \
			-semihosting-config enable=on,target=native -kernel m55.elf >out 2>&1
		rc=$?
		cat out >>log
		[ $rc = 0 ] && [ "$(tail -n 1 out)" = pass ]
		check $? "the example at -O3 for a Cortex-M55 runs on qemu-system-arm -M mps3-an547: pass, exit status 0" log
	else
		echo "ok $((n + 1)) # SKIP qemu-system-arm has no mps3-an547 (Cortex-M55)"
		n=$((n + 1))
	fi
else
	echo "ok $((n + 1)) # SKIP arm-none-eabi-gcc does not know -mcpu=cortex-m55"
	n=$((n + 1))
fi

# main.c's expected values of the quantized kernels against the oracle
# (TFLite Micro's math): the scales and zero points as bcastgen read them
# from kernels.lua (its banners' command lines), the inputs and the
# chosen elements as main.c has them.
if /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
	/usr/bin/python3 - "$TESTS" fw/main.c fw/kernels.c >log 2>&1 <<'PY'
import re, sys
sys.path.insert(0, sys.argv[1])
import quant_oracle as q
main = open(sys.argv[2]).read()
kernels = open(sys.argv[3]).read()

def array(name):
    m = re.search(r"\b%s\[\w*\] = \{([^}]*)\}" % name, main)
    return [int(v) for v in m.group(1).replace(",", " ").split()]

def formula(name):
    m = re.search(r"\b%s\[i\] = \(int8_t\)\((i \* \d+ %% \d+ - \d+)\);" % name, main)
    return lambda i: eval(m.group(1), {"i": i})   # C's % on i >= 0 is Python's

def params(kernel, op):
    made = re.search(r"^ \*   bcastgen .* --name %s .*$" % kernel, kernels, re.M).group(0)
    quant = {n: (s, int(z)) for n, s, z in re.findall(r"--quant (\w+)=([^,]+),(-?\d+)", made)}
    act = re.search(r"--activation (\S+)", made)
    x, y = re.findall(r" (\w+):i8=", made)     # the operands, in order
    return q.params(op, "int8", {"x": quant[x], "y": quant[y], "out": quant["out"]},
                    act.group(1) if act else "none")

pm, pa = params("se_scale", "mul"), params("residual", "add")
feat, skip, gate = formula("feat"), formula("skip"), array("gate")
se = lambda i: q.element(pm, feat(i), gate[i % 16])
picked = array("picked")
want = [se(i) for i in picked], [q.element(pa, se(i), skip(i)) for i in picked]
got = array("se_want"), array("residual_want")
print("picked", picked, "\nwant", want, "\ngot ", got)
assert len(picked) == 12 and len(set(picked)) == 12 and got == tuple(want)
PY
	check $? "main.c's expected values of se_scale and residual are TFLite Micro's (tests/quant_oracle.py)" log
else
	echo "ok $((n + 1)) # SKIP /usr/bin/python3 has no numpy (python3-numpy): the quantized values unchecked"
	n=$((n + 1))
fi

# A kernel's wrong result must show: change one expected value.
sed 's/20767, 21768,/20767, 21769,/' fw/main.c >main.c.new && ! cmp -s main.c.new fw/main.c
check $? "the test can change an expected value" log
mv main.c.new fw/main.c
mk -s run >out 2>&1
rc=$?
cp out log
[ $rc != 0 ] && grep -qx fail out && grep -q '^offset: fail$' out
check $? "with a wrong expected value: offset fails, the program says fail, exit status non-zero" log

# And one of a quantized kernel's: se_scale's output at element 78 (109).
sed 's/-128, -104, -128, 109,/-128, -104, -128, 110,/' "$top/examples/firmware/main.c" >fw/main.c &&
	! cmp -s fw/main.c "$top/examples/firmware/main.c"
check $? "the test can change a quantized kernel's expected value" log
mk -s run >out 2>&1
rc=$?
cp out log
[ $rc != 0 ] && grep -qx fail out && grep -q '^se_scale: fail$' out && grep -q '^offset: pass$' out &&
	grep -q '^residual: pass$' out
check $? "with it: se_scale fails (residual, which reads se_scale's output, passes), exit status non-zero" log

mk clean >log 2>&1 && ls -A fw >>log && [ "$(ls -A fw)" = "$(ls -A "$top/examples/firmware")" ]
check $? "make clean removes what make wrote, .bcastgen-mk included" log

echo "1..$n"
exit $status
