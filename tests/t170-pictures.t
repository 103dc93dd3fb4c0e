#!/bin/sh
# t170-pictures: the picture and the page of --explain --format svg|html.
#
# 1. Each example of the seeds (the first line of tests/explain/*.txt is
#    its command; some end in an error, and still write their picture),
#    and some hostile shapes, as svg and as html, in en and in zh: the
#    exit status is the text's, the output is well-formed XML (Python's
#    parser, in tests/pictures/render.py, which runs these; the page is
#    polyglot XHTML), stands alone (no script, nothing to
#    fetch), is in the language asked for (its lang, en or zh-CN; its
#    fonts name the common CJK fonts), is bounded in size, is the same
#    bytes when rendered again, and, a picture, has every text at least
#    4.5 times as light or dark as what is under it (WCAG AA, measured
#    by tests/pictures/contrast.py).
# 2. Every lesson's page and picture, and three seed examples', seen in
#    headless Chromium in windows of 1200x900 and 1920x1080, each
#    screenshot kept: the page parses (also as XHTML), the picture is at
#    its natural size, not cut off, and its ink fills its box, in colour.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
for tool in "$CHROMIUM" "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool is not installed (make deps installs chromium and libxml2-utils)"
		exit 0
	fi
done


# job NAME FORMAT LANG WANT_RC ARGS...: a line of jobs for
# tests/pictures/render.py, which renders each twice and checks it (see
# 1. above).
job() {
	printf '%s\t%s\t%s\t%s\t' "$1" "$2" "$3" "$4"
	shift 4
	printf '%s\037' "$@"
	printf '\n'
}

# The contrast measure itself, on known colours.
fresh
"$PY" "$TESTS/pictures/contrast.py" --self-test >diag 2>&1
check $? "contrast.py: WCAG's contrast ratios and what is under a text, on known values" diag
mkdir -p "$SCRATCH/pictures"

# 1. The seeds' examples, each once in each language (a golden file's
# command may name its language: that is left out; a picture lists no
# elements and wraps no text, so --elements and --wrap are left out of
# its command, and so is the error of too many elements).
seen='|'
for f in "$TESTS"/explain/*.txt; do
	cmd=$(head -n 1 "$f" | sed 's/ --lang [a-z]*//')
	case $seen in *"|$cmd|"*) continue ;; esac
	seen="$seen$cmd|"
	name=$(basename "$f" .txt)
	golden_rc=$(tail -n 1 "$f" | sed -n 's/^\[exit \([0-9]*\)\]$/\1/p')
	for format in svg html; do
		args=${cmd#\$ bcastgen } rc=${golden_rc:-0}
		if [ $format = svg ] || grep -q -- '--elements lists at most' "$f"; then
			case $args in *--elements*) args=$(echo "$args" | sed 's/ *--elements//') rc=0 ;; esac
		fi
		# a picture has no text to wrap
		[ $format = svg ] && args=$(echo "$args" | sed 's/ *--wrap [0-9]*//')
		for lang in en zh; do
			# shellcheck disable=SC2086
			job "$name" "$format" "$lang" "$rc" $args
		done
	done
done >"$SCRATCH/jobs"

# ... and hostile ones: EXIT ARGS, one a line.
(
many=$(i=0; while [ $i -lt 200 ]; do printf 'o%d=2,%d ' $i $((i % 2 + 1)); i=$((i + 1)); done)
rank64=$(i=0; while [ $i -lt 64 ]; do printf '%d,' $((i % 3 + 1)); i=$((i + 1)); done)
while read -r want args; do
	for format in svg html; do
		for lang in en zh; do
			eval "set -- $args"
			job "hostile: $(printf '%s' "$args" | cut -c 1-50)" "$format" "$lang" "$want" --explain "$@"
		done
	done
done <<EOF
0 x=2,3,4,5,6 y=4,1,1
0 x=2,3,4,5,6 y=3,1,5,6
0 x=1000,1000 y=1000,1
0 x=7,1000 y=1000
0 x=3,0,2 y=1,2
0 x=0 y=1,1
0 s= t=
0 a=2,1 b=3,1,1 c=1 d=4,1,1,1 e=2
1 x=2,1,4 y=3,2
1 --axis 2 x=2,3 y=1
1 --axis 0 a=2 b=2 c=2
0 amp=2,3 lt=3 gt=1,3 quot=2,1
0 --expr 'x < y' x=2,3 y=3
0 --expr 'where(a > 0 && b < 2, a, b)' a=4,1 b=3
1 x=7,1,9 y=1000,1 --inplace
0 $many
0 x=${rank64%,} y=3
1 x=${rank64%,} y=4,4
EOF
) >>"$SCRATCH/jobs"
"$PY" "$TESTS/pictures/render.py" "$GEN" "$SCRATCH/pictures" <"$SCRATCH/jobs" >"$SCRATCH/rendered" 2>&1
tab=$(printf '\t')
while IFS=$tab read -r verdict name why; do
	echo "$why" >diag
	[ "$verdict" = OK ]
	check $? "$name" diag
done <"$SCRATCH/rendered"
[ "$(wc -l <"$SCRATCH/rendered")" = "$(wc -l <"$SCRATCH/jobs")" ]
check $? "render.py judged every rendering ($(wc -l <"$SCRATCH/jobs"))" "$SCRATCH/rendered"

# Every picture drawn above, each text at least 4.5 times as
# light or dark as what is under it (WCAG AA).
fresh
"$PY" "$TESTS/pictures/contrast.py" "$SCRATCH"/pictures/*.svg >contrast 2>&1
rc=$?
grep -v ' texts, lowest ratio ' contrast | head -n 20 >diag
sort -t' ' -k6 -n contrast | grep ' texts, lowest ratio ' | head -n 1 >>diag
[ $rc = 0 ]
check $? "the $(ls "$SCRATCH/pictures" | wc -l) pictures above: every text's contrast at least 4.5:1" diag
fresh
for f in "$SCRATCH"/pictures/*.svg; do
	w=$(svg_size "$f" width)
	[ "${w:-0}" -gt 1000 ] && echo "$(basename "$f"): $w pixels wide: $(sed -n 's/^<title>\(.*\)<\/title>$/\1/p' "$f")"
done >diag
[ ! -s diag ]
check $? "the pictures above: none wider than 1000 pixels at its natural size" diag

# 2. In one headless Chromium (tests/pictures/browse.py), in windows of
# 1200x900 and 1920x1080: every lesson of examples/teaching, its page and
# its picture in both languages, and three seed examples' pages (also as
# XHTML) and pictures. A screenshot of each is kept in
# $BCASTGEN_O/lesson-shots for people to look at. Each parses; its
# picture is at least at its natural width, inside the window or
# scrolling in its own frame; the page does not scroll sideways; and the
# picture's box is inked, in colour, and filled to its edges.
fresh
cp -R "$TESTS/../examples/teaching" lessons
mkdir seeds
for example in seed000-larger-size:en seed001-channel-bias:zh seed000-axis-y3:en; do
	name=${example%:*} lang=${example#*:}
	cmd=$(head -n 1 "$TESTS/explain/$name.txt")
	for format in html svg; do
		# shellcheck disable=SC2086
		"$GEN" --format $format --lang "$lang" ${cmd#\$ bcastgen } >"seeds/$name.$format" 2>/dev/null
	done
	cp "seeds/$name.html" "seeds/$name.xhtml"
done
shots=$(build_dir)/lesson-shots
rm -rf "$shots"
files=$(ls lessons/*/*.html lessons/*/*.svg seeds/*)
# shellcheck disable=SC2086
HOME=$PWD timeout 600 "$PY" "$TESTS/pictures/browse.py" "$CHROMIUM" "$shots" 1200x900,1920x1080 \
	$files >seen 2>diag
echo "browse.py exit $?" >>diag
for size in 1200x900 1920x1080; do
	{ grep "^BAD .* $size" seen; cat diag; } >why
	[ "$(grep -c "^OK .* $size\$" seen)" = "$(echo "$files" | wc -l)" ] &&
		[ "$(ls "$shots"/*-"$size".png | wc -l)" = "$(echo "$files" | wc -l)" ]
	check $? "every lesson's page and picture (en, zh) and three seeds', seen in a $size window (a screenshot each): parsed, the picture at its natural size, not cut off, drawn inside its box, not blank" why
done

# The README's picture is what bcastgen draws now: its command is the
# README's, next to it.
fresh
: >diag
cmd=$(sed -n 's/^\$ \(bcastgen --explain --format svg .*\) >docs\/broadcast.svg$/\1/p' "$TESTS/../README.md")
echo "README's command: '$cmd'" >>diag
[ -n "$cmd" ] && "$GEN" ${cmd#bcastgen } >readme.svg && cmp readme.svg "$TESTS/../docs/broadcast.svg" >>diag 2>&1
check $? "docs/broadcast.svg, the README's picture, is what bcastgen draws" diag

echo "1..$n"
exit $status
