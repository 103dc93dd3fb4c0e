#!/bin/sh
# regen.sh: rewrite the golden files from $GEN. Run by `make regen`.
set -e
TESTS=$(cd "$(dirname "$0")" && pwd)
GEN=$(cd "$(dirname "$GEN")" && pwd)/$(basename "$GEN")
. "$TESTS/explain.sh"
for f in "$TESTS"/explain/*.txt; do
	explain_run "$f" >"$f.new"
	mv "$f.new" "$f"
done
