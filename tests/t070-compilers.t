#!/bin/sh
# t070-compilers: whatever bcastgen accepts, gcc and clang compile with
# -Werror: the worst cases within the expression limits (long chains,
# deep calls, casts and ?:, n-ary ops), flattened through temporaries
# so that no statement nests past clang's bracket limit; NumPy checks
# the flattened values; nesting past the limit is one clear error. The
# worker is compilers.py; then the largest unroll accepted compiles.
. "$(dirname "$0")/lib.sh"
for cc in gcc clang /usr/bin/python3; do
	if ! command -v $cc >/dev/null 2>&1; then
		echo "1..0 # SKIP $cc not found"
		exit 0
	fi
done
/usr/bin/python3 "$TESTS/compilers.py" "$GEN" "$TESTS/../runtime"
