#!/bin/sh
# t140-vectorize: gcc -O3 vectorizes the innermost loop of the loop nests
# for same shapes, a row broadcast and a channel bias (-fopt-info-vec).
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null; then
	echo "1..0 # SKIP gcc is not installed"
	exit 0
fi
n=0 status=0
while IFS='|' read -r name args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$GEN" -o "$name.c" --strategy loops $args &&
	gcc -std=c99 -O3 -fopt-info-vec-optimized -I"$TESTS/../runtime" -c "$name.c" 2>info
	if grep -q 'loop vectorized' info; then
		echo "ok $n - $name: $args"
	else
		echo "not ok $n - $name: $args"
		sed 's/^/# /' info
		status=1
	fi
done <<EOF_CASES
same_shape|x=64,256 y=64,256
row|x=64,256 y=256
bias|x=8,64,56,56 b=64,1,1
bias_i32|--dtype i32 x=8,64,56,56 b=64,1,1
EOF_CASES
echo "1..$n"
exit $status
