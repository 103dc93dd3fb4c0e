# golden.sh: sourced by t110-golden.t and regen.sh. golden_run ARGS NAME
# generates kernel NAME from tests/golden/NAME.args into the current
# directory: NAME.c and NAME.h. The words of ARGS are split at white
# space, never expanded as file names (an --expr has '*').
golden_run() {
	# shellcheck disable=SC2046
	(set -f; "$GEN" -o "$2.c" $(cat "$1"))
}
