#!/bin/sh
# t210-firmware-example: examples/firmware as a user would use it:
# install bcastgen into a temporary prefix, copy the folder, build it
# (its Makefile generates the kernels through the installed Make
# fragment) for the Cortex-M4F and run it under QEMU: it says pass and
# exits 0; with one expected value changed it says fail and exits 1.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
for tool in arm-none-eabi-gcc qemu-system-arm timeout; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not installed (make deps installs it)"
		exit 0
	fi
done


dest=$SCRATCH/dest
install_into "$dest" >log 2>&1
check $? "make install DESTDIR=... PREFIX=/usr" log

cp -r "$top/examples/firmware" fw
mk() { make --no-print-directory -C fw BCASTGEN_MK="$dest/usr/share/bcastgen/bcastgen.mk" "$@"; }
mk >log 2>&1 && grep -q 'bin/bcastgen  *kernels.lua' log && [ -f fw/firmware.elf ]
check $? "the example generates its kernels and builds firmware.elf" log

mk -s run >out 2>&1
rc=$?
cp out log
[ $rc = 0 ] && [ "$(tail -n 1 out)" = pass ] && [ "$(grep -c ': pass$' out)" = 3 ]
check $? "make run: every kernel passes under QEMU, exit status 0" log

mk >log 2>&1 && ! grep -q 'bcastgen\|gcc' log
check $? "a second make does nothing" log

# A kernel's wrong result must show: change one expected value.
sed 's/20767, 21768,/20767, 21769,/' fw/main.c >main.c.new && ! cmp -s main.c.new fw/main.c
check $? "the test can change an expected value" log
mv main.c.new fw/main.c
mk -s run >out 2>&1
rc=$?
cp out log
[ $rc != 0 ] && grep -qx fail out && grep -q '^offset: fail$' out
check $? "with a wrong expected value: offset fails, the program says fail, exit status non-zero" log

echo "1..$n"
exit $status
