#!/bin/sh
# Check the runtime headers (runtime/bc.h, bc_math.h, bc_ref.h) against
# NumPy: see tests/runtime_check.py.  Needs gcc, and GEN for its op
# table (which helper each op has).
dir=$(dirname "$0")
GEN=${GEN:-build/bcastgen}
if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
	echo "1..0 # SKIP /usr/bin/python3 with numpy not available"
	exit 0
fi
if ! command -v gcc >/dev/null 2>&1; then
	echo "1..0 # SKIP gcc not installed"
	exit 0
fi
if [ ! -x "$GEN" ]; then
	echo "1..0 # SKIP no bcastgen binary at $GEN: run make first"
	exit 0
fi
exec /usr/bin/python3 "$dir/runtime_check.py" "$GEN"
