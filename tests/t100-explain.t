#!/bin/sh
# t100-explain: the --explain walkthrough of the seeds' examples against
# the golden files tests/explain/*.txt, whose first line is the command.
# `make regen` rewrites them; review the change with git diff.
. "$(dirname "$0")/lib.sh"
. "$TESTS/explain.sh"

n=0 status=0
for f in "$TESTS"/explain/*.txt; do
	n=$((n + 1))
	name=$(basename "$f" .txt)
	explain_run "$f" >actual
	if diff -u "$f" actual >diff; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' diff
		status=1
	fi
done
echo "1..$n"
exit $status
