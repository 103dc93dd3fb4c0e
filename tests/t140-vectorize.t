#!/bin/sh
# t140-vectorize: gcc -O3 vectorizes the innermost loop of the loop nests
# for same shapes, a row broadcast and a channel bias (-fopt-info-vec),
# and, because the kernel's pointers are restrict, without a run-time
# check that they do not overlap: no loop is "versioned for
# vectorization because of possible aliasing". The same kernels with
# restrict taken away (-DBC_RESTRICT=, which the header then leaves
# alone) must fail that check: it guards restrict. Streamed kernels of
# ops that choose between values (NaN max, where, f16): the loop that
# computes a line is vectorized at -O2 and -O3 (BC_LINE_LOOP keeps it a
# loop), and for the f32 ones is not at -O3 when the pragma is taken
# away (-DBC_LINE_LOOP_OFF); the f16 line, 32 elements, stays a loop.
# A kernel's asks of gcc (BC_OPTIMIZE) all take effect together: a block
# in a loop shorter than a vector is not loop-vectorized, its loops are
# aligned, and a fused expression's multiply and add stay apart under
# gcc's GNU mode, with loops aligned too.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null; then
	echo "1..0 # SKIP gcc is not installed"
	exit 0
fi

# report FILE FLAGS...: gcc's report of the loops it vectorized in the
# kernel FILE, compiled with FLAGS, to info; false if it does not compile.
report() {
	file=$1
	shift
	gcc -std=c99 -fopt-info-vec-optimized "$@" -I"$TESTS/../runtime" \
		-c "$file" -o /dev/null 2>info
}

# vectorized FILE [FLAGS...]: true if gcc -O3 vectorizes a loop of FILE
# and none needed an aliasing check.
vectorized() {
	file=$1
	shift
	report "$file" -O3 "$@" || return 1
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

# line FILE FLAGS...: true if the loop after BC_LINE_LOOP in FILE is
# among those gcc vectorizes with FLAGS
line() {
	at=$(($(grep -n 'BC_LINE_LOOP$' "$1" | head -n 1 | cut -d: -f1) + 1))
	report "$@" || return 1
	grep -q "^$1:$at:.*loop vectorized" info
}
while IFS='|' read -r name control args; do
	fresh
	# shellcheck disable=SC2086
	"$GEN" -o "$name.c" --stream on $args 2>info
	for flags in "-O3" "-O3 -march=x86-64-v3" "-O2"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		if line "$name.c" $flags; then
			echo "ok $n - $name: $args, gcc $flags: the line's loop is vectorized"
		else
			echo "not ok $n - $name: $args, gcc $flags: the line's loop is vectorized"
			sed 's/^/# /' info | head -n 20
			status=1
		fi
	done
	[ "$control" = control ] || continue
	n=$((n + 1))
	if line "$name.c" -O3 -DBC_LINE_LOOP_OFF; then
		echo "not ok $n - $name: without BC_LINE_LOOP, gcc -O3 does not vectorize it"
		status=1
	else
		echo "ok $n - $name: without BC_LINE_LOOP, gcc -O3 does not vectorize it"
	fi
done <<EOF_CASES
max_nan|control|--op maximum x=1024,1024 y=1024
where|control|--expr where(x>y,x,y) x=1024,1024 y=1024
max_f16||--op maximum --dtype f16 x=1024,1024 y=1024
EOF_CASES
# asks NAME TEST ARGS: gcc -O3 -march=x86-64-v3 -S of the kernel of ARGS
# for the x86-64-v3 row passes the shell test TEST on its report (info)
# and assembly (NAME.s)
asks() {
	fresh
	n=$((n + 1))
	name=$1 test=$2
	shift 2
	if "$GEN" -o "$name.c" --target x86-64-v3 "$@" 2>info &&
	   gcc -std=gnu11 -O3 -march=x86-64-v3 -fopt-info-vec-optimized -I"$TESTS/../runtime" \
		-S "$name.c" -o "$name.s" 2>>info && eval "$test"; then
		echo "ok $n - $name: $* ($(grep '^BC_OPTIMIZE' "$name.c")): $test"
	else
		echo "not ok $n - $name: $* ($(grep '^BC_OPTIMIZE' "$name.c")): $test"
		sed 's/^/# /' info | head -n 20
		status=1
	fi
}
asks slp_only '! grep -q "loop vectorized" info && grep -q "p2align 5" slp_only.s' x=64,3,1,5,7 y=3,4,1,7
asks fused '! grep -q vfmadd fused.s && grep -q "p2align 5" fused.s' --expr 'x*y + z' x=64,64 y=64 z=64,1
echo "1..$n"
exit $status
