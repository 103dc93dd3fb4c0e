#!/bin/sh
# t040-templates: the template engine through --templates DIR: $()
# interpolation, Lua lines, line numbers in errors, --dump-lua, and the
# sandbox (no io, os, package, debug, require, load or file access).
. "$(dirname "$0")/lib.sh"

n=0 status=0
# check NAME WANT_RC WANT_FIRST_LINE: run $GEN on the template in t/ and
# compare the exit status and the first line of stdout+stderr.
check() {
	n=$((n + 1))
	"$GEN" --templates t --explain x=2,3 y=3 >out 2>&1
	rc=$?
	got=$(head -n 1 out)
	if [ "$rc" = "$2" ] && [ "$got" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "#   want (exit $2): $3"
		echo "#   got  (exit $rc): $got"
		status=1
	fi
}
# template LINE...: in a fresh directory, the next check's, write
# t/explain.txt.lt from the arguments, one a line.
template() {
	fresh
	mkdir -p t
	printf '%s\n' "$@" >t/explain.txt.lt
}

template '@ local r = {}' '@ for i, op in ipairs(operands) do r[i] = op.name .. ":" .. #op.shape end' \
	'$(table.concat(r, " ")) -> $(#result) dims, $(count) elements, $("a(b)") $((1 + 2) * 3)'
check 'interpolation and Lua lines' 0 'x:2 y:1 -> 2 dims, 6 elements, a(b) 9'

template 'first' '@ local x = nil' 'third $(x.field)'
check 'a runtime error names the template line' 1 \
	"bcastgen: error: t/explain.txt.lt:3: attempt to index a nil value (local 'x')"

template 'first' '@ if then' 'third'
check 'a syntax error names the template line' 1 \
	"bcastgen: error: t/explain.txt.lt:2: unexpected symbol near 'then'"

template 'one' 'two $(nothing)'
check 'a nil in $() is an error' 1 \
	"bcastgen: error: t/explain.txt.lt:2: \$() gives a nil value, not a string or integer"

template 'value $(1.5)'
check 'a float in $() is an error' 1 \
	"bcastgen: error: t/explain.txt.lt:1: \$() gives a float value, not a string or integer"

template 'open $(1 + (2'
check 'an unclosed $( is an error' 1 "bcastgen: error: t/explain.txt.lt:1: '\$(' is not closed"

for call in 'os.execute("touch pwned")' 'io.open("pwned", "w")' 'require("os")' \
	'load("return 1")' 'dofile("x")' 'loadfile("x")' 'debug.getinfo(1)' \
	'package.loadlib("x", "y")' 'print("x")' 'collectgarbage()'; do
	name=${call%%(*}
	template "@ $call"
	check "sandbox: no $name" 1 \
		"$(printf '%s' "bcastgen: error: t/explain.txt.lt:1: attempt to ")$(
		case $name in *.*) echo "index a nil value (global '${name%%.*}')" ;;
		*) echo "call a nil value (global '$name')" ;; esac)"
done
n=$((n + 1))
if [ -z "$(find "$SCRATCH" -name pwned)" ]; then echo "ok $n - the sandbox wrote no file"; else echo "not ok $n"; status=1; fi

# --dump-lua keeps one line of Lua per template line.
fresh
n=$((n + 1))
"$GEN" --dump-lua explain.txt.lt >lua 2>err
lines=$(wc -l <lua)
want=$(wc -l <"$TESTS/../templates/explain.txt.lt")
if [ "$lines" = "$want" ] && [ ! -s err ]; then
	echo "ok $n - --dump-lua has one line per template line ($lines)"
else
	echo "not ok $n - --dump-lua has $lines lines for $want template lines"
	status=1
fi
fresh
n=$((n + 1))
"$GEN" --dump-lua nosuch.lt >lua 2>err
if [ $? = 1 ] && [ "$(cat err)" = "bcastgen: error: no template named 'nosuch.lt'" ]; then
	echo "ok $n - --dump-lua of an unknown template"
else
	echo "not ok $n - --dump-lua of an unknown template: $(cat err)"
	status=1
fi
echo "1..$n"
exit $status
