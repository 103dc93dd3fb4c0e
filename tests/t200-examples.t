#!/bin/sh
# t200-examples: build and run every examples/NAME: generate its kernel
# from examples/NAME/args, compile it with main.c (-Werror), run it, and
# compare the output with examples/NAME/expected. (The projects that
# generate their kernels in their own build are t410's.)
. "$(dirname "$0")/lib.sh"

top="$TESTS/.."
n=0 status=0
for dir in "$top"/examples/*/; do
	[ -f "$dir/args" ] || continue	# the build projects: t410
	name=$(basename "$dir")
	n=$((n + 1))
	mkdir "$name"
	# the kernel's files are named after it: --name NAME in args
	kernel=$(sed -n 's/.*--name \([A-Za-z_0-9]*\).*/\1/p' "$dir/args")
	# shellcheck disable=SC2046
	if "$GEN" -o "$name/$kernel.c" $(cat "$dir/args") >log 2>&1 &&
	   cc -std=c99 -O2 -Wall -Wextra -Wpedantic -Wconversion -Werror \
		-I"$top/runtime" -I"$name" -o "$name/run" "$dir/main.c" "$name/$kernel.c" \
		-lm >log 2>&1 &&
	   "./$name/run" >out 2>log && diff -u "$dir/expected" out >log; then
		echo "ok $n - examples/$name"
	else
		echo "not ok $n - examples/$name"
		sed 's/^/# /' log
		status=1
	fi
done
echo "1..$n"
exit $status
