#!/bin/sh
# t930-valgrind: Valgrind's memcheck on a few runs of the generator that
# between them go through every phase: a spec with a depfile, an --expr
# kernel, an unrolled kernel, --explain, and errors from an option,
# a shape, the broadcasting and a spec. No invalid read or
# write, no use of an uninitialised value, no block definitely lost; each
# run keeps its exit status.
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null; then
	echo "1..0 # SKIP valgrind is not installed (make deps installs it)"
	exit 0
fi
cp "$TESTS/fuzz/files/net.lua" .
printf 'kernel "a" { expr = "x + z", "x=3" }\n' >bad.lua
n=0 status=0
# Each line: exit status | arguments.
while IFS='|' read -r want args; do
	fresh net.lua bad.lua
	n=$((n + 1))
	# shellcheck disable=SC2086
	(set -f; valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "$GEN" $args >out 2>err)
	rc=$?
	if [ "$rc" = "$want" ]; then
		echo "ok $n - $args"
	else
		echo "not ok $n - $args: exit $rc, not $want"
		grep '^==' err | head -n 30 | sed 's/^/# /'
		status=1
	fi
done <<'EOF2'
0|net.lua -o net.c -M net.d
0|--expr=max(x*w+b,0) --dtype f16 x:f16=8,64 w=64 b=1 -o k.c
0|--strategy unroll --unroll-limit 24 --axis 1 x=2,1,4 y=3,1 -o u.c
0|--explain --axis 1 x=2,3,4,5 y=3
1|x=2,-3
1|-o k.c --out-shape 3,4 x=3
1|bad.lua -o b.c
EOF2
echo "1..$n"
exit $status
