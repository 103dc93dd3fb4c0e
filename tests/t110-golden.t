#!/bin/sh
# t110-golden: kernels for the seeds' examples against the golden files
# tests/golden/NAME.{c,h} (NAME.args holds the options and operands), and
# each compiled without a warning by gcc and clang as C99 and by g++ as
# C++11. `make regen` rewrites the goldens; review them with git diff.
. "$(dirname "$0")/lib.sh"
. "$TESTS/golden.sh"

CFLAGS_C="-std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror -O2 -c"
CFLAGS_CXX="-x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -O2 -c"
for args in "$TESTS"/golden/*.args; do
	name=$(basename "$args" .args)
	fresh
	golden_run "$args" "$name" >gen.out 2>&1
	check $? "$name: generated" gen.out
	for ext in c h; do
		if [ -f "$TESTS/golden/$name.$ext" ]; then
			diff -u "$TESTS/golden/$name.$ext" "$name.$ext" >diff 2>&1
			check $? "$name.$ext matches the golden file" diff
		else
			echo "missing golden file tests/golden/$name.$ext: run make regen" >diff
			check 1 "$name.$ext matches the golden file" diff
		fi
	done
	if [ -n "$BCASTGEN_SANITIZED" ]; then
		for what in "with gcc -Werror" "with clang -Werror" "as C++11 with g++ -Werror"; do
			n=$((n + 1)); echo "ok $n # skip $name.c compiles $what: checked by t110 on the same bytes"
		done
		continue
	fi
	for cc in gcc clang; do
		if command -v $cc >/dev/null; then
			# shellcheck disable=SC2086
			$cc $CFLAGS_C -I"$TESTS/../runtime" -I. -o "$name.o" "$name.c" >cc.out 2>&1
			check $? "$name.c compiles with $cc -Werror" cc.out
		else
			n=$((n + 1)); echo "ok $n # skip $cc is not installed"
		fi
	done
	if command -v g++ >/dev/null; then
		# shellcheck disable=SC2086
		g++ $CFLAGS_CXX -I"$TESTS/../runtime" -I. -o "$name.o" "$name.c" >cc.out 2>&1
		check $? "$name.c compiles as C++11 with g++ -Werror" cc.out
	else
		n=$((n + 1)); echo "ok $n # skip g++ is not installed"
	fi
	# No division or modulo on an index anywhere in a kernel.
	grep -nE '\bi[0-9]+ *[/%]|[/%] *\(?i[0-9]+\b' "$name.c" >idx 2>&1
	[ -s idx ] && r=1 || r=0
	check $r "$name.c divides no index" idx
done
echo "1..$n"
exit $status
