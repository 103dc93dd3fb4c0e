#!/bin/sh
# demo.sh BCASTGEN: the main job on a built-in example from the seeds:
# explain a broadcast, generate its kernel, show it, compile it and run
# it. Everything is made in build/demo.
set -e
gen=${1:-build/bcastgen}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
mkdir -p "$out"

echo "\$ bcastgen --explain x=4,3,32,32 b=3,1,1"
"$gen" --explain x=4,3,32,32 b=3,1,1
echo
echo "\$ bcastgen -o build/demo/bias_add.c $(cat "$top/examples/bias-add/args")"
# shellcheck disable=SC2046
"$gen" -o "$out/bias_add.c" $(cat "$top/examples/bias-add/args")
echo
echo "==> build/demo/bias_add.c"
cat "$out/bias_add.c"
echo
echo "\$ cc -std=c99 -O2 -Iruntime -Ibuild/demo examples/bias-add/main.c build/demo/bias_add.c"
cc -std=c99 -O2 -Wall -Wextra -Werror -I"$top/runtime" -I"$out" \
	-o "$out/bias_add" "$top/examples/bias-add/main.c" "$out/bias_add.c"
echo "\$ ./bias_add"
"$out/bias_add"
