# lib.sh: sourced by the shell tests. Sets GEN (the binary, absolute),
# TESTS (this directory, absolute) and moves into a fresh scratch
# directory, removed on exit.
TESTS=$(cd "$(dirname "$0")" && pwd)
GEN=${GEN:-build/bcastgen}
case $GEN in /*) ;; *) GEN=$(pwd)/$GEN ;; esac
if [ ! -x "$GEN" ]; then
	echo "1..0 # SKIP no bcastgen binary at $GEN: run make first"
	exit 0
fi
# A make the tests run is their own, not a job of the make that runs them
# (whose jobserver flags would make it print warnings into what they compare).
unset MAKEFLAGS MFLAGS MAKELEVEL
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/bcastgen-test.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH" || exit 1
