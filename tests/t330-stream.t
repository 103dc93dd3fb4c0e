#!/bin/sh
# t330-stream: NumPy differential test of the streaming-store kernels
# (--stream): kernels generated with --stream on and auto, their banners,
# one driver compiled with gcc at several levels and targets (AVX,
# AVX-512 where the processor has it, -O0, -DBC_NO_STREAM,
# -ffreestanding) and with clang, run with the output at every
# misalignment from a 64-byte line between guard bytes, compared with
# NumPy; movnt where streaming is expected and nowhere else; and the
# errors of --stream and --cache-size. See stream_oracle.py.
. "$(dirname "$0")/oracle.sh"
oracle_run stream_oracle.py
