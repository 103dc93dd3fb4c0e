#!/bin/sh
# t902-asan-golden: t110's golden kernels, against the generator built with AddressSanitizer
# and UBSan (make asan); see tests/fuzz/asan.sh.
exec sh "$(dirname "$0")/fuzz/asan.sh" t110-golden.t
