#!/bin/sh
# t140-vectorize: gcc -O3 vectorizes the innermost loop of the loop nests
# for same shapes, a row broadcast and a channel bias (-fopt-info-vec),
# and, because the kernel's pointers are restrict, without a run-time
# check that they do not overlap: no loop is "versioned for
# vectorization because of possible aliasing". The same kernels with
# restrict taken away (-DBC_RESTRICT=, which the header then leaves
# alone) must fail that check: it guards restrict.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null; then
	echo "1..0 # SKIP gcc is not installed"
	exit 0
fi

# vectorized FILE: gcc -O3's report on the kernel FILE (and any FLAGS
# after it) goes to info; true if a loop is vectorized and none needed an
# aliasing check.
vectorized() {
	file=$1
	shift
	gcc -std=c99 -O3 -fopt-info-vec-optimized "$@" -I"$TESTS/../runtime" \
		-c "$file" -o /dev/null 2>info || return 1
	grep -q 'loop vectorized' info && ! grep -q 'versioned for vectorization because of possible aliasing' info
}

n=0 status=0
while IFS='|' read -r name args; do
	fresh
	n=$((n + 1))
	# shellcheck disable=SC2086
	if "$GEN" -o "$name.c" --strategy loops $args 2>info && grep -q 'BC_RESTRICT' "$name.c" &&
	   vectorized "$name.c"; then
		echo "ok $n - $name: $args: vectorized, no aliasing check"
	else
		echo "not ok $n - $name: $args: vectorized, no aliasing check"
		sed 's/^/# /' info
		status=1
	fi
	n=$((n + 1))
	if vectorized "$name.c" -DBC_RESTRICT=; then
		echo "not ok $n - $name: without restrict, the check above fails"
		sed 's/^/# /' info
		status=1
	else
		echo "ok $n - $name: without restrict, the check above fails"
	fi
done <<EOF_CASES
same_shape|x=64,256 y=64,256
row|x=64,256 y=256
bias|x=8,64,56,56 b=64,1,1
bias_i32|--dtype i32 x=8,64,56,56 b=64,1,1
EOF_CASES
echo "1..$n"
exit $status
