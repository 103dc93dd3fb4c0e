#!/bin/sh
# t920-fuzz-findings: what fuzzing found in the generator, replayed
# through a spec (the generator's strings then live on the heap, where
# AddressSanitizer sees a read past their end) against the build of make
# asan: the documented exit status and message, no signal, no sanitizer
# report, nothing written.
. "$(dirname "$0")/lib.sh"
GEN=${GEN_ASAN:-$(dirname "$GEN")/asan/bcastgen}
if [ ! -x "$GEN" ]; then
	echo "1..0 # SKIP no sanitizer build at $GEN: run make asan"
	exit 0
fi
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1

n=0 status=0
# Each line: exit status | the spec | the first line of stderr.
while IFS='|' read -r want spec msg; do
	n=$((n + 1))
	mkdir "case$n" && cd "case$n" || exit 1
	printf '%b\n' "$spec" >s.lua
	"$GEN" s.lua -o k.c >out 2>err
	rc=$?
	got=$(head -n 1 err)
	rm out err s.lua
	left=$(ls -A)
	cd .. || exit 1
	label=$spec
	if [ "$rc" = "$want" ] && [ "$got" = "$msg" ] && [ -z "$left" ]; then
		echo "ok $n - $label"
	else
		echo "not ok $n - $label"
		echo "#   want (exit $want): $msg"
		echo "#   got  (exit $rc): $got"
		status=1
	fi
done <<'EOF2'
1|kernel "k" { expr = "x+1e", "x=3" }|s.lua:1: error: kernel 'k': expr:1:3: bad number '1e'
1|kernel "k" { expr = "x+1.5E", "x=3" }|s.lua:1: error: kernel 'k': expr:1:3: bad number '1.5E'
EOF2
# A spec's time is bounded: a cheap loop calling an expensive C function
# (string.rep of 4 KiB, 100 million times) stays within the instruction
# limit, so the processor-time limit (10 s) stops it.
fresh
n=$((n + 1))
printf 'for i = 1, 1e9 do local s = string.rep("x", 4095) end\n' >slow.lua
timeout 60 "$GEN" slow.lua -o k.c >out 2>err
rc=$?
if [ "$rc" = 1 ] && [ ! -e k.c ] && grep -q "runs too long" err; then
	echo "ok $n - a loop of string.rep stops at the time limit"
else
	echo "not ok $n - a loop of string.rep stops at the time limit"
	echo "#   got exit $rc: $(head -n 1 err)"
	status=1
fi
echo "1..$n"
exit $status
