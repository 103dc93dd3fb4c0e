#!/bin/sh
# t100-explain: the --explain walkthrough of the seeds' examples against
# the golden files tests/explain/*.txt, whose first line is the command
# (`make regen` rewrites them; review the change with git diff), and
# the examples README.md shows against what bcastgen prints: its output,
# its listings of generated code and its list of spec fields.
. "$(dirname "$0")/lib.sh"
. "$TESTS/explain.sh"

for f in "$TESTS"/explain/*.txt; do
	fresh
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
while [ -f "$SCRATCH/cmd$i" ]; do
	args=$(cat "$SCRATCH/cmd$i")
	case $args in *'>'*|*'|'*|*'-o '*|*.lua*) i=$((i + 1)); continue ;; esac
	fresh "want$i"
	eval "set -- $args"
	"$GEN" "$@" >out 2>&1
	if [ -f "$SCRATCH/from$i" ]; then
		from=$(cut -c 6- "$SCRATCH/from$i")
		awk -v from="$from" '$0 == from { on = 1 } on' out | head -n "$(wc -l <"want$i")" >got
	else
		mv out got
	fi
	diff -u "want$i" got >diff
	check $? "README: bcastgen $args" diff
	i=$((i + 1))
done

# The README's listings of generated code: a block whose line
# "$ bcastgen -o FILE.c ARGS" is followed by a ```c block is, byte for
# byte, the lines of the FILE.c that command writes, from the one equal
# to the listing's first line on.
awk -v dir="$SCRATCH" '
	/^```/ && inside { inside = 0; if (k) { close(dir "/listing" k); k = 0 } next }
	/^```c$/ && want { inside = 1; k = want; want = 0; printf "" >(dir "/listing" k); next }
	/^```/ { inside = 1; want = 0; next }
	inside && k { print >(dir "/listing" k); next }
	inside && /^\$ bcastgen -o [^ ]*\.c / { want = ++m; print substr($0, 12) >(dir "/gen" want) }
' "$TESTS/../README.md"
i=1 listings=0
while [ -f "$SCRATCH/gen$i" ]; do
	args=$(cat "$SCRATCH/gen$i")
	if [ -f "$SCRATCH/listing$i" ]; then
		fresh "listing$i"
		listings=$((listings + 1))
		mkdir "listing.d$i"
		eval "set -- $args"
		(cd "listing.d$i" && "$GEN" "$@") >diff 2>&1
		file=listing.d$i/$2
		first=$(head -n 1 "listing$i")
		awk -v first="$first" '$0 == first { on = 1 } on' "$file" 2>>diff |
			head -n "$(wc -l <"listing$i")" >got
		diff -u "listing$i" got >>diff
		check $? "README: the listing after 'bcastgen $args' is what it writes" diff
	fi
	i=$((i + 1))
done
fresh
[ "$listings" -gt 0 ]
check $? "README: at least one listing of generated code is checked ($listings)"

# The README's list of spec fields is the table of fields, in its
# order: the rows of gen/fields.c's fields[].
fresh
sed -n '/ fields\[\] = {$/,/^};$/s/^\t\t\.name = "\([a-z_]*\)".*/\1/p' "$TESTS/../gen/fields.c" |
	tr '\n' ' ' | sed 's/ $//' >fields.want
tr '\n' ' ' <"$TESTS/../README.md" |
	sed -n 's/.*named as the long options with `_` for `-`: `\([a-z_ ]*\)`.*/\1/p' >fields.got
{ echo "README: $(cat fields.got)"; echo "fields.c: $(cat fields.want)"; } >diff
[ -s fields.want ] && [ "$(cat fields.got)" = "$(cat fields.want)" ]
check $? "README: its list of spec fields is gen/fields.c's table, in order" diff

# --explain's depth: a page's default is rule, and a page shows the
# kernel's section (id="kernel") only at kernel; its text, the same as
# the text's at that depth (unwrapped), ends where that depth ends.
fresh
ok=0
for depth in "" rule strides kernel; do
	# shellcheck disable=SC2086
	"$GEN" --explain $depth --format html x=2,1 y=3 >page 2>>diag || ok=1
	# shellcheck disable=SC2086
	"$GEN" --explain ${depth:-rule} --wrap 0 x=2,1 y=3 >text 2>>diag || ok=1
	has_kernel=0 has_strides=0 has_loops=0
	grep -q 'id="kernel"' page && has_kernel=1
	grep -q 'A stride is how many' page && has_strides=1
	grep -q 'The kernel walks the result' page && has_loops=1
	echo "depth '${depth:-(default)}': kernel $has_kernel, strides $has_strides, loops $has_loops" >>diag
	case ${depth:-rule} in
	rule) [ "$has_kernel$has_strides$has_loops" = 000 ] || ok=1 ;;
	strides) [ "$has_kernel$has_strides$has_loops" = 010 ] || ok=1 ;;
	kernel) [ "$has_kernel$has_strides$has_loops" = 111 ] || ok=1 ;;
	esac
	grep -q "$(tail -n 1 text | sed 's/[][\.*^$]/\\&/g')" page || { echo "the page lacks the text's last line" >>diag; ok=1; }
done
check $ok "--explain's depth on a page: rule by default, strides, kernel (the kernel's section only there)" diag

# Where lines break: never inside a word, a number or a Chinese run,
# nor before closing punctuation (tests/explain/breaks.py reads it off
# the text), in every golden text and lesson, and in each at --wrap 24
# and 40 (in both languages: the command's --lang, and the other); and
# in the lessons' pages, whose prose the browser breaks, a number is
# held to its word by no-break spaces.
fresh
mkdir texts
for f in "$TESTS"/explain/*.txt "$TESTS"/../examples/teaching/*/*.txt; do
	cmd=$(head -n 1 "$f")
	case $cmd in *--wrap*|*--explain*) ;; *) continue ;; esac
	case $cmd in *"--lang zh"*) other=en ;; *) other=zh ;; esac
	name=$(echo "$f" | sed 's|.*/\([^/]*/[^/]*\)$|\1|; s|/|-|')
	cp "$f" "texts/$name"
	for width in 24 40; do
		# shellcheck disable=SC2086
		"$GEN" ${cmd#\$ bcastgen } --wrap $width >"texts/$name.$width" 2>/dev/null
		# shellcheck disable=SC2086
		"$GEN" ${cmd#\$ bcastgen } --wrap $width --lang $other >"texts/$name.$width.$other" 2>/dev/null
	done
done
for f in "$TESTS"/../examples/teaching/*/*.html; do
	cp "$f" "texts/$(basename "$(dirname "$f")")-$(basename "$f")"
done
/usr/bin/python3 "$TESTS/explain/breaks.py" texts/* >diag 2>&1
[ ! -s diag ]
check $? "lines break only between words, numbers and runs of Chinese, never before closing punctuation" diag

echo "1..$n"
exit $status
