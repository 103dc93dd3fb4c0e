#!/bin/sh
# t310-expr: NumPy differential test of bcastgen --expr: a seeded corpus
# of random, type-correct expressions (every operator, function, cast and
# dtype, all strategies), generated with bcastgen -o, compiled with strict
# warnings and again with ASan+UBSan, run on edge values and compared
# with NumPy; plus fixed cases, rejected expressions and a hoisting check.
# See expr_oracle.py.
. "$(dirname "$0")/oracle.sh"
oracle_run expr_oracle.py
