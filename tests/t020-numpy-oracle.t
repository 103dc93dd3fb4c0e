#!/bin/sh
# Compare bcastgen with numpy.broadcast_shapes on random shape sets.
dir=$(dirname "$0")
GEN=${GEN:-build/bcastgen}
if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
    echo "1..0 # SKIP /usr/bin/python3 with numpy not available"
    exit 0
fi
exec /usr/bin/python3 "$dir/numpy_oracle.py" "$GEN"
