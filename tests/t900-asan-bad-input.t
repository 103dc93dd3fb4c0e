#!/bin/sh
# t900-asan-bad-input: t030's bad inputs, against the generator built with AddressSanitizer
# and UBSan (make asan); see tests/fuzz/asan.sh.
exec sh "$(dirname "$0")/fuzz/asan.sh" t030-bad-input.t
