#!/bin/sh
# t335-f16-lines: NumPy differential test of the kernels that convert
# their f16 data a line of 64 at a time (bc_f16_to_f32_n[q],
# bc_f32_to_f16_n[q]) on x86-64-v3 and -v4: a fixed list of kernels over
# every branch of the plan's choice (lines or not, _n or _nq for each
# input and the output), asserted from each generated .c and --explain;
# one driver built with gcc and clang -mf16c -mavx2 (BC_F16_HW 1, run
# where /proc/cpuinfo has f16c and avx2) and with gcc -DBC_F16_PORTABLE,
# run on edge f16s (signalling NaNs with payloads among them), compared
# bit for bit with NumPy, and the hardware builds' bytes with the
# portable build's. BCAST_F16_RUNTIME=DIR compiles with DIR's bc.h
# instead of runtime/ (a copy with a NaN fix-up taken out must fail).
# See f16_lines_oracle.py.
. "$(dirname "$0")/oracle.sh"
oracle_run f16_lines_oracle.py
