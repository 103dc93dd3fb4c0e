#!/bin/sh
# t901-asan-spec: t400's specs, against the generator built with AddressSanitizer
# and UBSan (make asan); see tests/fuzz/asan.sh.
exec sh "$(dirname "$0")/fuzz/asan.sh" t400-spec.t
