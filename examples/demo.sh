#!/bin/sh
# demo.sh BCASTGEN: the main job on built-in examples from the seeds.
set -e
gen=${1:-build/bcastgen}
run() {
	echo "\$ bcastgen $*"
	"$gen" "$@"
	echo
}
run x=2,3,1,5 y=3,4,1
run --shape a=4,3,32,32 b=3,1,1
run --explain --axis 1 x=2,1,4 y=3,1
