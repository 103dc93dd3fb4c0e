#!/bin/sh
# t180-size-report: make size's report (bench/size.py) on sample input:
# a refusal shows bcastgen's error, not a warning printed before it; the
# notes of SIZE.md keep each case's whole name; the legend gives each
# case its op and shapes; the summary says where --optimize size is
# larger than the hand-written loop, and by how much. Then a run on one
# case for the Cortex-M4F writes them, and the committed SIZE.md is
# what size.py writes (whole names in its notes, the README's rows in
# its table).
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
if ! /usr/bin/python3 -c 'import sys' 2>/dev/null; then
	echo "1..0 # SKIP no /usr/bin/python3"
	exit 0
fi

# A bcastgen that warns before it does anything, as it does for a
# kernel name past 31 characters.
cat >warn-gen <<EOF
#!/bin/sh
echo "bcastgen: warning: kernel name 'k_unroll' is only a sample warning" >&2
exec "$GEN" "\$@"
EOF
chmod +x warn-gen

# py NAME CODE: run CODE with bench/size.py imported as size, and scratch
# the directory it runs in; its output to NAME.log; a test named by its
# first line, "ok" if it exits 0.
py() {
	name=$1
	shift
	/usr/bin/python3 - "$top/bench/size.py" "$PWD" >"$name.log" 2>&1 <<EOF
import importlib.util, os, sys
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("size", sys.argv[1])
size = importlib.util.module_from_spec(spec)
spec.loader.exec_module(size)
scratch = sys.argv[2]
$*
EOF
}

fresh warn-gen
py refusal '
cases = [("k", ["x=4,3,32,32", "b=3,1,1"])]
p = size.prepare(os.path.join(scratch, "warn-gen"), os.path.join(scratch, "cases"), "k", cases[0][1], [])
lines = size.describe_not_applied(cases, {"k": p})
print("\n".join(lines))
unroll = [l for l in lines if "no unroll" in l]
sys.exit(not (len(unroll) == 1 and unroll[0].endswith(
    "k: no unroll: " + p["why"]["unroll"]) and "cannot unroll" in unroll[0]
    and "warning" not in unroll[0]))'
check $? "a refusal shows bcastgen's error, not the warning printed before it" refusal.log

fresh
py notes '
rows = [("tiny43", "rv32imac", "-Os", "block", 112, None),
        ("tiny43", "rv32imac", "-Os", "size", 114, None),
        ("seed004_broadcast_to", "m4f", "-Os", "unroll", 30, None),
        ("seed004_broadcast_to", "m4f", "-Os", "size", 36, None)]
bad, known = size.check(rows)
md = size.markdown([], ["tiny43: no unroll: why"], [], known, bad)
print(md)
want = ["- tiny43 on rv32imac at -Os: --optimize size is 114 bytes, block 112 (known: ",
        "- seed004_broadcast_to on m4f at -Os: --optimize size is 36 bytes, unroll 30 (known: ",
        "- tiny43: no unroll: why"]
got = md.splitlines()
sys.exit(not (len(known) == 2 and not bad and
              all(any(l.startswith(w) for l in got) for w in want)))'
check $? "SIZE.md's notes keep each case's whole name" notes.log

fresh
py legend '
cases = [("tiny43", ["x=4,3", "y=3"]),
         ("relu", ["--expr", "max(x*w + b, 0)", "x=8,64", "w=64", "b=64"]),
         ("axis", ["--axis", "1", "x=2,3,4,5", "y=3"]),
         ("bias_i8", ["x:i8=8,64,56,56", "y:i8=64,1,1"]),
         ("back", ["--inplace", "--op", "sub", "m=16", "s="])]
prepared = {"tiny43": {"dims": [4, 3]}, "relu": {"dims": [8, 64]},
            "axis": {"dims": [2, 3, 4, 5]}, "bias_i8": {"dims": [8, 64, 56, 56]},
            "back": {"dims": [16]}}
lines = size.case_legend(cases, prepared)
print("\n".join(lines))
sys.exit(lines[2:] != [
    "| tiny43 | add | `x=4,3 y=3` |  | (4,3) |",
    "| relu | `max(x*w + b, 0)` | `x=8,64 w=64 b=64` |  | (8,64) |",
    "| axis | add | `x=2,3,4,5 y=3` | `--axis 1` | (2,3,4,5) |",
    "| bias_i8 | add | `x:i8=8,64,56,56 y:i8=64,1,1` |  | (8,64,56,56) |",
    "| back | sub | `m=16 s=` | `--inplace` | (16,) |"])'
check $? "the legend gives each case its op, operands, options and result shape" legend.log

fresh
py summary '
rows = [r + (None,) for r in [
        ("a", "m4f", "-Os", "size", 36), ("a", "m4f", "-Os", "hand", 30),
        ("a", "m0", "-Os", "size", 40), ("a", "m0", "-Os", "hand", 40),
        ("b", "m4f", "-Os", "size", 44), ("b", "m4f", "-Os", "hand", 46),
        ("b", "m4f", "-Os", "loops", 40), ("c", "m4f", "-Os", "size", 50),
        ("b", "m0", "-Os", "size", 110), ("b", "m0", "-Os", "hand", 100),
        ("a", "m4f", "-O2", "size", 40), ("a", "m4f", "-O2", "hand", 50)]]
items = size.size_summary(rows)
for depth, text in items:
    print("  " * depth + text)
texts = [t for _, t in items]
sys.exit(not (
    texts[0] == ("At -Os, over the 2 cases that have a hand-written loop (4 case and target pairs): "
                 "`--optimize size` is larger in 2, by 10 bytes at most (b on m0, 110 against 100) "
                 "and by 20% at most (a on m4f, 36 against 30); "
                 "equal in 1, smaller in 1. All together 230 bytes against the hand loops\x27 216 (+6.5%).")
    and items[1:3] == [(1, "b on m0: 110 bytes against 100, +10 (+10%)"),
                       (1, "a on m4f: 36 bytes against 30, +6 (+20%)")]
    and texts[3].startswith("At -O2, over the 1 cases") and "is never larger" in texts[3]))'
check $? "the summary: where --optimize size is larger than the hand loop, by how much, and in all" summary.log

# One case on the Cortex-M4F, through the whole tool.
fresh
if command -v arm-none-eabi-gcc >/dev/null 2>&1 && command -v qemu-system-arm >/dev/null 2>&1; then
	/usr/bin/python3 "$top/bench/size.py" --gen "$GEN" --out out --targets m4f \
		--case 'tiny43=x=4,3 y=3' >log 2>&1 &&
	grep -qx '## Is `--optimize size` ever larger than a hand-written loop?' out/SIZE.md &&
	grep -q '^- At -Os, over the 1 cases that have a hand-written loop (1 case and target pairs): ' out/SIZE.md &&
	grep -qxF '| tiny43 | add | `x=4,3 y=3` |  | (4,3) |' out/SIZE.md
	rc=$?
	cat out/SIZE.md >>log 2>/dev/null
	check $rc "size.py on one case for the Cortex-M4F writes the summary and the legend" log
else
	echo "ok $((n + 1)) # SKIP arm-none-eabi-gcc or qemu-system-arm not installed (make deps)"
	n=$((n + 1))
fi

# The committed SIZE.md, as size.py writes it: its notes name cases of
# its table, whole; the rows README.md quotes are rows of its table.
fresh
awk -F' [|] ' '/^[|] / && $2 != "kernel" && $2 != "---" { print substr($1, 3) }' "$top/SIZE.md" |
	sort -u >table.cases
sed -n '/^## Notes$/,$s/^- \(slower: \|bigger: \|f16: \)\{0,1\}\([A-Za-z0-9_]*\)[: ].*/\2/p' "$top/SIZE.md" | sort -u >noted
grep -n 'Written by `make size` (bench/size.py)\.$' "$top/SIZE.md" >log
rc=$?
comm -13 table.cases noted >extra
sed 's/^/not a case of the table: /' extra >>log
[ $rc = 0 ] && [ -s noted ] && [ ! -s extra ]
check $? "SIZE.md is as size.py writes it, and its notes name cases of its table" log
fresh
grep '^| [a-z0-9_]* | [a-z0-9]* | -O[s2] |' "$top/README.md" >quoted
grep -vxFf "$top/SIZE.md" quoted >log
[ -s quoted ] && [ ! -s log ]
check $? "the $(wc -l <quoted) rows README.md quotes are rows of SIZE.md" log

echo "1..$n"
exit $status
