#!/bin/sh
# t100-explain: the --explain walkthrough of the seeds' examples against
# the golden files tests/explain/*.txt, whose first line is the command
# (`make regen` rewrites them; review the change with git diff), and
# the examples README.md shows against what bcastgen prints.
. "$(dirname "$0")/lib.sh"
. "$TESTS/explain.sh"

for f in "$TESTS"/explain/*.txt; do
	explain_run "$f" >actual
	diff -u "$f" actual >diff
	check $? "$(basename "$f" .txt)" diff
done

# The README's examples: in each block of it, a line "$ bcastgen ARGS"
# and the lines after it up to the next "$ " are what that command
# prints (commands that write files or pipe are left to other tests). A
# block that starts with "第" is the part of the output from that line
# on of the command in backquotes just before the block.
awk -v dir="$SCRATCH" '
	/^```/ { inside = !inside; k = 0; next }
	!inside && /`bcastgen [^`]*`/ { last = $0; sub(/.*`bcastgen /, "", last); sub(/`.*/, "", last) }
	inside && /^\$ bcastgen / { k = ++m; print substr($0, 12) >(dir "/cmd" k); printf "" >(dir "/want" k); next }
	inside && k == 0 && /^第/ { k = ++m; print last >(dir "/cmd" k); print "from " $0 >(dir "/from" k) }
	inside && k > 0 && !/^  \.\.\.$/ { print >(dir "/want" k) }
' "$TESTS/../README.md"
i=1
while [ -f "cmd$i" ]; do
	args=$(cat "cmd$i")
	case $args in *'>'*|*'|'*|*'-o '*|*.lua*) i=$((i + 1)); continue ;; esac
	eval "set -- $args"
	"$GEN" "$@" >out 2>&1
	if [ -f "from$i" ]; then
		from=$(cut -c 6- "from$i")
		awk -v from="$from" '$0 == from { on = 1 } on' out | head -n "$(wc -l <"want$i")" >got
	else
		mv out got
	fi
	diff -u "want$i" got >diff
	check $? "README: bcastgen $args" diff
	i=$((i + 1))
done
echo "1..$n"
exit $status
