#!/bin/sh
# t500-bench: a smoke test of make bench's harness (bench/run.py), not a
# timed test: on a tiny case and the NaN case, one round, the checker
# catches a deliberately wrong implementation (a bit flipped in hand's
# output) and leaves it untimed, a run reports every column, a whole
# run replaces only its own processor's section of BENCHMARKS.md, and a
# quantized case is checked exactly but against XNNPACK counted.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
if ! [ -x $PY ] || ! $PY -c 'import numpy' 2>/dev/null; then
	echo "1..0 # SKIP no NumPy for /usr/bin/python3 (make bench installs python3-numpy)"
	exit 0
fi
if ! [ -f /usr/include/xnnpack.h ]; then
	echo "1..0 # SKIP no XNNPACK (make bench installs libxnnpack-dev)"
	exit 0
fi
if ! command -v cc >/dev/null; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi

grep -E '^(tiny43|max_nan) ' "$TESTS/../bench/cases.txt" >cases.txt
run() {
	$PY "$TESTS/../bench/run.py" --gen "$GEN" --cases cases.txt --levels O2 \
		--rounds 1 --big-rounds 1 --batch-ms 0.1 --processes 1 --no-callgrind --no-gen "$@"
}

fresh cases.txt
run --out b --report b/B.md --inject-wrong >log 2>err
check $? "a run with a wrong implementation completes"
grep -q '^- \*\*WRONG\*\*: wrong on tiny43: WRONG (1 of 12 elements)$' b/B.md
check $? "the checker reports the wrong implementation loudly"
awk -F'\t' '$2 == "tiny43" && $3 == "wrong" && $4 ~ /^WRONG/ && $8 == ""' b/results.tsv | grep -q .
check $? "the wrong implementation is not timed"
for impl in auto hand hand_again xnnpack numpy ref naive memcpy; do
	awk -F'\t' -v i=$impl '$2 == "tiny43" && $3 == i && ($4 == "ok" || $4 == "unchecked") && $8 > 0' \
		b/results.tsv | grep -q .
	check $? "tiny43: $impl checked and timed"
done
grep -q '^| case | elements | auto | .*hand | hand_again | xnnpack | numpy | ref | naive | memcpy | wrong |$' b/B.md
check $? "the table has a column for each implementation"
awk -F'\t' '$2 == "max_nan" && ($3 == "numpy" || $3 == "auto" || $3 == "ref" || $3 == "naive") && $4 == "ok"' \
	b/results.tsv | wc -l | grep -q '^ *4$'
check $? "max_nan: NumPy, auto, ref and naive match hand with NaNs in the inputs"
grep -q 'auto at least as fast as hand in every case, -O2: \*\*[a-z]*\*\*' b/B.md
check $? "the targets section is computed"
grep -Eq '^- auto at least as fast as hand within the run.s noise, -O2: \*\*[a-z]*\*\*; hand_again over hand \(A/A, the same code\) [0-9.]+x to [0-9.]+x over 2 cases' b/B.md &&
	grep -Eq '^\| tiny43 \| [^|]+\|( [0-9.]+ \|){4} [0-9.]+ \|' b/B.md &&
	grep -Eq '^- streaming never loses \(within its case.s A/A\), -O2: \*\*[a-z]*\*\*; auto streams ' b/B.md
check $? "the A/A ratio of each case (hand compiled twice) and the targets within the run's noise"
# every level generates for the processor gcc's -march=native tunes for,
# where bcastgen has its tuning (--tune list), else generic
tune=$(cc -march=native -dM -E -x c /dev/null 2>/dev/null | sed -n 's/^#define __tune_\([a-z0-9_]*\)__ .*/\1/p' |
	while read -r t; do "$GEN" --tune list | grep -q "^$t " && echo "$t"; done | head -n 1)
grep -q "^Target rows: \`--target [a-z0-9-]* --tune ${tune:-generic}\` at -O2\$" b/B.md
check $? "the run generates for this processor's tuning (${tune:-generic}), as its Target rows line says"
awk -F'\t' '$2 == "tiny43" && $3 == "xnnpack_mt" && $4 == "ok" && $8 > 0 && $12 == "wall"' \
	b/results.tsv | grep -q .
check $? "tiny43: xnnpack_mt checked and timed with the wall clock"
# max_nan is parallel where the compiler has OpenMP: its kernel made with
# --parallel and auto again are checked and timed with the wall clock,
# and make the level's Parallel table and its target.
if printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' |
	cc -fopenmp -x c - -o omp 2>/dev/null; then
	awk -F'\t' '$2 == "max_nan" && ($3 == "parallel" || $3 == "auto_wall") && $4 == "ok" &&
		$8 > 0 && $12 == "wall"' b/results.tsv | wc -l | grep -q '^ *2$' &&
		grep -Eq '^\| max_nan \| 1048576 \| yes( \| [0-9.]+ [mun]s){2} \| [0-9.]+ \| ([0-9.]+ [mun]s|\*\*WRONG\*\*) \|' b/B.md &&
		grep -q 'parallel at least 1.6x auto for the cases in cache .*, -O2: \*\*[a-z]*\*\*' b/B.md
	check $? "max_nan: parallel checked, timed with the wall clock and in the Parallel table"
	grep -q '^- parallel: does not apply: .*Not parallel, though --parallel asks: the result has N elements, .*(tiny43)$' b/B.md
	check $? "tiny43: parallel does not apply, with bcastgen's reason"
else
	check 0 "max_nan: parallel checked # SKIP cc has no OpenMP"
	check 0 "tiny43: parallel does not apply # SKIP cc has no OpenMP"
fi

# A whole run (here a subset that --as-whole treats as one) keeps every
# other processor's section byte for byte, replaces its own and lists
# both at the top; a second run replaces its section, it does not add one.
fresh cases.txt
mkdir w
printf '%s\n' '<!-- processor: Other CPU (sse2) -->' '## Other CPU (sse2), 2000-01-01' '' \
	'Target rows: `--target x86-64` at -O2' '' '| kept | 1.00 |' >other.md
{ printf '# Benchmarks\n\nthe old top\n\n'; cat other.md; } >w/B.md
section() {
	awk -v m="$1" '/^<!-- processor: /{ p = ($0 == m) } p' w/B.md
}
run --out w --report w/B.md --as-whole --only tiny43 >log 2>err &&
	run --out w --report w/B.md --as-whole --only tiny43 >log 2>>err
check $? "two whole runs into a report with another processor's section complete" err
{ cat other.md; echo; } >want
section '<!-- processor: Other CPU (sse2) -->' >got
cmp -s want got
check $? "the other processor's section is kept byte for byte"
[ "$(grep -c '^<!-- processor: ' w/B.md)" = 2 ] && ! grep -q 'the old top' w/B.md &&
	grep -q '^| Other CPU (sse2) | 2000-01-01 | `--target x86-64` at -O2 |$' w/B.md &&
	grep -q '^Target rows: `--target x86-64` at -O2$' w/B.md &&
	{ ls w/bench/ratios-*.svg >/dev/null 2>&1 || ! command -v gnuplot >/dev/null; }
check $? "one section of this processor, with its target row and plot, both in the summary"

# A quantized case (--quant in its words): hand is checked against
# tests/quant_oracle.py, auto, ref and naive against hand byte for byte,
# XNNPACK's qs8 operator is timed with the elements that differ counted
# (not an error), NumPy does not apply, and the quantized Targets line
# has the ratio and the count. A hand loop that computes other constants
# than the case's line stops the run before anything is timed.
grep -E '^qmul ' "$TESTS/../bench/cases.txt" >"$SCRATCH/qcases.txt"
fresh qcases.txt
run --cases qcases.txt --out q --report q/B.md >log 2>err
check $? "a run of a quantized case completes" err
for impl in auto hand ref naive; do
	awk -F'\t' -v i=$impl '$2 == "qmul" && $3 == i && $4 == "ok" && $8 > 0' q/results.tsv | grep -q .
	check $? "qmul: $impl checked exactly and timed"
done
awk -F'\t' '$2 == "qmul" && $3 == "xnnpack" && ($4 == "ok" || $4 ~ /^differs \([0-9]+ of 200704 elements\)$/) && $8 > 0' \
	q/results.tsv | grep -q . &&
	! awk -F'\t' '$2 == "qmul" && $3 == "numpy"' q/results.tsv | grep -q . &&
	grep -q '^- numpy: does not apply: NumPy has no quantized arithmetic' q/B.md &&
	grep -Eq "^- quantized, auto against XNNPACK's qs8 operators, -O2 \(no target\); qmul [0-9.]+x; .*; elements that differ from XNNPACK's: qmul [0-9]+ of 200704" q/B.md
check $? "qmul: XNNPACK's qs8 multiply timed, its differing elements counted in the Targets line; no NumPy"
fresh qcases.txt
sed 's/out=0\.0214,-3/out=0.0215,-3/' qcases.txt >other.txt
run --cases other.txt --out q2 --report q2/B.md >log 2>err
[ $? = 1 ] && grep -q "^bench: error: case 'qmul': hand_qmul differs from tests/quant_oracle.py in [0-9]* of 200704 elements" err
check $? "a hand loop that is not the case's TFLite Micro math stops the run" err

fresh cases.txt
run --out b2 --report b2/B.md --only nosuch >log 2>err
[ $? = 1 ] && grep -q "^bench: error: no case 'nosuch' in cases.txt$" err && [ ! -e b2/B.md ]
check $? "an unknown case: one error, exit 1, no report"

echo "1..$n"
exit $status
