#!/usr/bin/python3
"""t710-quant-kernels: bcastgen's quantized kernels (--quant: int8/int16
add, subtract and multiply, TFLite Micro's reference kernels bit for
bit) against tests/quant_oracle.py: random parameter sets on random
broadcast shapes with every strategy, in place and for other targets,
fixed sets, every pair of int8 values; each kernel built at -O2, -O3 and
under ASan+UBSan, and where this machine runs them at -O3 for x86-64-v3
and -v4 (bc_quant.h's AVX2 and AVX-512 lines); the parameter sets TFLM
refuses and bad command lines refused. See quant_kernels_oracle.py.

GEN is the generator (default build/bcastgen); QUANT_KERNEL_SETS (200),
QUANT_KERNEL_SEED, QUANT_KERNEL_JOBS (2), QUANT_KERNEL_CC (cc),
QUANT_KERNEL_CFLAGS, QUANT_KERNEL_KEEP, QUANT_KERNEL_TIMEOUT as the
driver reads them.
"""
import os
import shutil
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TESTS)

try:
    import numpy  # noqa: F401
except ImportError:
    print("1..0 # SKIP no numpy for %s (python3-numpy)" % sys.executable)
    sys.exit(0)

gen = os.environ.get("GEN") or "build/bcastgen"
if not (os.path.isfile(gen) and os.access(gen, os.X_OK)):
    print("1..0 # SKIP no bcastgen binary at %s: run make first" % gen)
    sys.exit(0)
cc = os.environ.get("QUANT_KERNEL_CC") or "cc"
if not shutil.which(cc):
    print("1..0 # SKIP no C compiler %s (set QUANT_KERNEL_CC)" % cc)
    sys.exit(0)

import quant_kernels_oracle             # noqa: E402

sys.exit(quant_kernels_oracle.main(gen))
