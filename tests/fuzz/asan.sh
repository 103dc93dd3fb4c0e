#!/bin/sh
# asan.sh TEST: run the suite's TEST (t030-bad-input.t, ...) against the
# generator built with ASan and UBSan by make asan (build/asan/bcastgen,
# or $GEN_ASAN). A sanitizer report aborts, which the test sees as a
# signal. Leaks at exit are not checked here: on an error the generator
# exits without freeing, by design; the fuzzing harnesses (which free
# error paths) and t930's Valgrind runs look for leaks.
tests=$(cd "$(dirname "$0")/.." && pwd)
GEN=${GEN_ASAN:-$(dirname "${GEN:-build/bcastgen}")/asan/bcastgen}
if [ ! -x "$GEN" ]; then
	echo "1..0 # SKIP no sanitizer build at $GEN: run make asan"
	exit 0
fi
ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:$ASAN_OPTIONS
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:$UBSAN_OPTIONS
# Under the sanitizers a test checks the generator; what it would check
# of the generator's output that the plain run already checked (the
# compilers on files whose bytes it compared) it skips, saying so.
BCASTGEN_SANITIZED=1
export GEN ASAN_OPTIONS UBSAN_OPTIONS BCASTGEN_SANITIZED
exec sh "$tests/$1"
