#!/bin/sh
# t300-kernels: NumPy differential test of the emitted kernels: a seeded
# corpus of kernels (every op, dtype and strategy), generated with
# bcastgen -o, compiled with strict warnings and again with ASan+UBSan,
# run on edge values and compared with NumPy. See kernels_oracle.py.
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
exec /usr/bin/python3 "$dir/kernels_oracle.py" "$GEN"
