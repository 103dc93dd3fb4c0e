#!/bin/sh
# t220-teaching: examples/teaching as a teacher would use it: install
# bcastgen into a temporary prefix with a space in it, not in PATH, copy
# the folder, remove what its Makefile writes and write it again with the
# installed bcastgen, by the command its READMEs give (make
# BCASTGEN_MK=...); the makes after it, make run included, are given no
# BCASTGEN_MK. It
# must come out the same bytes as the committed files (else: make regen
# rewrites them), every picture and page well-formed XML, every kernel
# compiled with -Werror, the worked example's table NumPy's, and every
# file the lesson's READMEs link to there.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
PATH=$(path_without_bcastgen)
PY=/usr/bin/python3
for tool in xmllint cc "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool is not installed (make deps installs it)"
		exit 0
	fi
done
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "1..0 # SKIP no NumPy for $PY (make deps installs python3-numpy)"
	exit 0
fi

# The walkthrough, one group: each check goes on from the ones before it.
fresh
PREFIX="$SCRATCH/pre fix"
export PREFIX
install_at "$PREFIX" >log 2>&1
check $? "make install PREFIX='.../pre fix'" log

cp -r "$top/examples/teaching" lesson
mk() { make --no-print-directory -C lesson "$@"; }
echo mine >lesson/row/notes.txt
touch lesson/stretch/en.txt.tmp
mk -s clean >log 2>&1 &&
	[ "$(ls lesson)" = "$(printf 'Makefile\nREADME.md\nREADME.zh.md\nrow\nshow.c')" ] &&
	[ "$(ls lesson/row)" = notes.txt ]
check $? "make clean leaves the Makefile, the READMEs, show.c and a file of the user's" log
rm lesson/row/notes.txt

# The command the READMEs give for a bcastgen outside /usr/local and PATH.
grep -o '`make BCASTGEN_MK=[^`]*`' lesson/README.md | tr -d '`' >cmd
grep -o '`make BCASTGEN_MK=[^`]*`' lesson/README.zh.md | tr -d '`' >cmd.zh
[ "$(wc -l <cmd)" = 1 ] && grep -q '^make BCASTGEN_MK="[^"]*"$' cmd && cmp -s cmd cmd.zh
check $? "both READMEs give one command, make BCASTGEN_MK=\"...\"" cmd
(cd lesson && MAKEFLAGS=-j2 && export MAKEFLAGS && eval "$(cat ../cmd)") >log 2>&1
check $? "that command writes every lesson" log

diff -r -x .bcastgen-mk "$top/examples/teaching" lesson >log 2>&1
check $? "what it writes is the committed files, byte for byte (make regen rewrites them)" log

mk -q >log 2>&1
check $? "a second make has nothing to do" log

# An upgraded bcastgen that writes the same bytes: make runs it once,
# and then has nothing to do again.
touch "$PREFIX/bin/bcastgen"
mk -s >log 2>&1 && mk -q >>log 2>&1 && diff -r -x .bcastgen-mk "$top/examples/teaching" lesson >>log 2>&1
check $? "after an upgrade, one make brings every file up to date, the same bytes" log

: >log
for f in lesson/*/*.svg lesson/*/*.html; do
	xmllint --noout "$f" >>log 2>&1 || echo "xmllint rejects $f" >>log
done
[ ! -s log ]
check $? "every picture and page is well-formed XML" log

: >log
for f in lesson/*/*.svg; do
	w=$(svg_size "$f" width)
	[ "${w:-0}" -gt 1000 ] && echo "$f: $w pixels wide" >>log
done
"$PY" "$TESTS/pictures/contrast.py" lesson/*/*.svg lesson/*/*.html >contrast 2>&1 ||
	grep -v ' texts, lowest ratio ' contrast >>log
[ ! -s log ]
check $? "no lesson's picture is wider than 1000 pixels, and every text of its pictures and pages has a contrast of 4.5:1 or more" log

# Each lesson whose shapes do not broadcast says why, in its text, its
# picture and its page, and has no kernel; each other lesson has one.
: >log
for d in lesson/*/; do
	l=$(basename "$d")
	if grep -q '^bcastgen: error: ' "$d/en.txt"; then
		[ ! -e "$d/$l.c" ] || echo "$l fails, and has a kernel" >>log
		grep -q '^bcastgen: error: ' "$d/zh.txt" || echo "$l: zh.txt has no error" >>log
	else
		[ -s "$d/$l.c" ] && [ -s "$d/$l.h" ] || echo "$l has no kernel" >>log
	fi
	for lang in en zh; do
		[ "$(head -c 12 "$d/$lang.txt")" = '$ bcastgen -' ] ||
			echo "$l/$lang.txt does not begin with its command" >>log
	done
	for f in zh.txt zh.svg zh.html; do
		grep -q '广播' "$d/$f" || echo "$l/$f: no 广播 in it" >>log
	done
done
[ ! -s log ]
check $? "a failing lesson has its error and no kernel; the others have theirs" log

# A lesson that should fail but does not, or the reverse, stops make; its
# file is left as it was, or not written at all, and nothing half-written.
mk -B FAILING= mismatch/zh.txt >log 2>&1
rc=$?
[ $rc != 0 ] && grep -q 'mismatch/zh.txt: bcastgen exited 1; the lesson expects 0 and its output' log &&
	cmp -s lesson/mismatch/zh.txt "$top/examples/teaching/mismatch/zh.txt" &&
	[ -z "$(find lesson -name '*.tmp')" ]
check $? "a lesson that exits otherwise than expected stops make and changes nothing" log
rm lesson/mismatch/zh.txt
mk FAILING= mismatch/zh.txt >log 2>&1
rc=$?
[ $rc != 0 ] && [ ! -e lesson/mismatch/zh.txt ] && [ -z "$(find lesson -name '*.tmp')" ]
check $? "... and writes nothing when there was nothing" log
mk -s mismatch/zh.txt >log 2>&1 && cmp -s lesson/mismatch/zh.txt "$top/examples/teaching/mismatch/zh.txt"
check $? "... and make writes it again" log

mk compile >log 2>&1
check $? "every kernel compiles with -Wall -Wextra -Wpedantic -Wconversion -Werror" log

(cd lesson && make run) >log 2>&1
rc=$?
tail -n 4 log >out
"$PY" -c '
import numpy as np
a = np.array([0, 10, 20, 30], np.float32).reshape(4, 1)
b = np.array([0, 1, 2], np.float32)
for row in a + b:
    print(" ".join("%g" % v for v in row))
' >want 2>>log
[ $rc = 0 ] && cmp -s out want || { echo "make run printed:"; cat out; echo "NumPy:"; cat want; } >>log
[ $rc = 0 ] && cmp -s out want
check $? "make run prints a (4,1) + b (3,) as NumPy does" log

# Every file the READMEs link to or show is there; each lesson is in
# both, its kernel linked if it has one, and each command they show is
# the first line of the lesson's text in their language.
: >log
for readme in README.md README.zh.md; do
	grep -o '](\([^)]*\))' "lesson/$readme" | sed 's/^](//; s/)$//' | while read -r link; do
		case $link in http*|\#*) continue ;; esac
		[ -e "lesson/$link" ] || echo "$readme links to $link, which is not there" >>log
	done
	for d in lesson/*/; do
		l=$(basename "$d")
		grep -q "($l/" "lesson/$readme" || echo "$readme does not link to the lesson $l" >>log
		[ ! -e "$d/$l.c" ] || grep -q "($l/$l.c)" "lesson/$readme" ||
			echo "$readme does not link to the kernel $l/$l.c" >>log
	done
	case $readme in *.zh.md) lang=zh ;; *) lang=en ;; esac
	sed -n 's/^    \(bcastgen .*\)/$ \1/p' "lesson/$readme" | sort >shown
	head -q -n 1 lesson/*/$lang.txt | sort >texts
	diff shown texts >>log || echo "the commands $readme shows (<) are not those of the $lang texts (>)" >>log
done
[ ! -s log ]
check $? "the READMEs show each lesson's command and link to its files, and to nothing that is not there" log

[ -f lesson/.bcastgen-mk ] && mk -s clean >log 2>&1 && [ ! -e lesson/.bcastgen-mk ]
check $? "make clean removes .bcastgen-mk, where the first make kept BCASTGEN_MK" log

echo "1..$n"
exit $status
