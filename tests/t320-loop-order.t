#!/bin/sh
# t320-loop-order: NumPy differential test of bcastgen --loop-order: for
# shapes of several loops (in place, expressions with values computed
# once, integer and mixed dtypes, a comparison, where, unrolled, empty),
# a kernel for every order of the plan's loops, compiled with strict
# warnings and again with ASan+UBSan, must give NumPy's result and the
# same bytes as the planner's order. See loop_order_oracle.py.
. "$(dirname "$0")/oracle.sh"
oracle_run loop_order_oracle.py
