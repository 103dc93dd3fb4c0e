#!/bin/sh
# t300-kernels: NumPy differential test of the emitted kernels: a seeded
# corpus of kernels (every op, dtype and strategy), generated with
# bcastgen -o, compiled with strict warnings and again with ASan+UBSan,
# run on edge values and compared with NumPy. See kernels_oracle.py.
. "$(dirname "$0")/oracle.sh"
oracle_run kernels_oracle.py
