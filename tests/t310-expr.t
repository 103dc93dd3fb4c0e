#!/bin/sh
# t310-expr: NumPy differential test of bcastgen --expr: a seeded corpus
# of random, type-correct expressions (every operator, function, cast and
# dtype, all strategies), generated with bcastgen -o, compiled with strict
# warnings and again with ASan+UBSan, run on edge values and compared
# with NumPy; plus fixed cases, rejected expressions and a hoisting check.
# See expr_oracle.py.
dir=$(dirname "$0")
GEN=${GEN:-build/bcastgen}
if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
	echo "1..0 # SKIP /usr/bin/python3 with numpy not available"
	exit 0
fi
if [ ! -x "$GEN" ]; then
	echo "1..0 # SKIP no bcastgen binary at $GEN: run make first"
	exit 0
fi
if ! command -v gcc >/dev/null 2>&1; then
	echo "1..0 # SKIP gcc not found"
	exit 0
fi
exec /usr/bin/python3 "$dir/expr_oracle.py" "$GEN"
