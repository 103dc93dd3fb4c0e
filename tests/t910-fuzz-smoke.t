#!/bin/sh
# t910-fuzz-smoke: each libFuzzer harness of make fuzz replays its
# committed corpus (tests/fuzz/NAME, the findings of past runs included)
# and fuzzes a few hundred inputs more, from a fixed seed so that the run
# is the same every time, under ASan, UBSan and leak detection: no crash,
# leak, hang or sanitizer report. The inputs of
# known bugs not fixed yet (tests/fuzz/known/NAME) are replayed as TODO,
# a hang cut at 5 s.
. "$(dirname "$0")/lib.sh"
FUZZ=$(dirname "$GEN")/fuzz

if [ ! -x "$FUZZ/fuzz_pipeline" ]; then
	if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	    | ${FUZZ_CC:-clang} -x c -fsanitize=fuzzer - -o /dev/null >/dev/null 2>&1; then
		echo "1..0 # SKIP no harnesses in $FUZZ: run make fuzz-build"
	else
		echo "1..0 # SKIP clang's libFuzzer runtime is missing (Debian: libclang-rt-14-dev; make deps installs it)"
	fi
	exit 0
fi

n=0 status=0
# Each: the harness, and the inputs to fuzz after the corpus (about 2 s).
for run in shape:3000 expr:3000 spec:60 pipeline:400; do
	name=${run%:*}
	fresh
	n=$((n + 1))
	start=$(date +%s)
	FUZZ_WORK=$PWD sh "$TESTS/fuzz/run.sh" "$FUZZ" "$name" 60 -seed=1 \
		-runs="${run#*:}" >"$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$name.log")
	if [ "$rc" = 0 ]; then
		echo "ok $n - fuzz_$name: $runs runs in $(($(date +%s) - start)) s, no finding"
	else
		echo "not ok $n - fuzz_$name: exit $rc"
		grep -E 'ERROR|SUMMARY|#[0-9]+ 0x|Test unit written' "$name.log" | head -n 30 | sed 's/^/# /'
		status=1
	fi
done
for f in "$TESTS"/fuzz/known/*/*; do
	[ -f "$f" ] || continue
	fresh
	n=$((n + 1))
	name=$(basename "$(dirname "$f")")
	if "$FUZZ/fuzz_$name" -timeout=5 -close_fd_mask=2 "$f" >known.log 2>&1; then
		echo "ok $n - fuzz_$name on known bug $(basename "$f") # TODO fixed: move it to tests/fuzz/$name"
	else
		echo "not ok $n - fuzz_$name on known bug $(basename "$f") # TODO not fixed yet"
	fi
done
echo "1..$n"
exit $status
