#!/bin/sh
# t200-examples: build and run every examples/NAME: generate its kernel
# from examples/NAME/args, compile it with main.c (-Werror), run it, and
# compare the output with examples/NAME/expected. (The projects that
# generate their kernels in their own build are t410's.) Then make
# demo's script: the commands it prints are the ones it runs.
. "$(dirname "$0")/lib.sh"

top="$TESTS/.."
n=0 status=0
for dir in "$top"/examples/*/; do
	[ -f "$dir/args" ] || continue	# the build projects: t410
	name=$(basename "$dir")
	fresh
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

# make demo's script prints each command it runs after "$ ": run the
# printed lines in this shell, from where the demo ran and with what it
# made removed, and they must print the same, command for command.
fresh
here=$PWD
n=$((n + 1))
if sh "$top/examples/demo.sh" "$GEN" "$here/demo" >demo.out 2>&1; then
	rm -rf "$here/demo"
	grep '^\$ ' demo.out | cut -c 3- >commands
	k=0
	while IFS= read -r line; do
		[ $k = 0 ] || echo
		k=$((k + 1))
		printf '$ %s\n' "$line"
		eval "$line" </dev/null
	done <commands >replay.out 2>&1
	cd "$here" || exit 1
	diff -u demo.out replay.out >log
	rc=$?
	[ "$k" -ge 5 ] || { echo "only $k commands printed"; rc=1; } >>log
	if [ $rc = 0 ]; then
		echo "ok $n - make demo: its $k printed commands, run, print what the demo printed"
	else
		echo "not ok $n - make demo: its printed commands, run, print what the demo printed"
		sed 's/^/# /' log | head -n 40
		status=1
	fi
else
	echo "not ok $n - make demo: examples/demo.sh runs"
	sed 's/^/# /' demo.out | tail -n 20
	status=1
fi
echo "1..$n"
exit $status
