#!/bin/sh
# t010-cases: every example of the seed documents (tests/cases/broadcast.txt)
# through `bcastgen --shape`: the result shape, or the error and exit 1.
. "$(dirname "$0")/lib.sh"

cases="$TESTS/cases/broadcast.txt"
# Records: [%%FAIL] args, expected; blank line after each.
sed -e '/^#/d' "$cases" | {
	n=0 fail=0 args= want= status=0
	while IFS= read -r line; do
		if [ -z "$line" ]; then
			[ -n "$args" ] || continue
			fresh
			n=$((n + 1))
			# shellcheck disable=SC2086
			"$GEN" --shape $args >out 2>err
			rc=$?
			if [ $fail = 1 ]; then
				got=$(head -n 1 err); want_rc=1; [ -s out ] && got="stdout: $(cat out)"
			else
				got=$(cat out); want_rc=0; [ -s err ] && got="stderr: $(cat err)"
			fi
			if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ]; then
				echo "ok $n - $args"
			else
				echo "not ok $n - $args"
				echo "#   want (exit $want_rc): $want"
				echo "#   got  (exit $rc): $got"
				status=1
			fi
			fail=0 args= want=
		elif [ "$line" = "%%FAIL" ]; then
			fail=1
		elif [ -z "$args" ]; then
			args=$line
		else
			want=$line
		fi
	done
	echo "1..$n"
	exit $status
}
