#!/bin/sh
# regen.sh: rewrite the golden files from $GEN. Run by `make regen`;
# review the result with git diff.
set -e
TESTS=$(cd "$(dirname "$0")" && pwd)
GEN=$(cd "$(dirname "$GEN")" && pwd)/$(basename "$GEN")
. "$TESTS/explain.sh"
. "$TESTS/golden.sh"
for f in "$TESTS"/explain/*.txt; do
	explain_run "$f" >"$f.new"
	mv "$f.new" "$f"
done
cd "$TESTS/golden"
for args in *.args; do
	golden_run "$args" "$(basename "$args" .args)"
done
# the README's picture, by the command the README gives next to it
cmd=$(sed -n 's/^\$ bcastgen \(--explain --format svg .*\) >docs\/broadcast.svg$/\1/p' "$TESTS/../README.md")
# shellcheck disable=SC2086
"$GEN" $cmd >"$TESTS/../docs/broadcast.svg"
