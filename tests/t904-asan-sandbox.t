#!/bin/sh
# t904-asan-sandbox: t430's sandbox escapes and bounds, against the generator built with
# AddressSanitizer and UBSan (make asan); see tests/fuzz/asan.sh.
exec sh "$(dirname "$0")/fuzz/asan.sh" t430-sandbox.t
