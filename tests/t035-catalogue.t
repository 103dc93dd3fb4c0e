#!/bin/sh
# t035-catalogue: a catalogue of bad inputs, one row each in
# catalogue/cases.txt. For each case: its documented exit status (1 bad
# input, 2 bad usage), its message (the first line of stderr), no
# signal, nothing on stdout (but --explain's walkthrough), and every file
# of the case's directory as it was: the sentinel outputs k.c, k.h
# and k.d (old, mode 640), the inputs the setup wrote, and no new file,
# temporaries included.
#
# A row is STATUS | SETUP | ARGS | MESSAGE:
#   SETUP    shell run in the case's directory first (helpers in
#            catalogue/lib.sh), or '-'
#   ARGS     the arguments, as shell words (quotes, $LONG and $(...) work)
#   MESSAGE  the first line of stderr: exact; '~TEXT' if it contains
#            TEXT; '/ERE/' if it matches ERE; '-' if stderr is empty
# A row with status 0 is an edge that must be accepted (it must not
# write). CATALOGUE_DUMP=1 prints the exit status and
# message of each failing row on stderr (to write a new row from).
. "$(dirname "$0")/lib.sh"
. "$TESTS/catalogue/lib.sh"
TEMPLATES=$TESTS/../templates

# Inputs too big for the table. One argument holds at most 131071 bytes
# on Linux (MAX_ARG_STRLEN), so 10^6-character names go through spec
# files; on the command line the longest names are 10^5.
LONG=$(rep a 100000)
LONG_UPPER=$(rep A 100000)
RANK65=$(rep 1, 64)1
NOT100K=$(rep ! 100000)x
PAREN65K=$(rep '(' 65000)x$(rep ')' 65000)

# The state of the case's directory, written to FILE: every entry and
# its type, and for every other than a directory its inode, mode, size,
# mtime and ctime. Any write to a file changes its ctime (which no
# program can set back), so this checks its bytes too, without reading
# them (a device is never read).
snapshot() {
	find . -type d -printf '%p d\n' -o -printf '%p %y %l %i %m %s %T@ %C@\n' >"$1"
}

# Return 0 if the snapshots BEFORE and AFTER list the same, in any order.
same_state() {
	cmp -s "$1" "$2" && return 0
	LC_ALL=C sort "$1" >"$1.sorted"
	LC_ALL=C sort "$2" | cmp -s "$1.sorted" -
}

# The sentinel outputs, copied (with their mode and mtime) into each case.
mkdir "$SCRATCH/proto" && cd "$SCRATCH/proto" || exit 1
sentinel k.c
sentinel k.h
sentinel k.d

n=0 status=0
while IFS= read -r row; do
	case $row in '#'* | '') continue ;; esac
	IFS='|' read -r want_rc setup args want <<EOF_ROW
$row
EOF_ROW
	want_rc=${want_rc% } setup=${setup# } args=${args# } want=${want# }
	setup=${setup% } args=${args% }
	n=$((n + 1))
	dir=$SCRATCH/case$n
	cp -a "$SCRATCH/proto" "$dir" && cd "$dir" || exit 1
	skip_reason= why=
	# SETUP and ARGS hold no '|': a row that seems to have no ARGS has one.
	[ -n "$args" ] || why="a bad row: no ARGS (a '|' in SETUP?)"
	if [ "$setup" != - ]; then
		eval "$setup" || why="the setup failed"
	fi
	if [ -n "$skip_reason" ]; then
		printf "ok %s # skip %s\n" "$n" "$skip_reason"
		continue
	fi
	rm -f "$SCRATCH/before.sorted"
	snapshot "$SCRATCH/before"
	set -f
	eval "set -- $args"
	set +f
	timeout -s KILL 20 "$GEN" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
	rc=$?
	got=$(head -n 1 "$SCRATCH/err")
	if [ $rc -gt 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ "$rc" != "$want_rc" ]; then
		why="exit $rc, not $want_rc"
	fi
	case $want in
	-) [ -z "$got" ] ;;
	'~'*) case $got in *"${want#\~}"*) ;; *) false ;; esac ;;
	/*/) printf '%s\n' "$got" | LC_ALL=C grep -Eq -- "$(expr "x$want" : 'x/\(.*\)/')" ;;
	*) [ "$got" = "$want" ] ;;
	esac || why="${why:+$why; }the message differs"
	case $want_rc:$args in
	0:* | *--explain*) ;;
	*) [ -s "$SCRATCH/out" ] && why="${why:+$why; }output on stdout" ;;
	esac
	snapshot "$SCRATCH/after"
	same_state "$SCRATCH/before" "$SCRATCH/after" || why="${why:+$why; }files changed"
	desc=$args
	[ "$setup" = - ] || desc="[$setup] $args"
	if [ -z "$why" ]; then
		printf "ok %s - %s\n" "$n" "$desc"
	else
		printf "not ok %s - %s\n" "$n" "$desc"
		echo "#   $why"
		printf "#   want (exit %s): %s\n" "$want_rc" "$want"
		echo "#   got  (exit $rc): $(printf '%s' "$got" | cut -c 1-300)"
		[ -n "${CATALOGUE_DUMP-}" ] && printf "DUMP %s\t%s\t%s\n" "$n" "$rc" "$got" >&2
		LC_ALL=C sort "$SCRATCH/after" | diff "$SCRATCH/before.sorted" - 2>/dev/null \
			| grep '^[<>]' | head -n 6 | sed 's/^/#   /'
		status=1
	fi
done <"$TESTS/catalogue/cases.txt"

# Every op of the table (bcastgen --list ops) has a row that fails: the
# op of --op, or of op = "..." in a spec '...', or an operator or a
# function of --expr '...' or expr = "..." (tests/optable.py). Words
# that are no op ('ADD', '+') cover nothing.
fresh
n=$((n + 1))
grep -v '^#' "$TESTS/catalogue/cases.txt" | awk -F'|' '$1 + 0 != 0 { print $3 }' | sed -n \
	-e "s/.*--op[ =]'\{0,1\}\([A-Za-z_][A-Za-z_0-9]*\).*/op \1/p" \
	-e "s/.*--expr[ =]'\([^']*\)'.*/expr \1/p" >ops
grep -v '^#' "$TESTS/catalogue/cases.txt" | awk -F'|' '$1 + 0 != 0 { print $2 }' | sed -n \
	-e "s/^ *spec '.*[{,] *op = \"\([A-Za-z_][A-Za-z_0-9]*\).*/op \1/p" \
	-e "s/^ *spec '.*[{,] *expr = \"\([^\"]*\)\".*/expr \1/p" >>ops
if /usr/bin/python3 "$TESTS/optable.py" "$GEN" "the catalogue's failing rows" --unknown-ok \
	<ops >cover; then
	echo "ok $n - $(head -n 1 cover)"
else
	echo "not ok $n - $(head -n 1 cover)"
	sed '1d; s/^/#   /' cover
	status=1
fi
echo "1..$n"
exit $status
