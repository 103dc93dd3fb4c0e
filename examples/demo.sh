#!/bin/sh
# demo.sh BCASTGEN [DIR]: the main job on a built-in example from the
# seeds: explain a broadcast, generate its kernel, show it, compile it
# and run it. Everything is made in DIR (default build/demo). Each
# command is printed, after "$ ", exactly as it then runs, from the top
# of the source tree: a line to paste into a shell there.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
gen=${1:-build/bcastgen}
out=${2:-$top/build/demo}
# The binary and DIR as named from the top of the tree.
case $gen in /*) ;; */*) gen=$(cd "$(dirname "$gen")" && pwd)/$(basename "$gen") ;; esac
case $out in /*) ;; *) mkdir -p "$out" && out=$(cd "$out" && pwd) ;; esac
case $gen in "$top"/*) gen=${gen#"$top"/} ;; esac
case $out in "$top"/*) out=${out#"$top"/} ;; esac

# quote WORD: WORD as the shell reads it back: as it is when it has no
# character the shell treats specially, else in single quotes.
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./=,:+-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}

# run COMMAND...: print "$ COMMAND" with its words quoted, then run it;
# a blank line before each command but the first.
first=1
run() {
	[ -n "$first" ] || echo
	first=
	printf '$'
	for word in "$@"; do
		printf ' %s' "$(quote "$word")"
	done
	echo
	"$@"
}

[ "$(pwd)" = "$top" ] || run cd "$top"
run mkdir -p "$out"
run "$gen" --explain x=4,3,32,32 b=3,1,1
# shellcheck disable=SC2046
run "$gen" -o "$out/bias_add.c" $(cat examples/bias-add/args)
run cat "$out/bias_add.c"
run cc -std=c99 -O2 -Wall -Wextra -Werror -Iruntime -I"$out" \
	-o "$out/bias_add" examples/bias-add/main.c "$out/bias_add.c"
run "$out/bias_add"
