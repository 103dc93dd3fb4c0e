# oracle.sh: sourced by the NumPy differential tests. oracle_run SCRIPT
# runs tests/SCRIPT with /usr/bin/python3 on the bcastgen binary, or
# says in TAP why it cannot run.
oracle_run() {
	dir=$(dirname "$0")
	GEN=${GEN:-build/bcastgen}
	if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
		echo "1..0 # SKIP /usr/bin/python3 with numpy not available"
		exit 0
	fi
	if [ ! -x "$GEN" ]; then
		echo "1..0 # SKIP no bcastgen binary at $GEN: run make first"
		exit 0
	fi
	if ! command -v gcc >/dev/null 2>&1; then
		echo "1..0 # SKIP gcc not found"
		exit 0
	fi
	exec /usr/bin/python3 "$dir/$1" "$GEN"
}
