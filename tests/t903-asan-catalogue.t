#!/bin/sh
# t903-asan-catalogue: t035's catalogue of bad inputs, against the generator built with
# AddressSanitizer and UBSan (make asan); see tests/fuzz/asan.sh.
exec sh "$(dirname "$0")/fuzz/asan.sh" t035-catalogue.t
