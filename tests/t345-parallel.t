#!/bin/sh
# t345-parallel: NumPy differential test of the kernels made with
# --parallel (spec field parallel = true): a fixed list of kernels, those
# that share their outermost loop among threads and those that must not,
# the decision asserted from each generated .c and --explain, and every
# kernel made without --parallel free of it; built with gcc (-fopenmp
# and not) and clang -fopenmp, strict warnings, run with OMP_NUM_THREADS
# 1, 2 and 3 between guard bytes, compared bit for bit with NumPy and
# with each other; the parallel ones under ThreadSanitizer (clang and
# libomp) with 2 and 3 threads, no report. BCAST_PARALLEL_RUNTIME=DIR
# compiles with DIR's bc.h instead of runtime/ (a copy whose bc_share
# loses or overlaps iterations must fail); BCAST_PARALLEL_FILTER=CMD
# passes each generated parallel .c through CMD before it is compiled
# (a hand-broken kernel must fail). See parallel_oracle.py.
. "$(dirname "$0")/oracle.sh"
oracle_run parallel_oracle.py
