#!/bin/sh
# t005-scratch: the checks of a script cannot break each other: each
# runs in a directory of its own, lib.sh's fresh for the shell tests and
# tap.py's fresh for the Python ones, so that a file one check leaves,
# or an input it changes, is not seen by the next.
. "$(dirname "$0")/lib.sh"

# The setup: an input in SCRATCH, which the checks take copies of.
echo input >in.txt
mkdir data && echo row >data/rows.txt

fresh in.txt data
echo left >left.txt && mkdir sub && echo changed >in.txt && echo more >>data/rows.txt
[ "$(cat in.txt)" = changed ] && [ -d sub ] && case $PWD in "$SCRATCH"/?*) ;; *) false ;; esac
check $? "a check in a directory of SCRATCH leaves a file and a directory, and changes its inputs"

fresh in.txt data
[ ! -e left.txt ] && [ ! -e sub ] && [ "$(cat in.txt)" = input ] \
	&& [ "$(cat data/rows.txt)" = row ] && [ "$(ls -A)" = "$(printf 'data\nin.txt')" ]
check $? "the next check sees none of it: only fresh copies of its inputs"

fresh
[ -z "$(ls -A)" ] && [ "$(cat "$SCRATCH/in.txt")" = input ]
check $? "a check without inputs starts empty; the inputs in SCRATCH are as set up"

# tap.py's fresh: a new, empty directory under the test's scratch
# directory for each call.
fresh
/usr/bin/python3 - "$TESTS" "$PWD" >log 2>&1 <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
from tap import fresh
scratch = sys.argv[2]
one = fresh(scratch)
with open(os.path.join(one, "left.txt"), "w") as f:
    f.write("left\n")
two = fresh(scratch)
print(one, two, os.listdir(two))
sys.exit(not (one != two and os.path.dirname(one) == scratch == os.path.dirname(two)
              and os.listdir(two) == [] and os.listdir(one) == ["left.txt"]))
EOF
check $? "tap.py: the next check's directory is new and empty, beside the last one" log

echo "1..$n"
exit $status
