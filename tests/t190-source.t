#!/bin/sh
# t190-source: what the generator's own sources promise of themselves:
# no two static functions of gen/ share a name (each says what it does),
# and no code asks an op its name: gen/ compares no op's name as a string
# (the op table has an id for that), and no template compares an op, or
# the operator it is spelled with, with a string. The README names the
# Debian packages that make deps installs, all of them.
. "$(dirname "$0")/lib.sh"

src=$TESTS/..

# static functions: a line "static TYPE", then "NAME(" on the next
fresh
for f in "$src"/gen/*.c; do
	awk 'prev ~ /^static / && /^[a-z_][a-z0-9_]*\(/ { sub(/\(.*/, ""); print } { prev = $0 }' "$f"
done | sort | uniq -d >dups
[ ! -s dups ]
check $? "no two static functions of gen/ share a name" dups

# ops.c finds an op by the name the user gives (op_find): nothing else may
fresh
grep -nE 'str(n)?cmp\([^;]*op->name' "$src"/gen/*.c | grep -v '/gen/ops\.c:' >by_name
[ ! -s by_name ]
check $? "gen/ compares no op's name as a string, but to find it (ops.c)" by_name

fresh
grep -nE '(\bop|\.op) [=~]= "' "$src"/templates/* >by_string
[ ! -s by_string ]
check $? "no template compares an op, or its operator, with a string" by_string

# the packages: the README's paragraph on make deps, its words in backquotes
fresh
make -s -C "$src" --no-print-directory --eval 'deps-list: ; @echo $(DEPS) $(BIG_DEPS)' \
	deps-list | tr ' ' '\n' | sort >deps.make
tr '\n' ' ' <"$src/README.md" | sed -n 's/.*packages that are missing (\([^)]*\)) with apt-get.*/\1/p' \
	| grep -o '`[^`]*`' | tr -d '`' | tr ' ' '\n' | grep . | sort >deps.readme
diff deps.make deps.readme >deps.diff
check $? "the README names the packages make deps installs" deps.diff

echo "1..$n"
exit $status
