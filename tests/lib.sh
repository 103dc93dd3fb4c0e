# lib.sh: sourced by the shell tests. Sets GEN (the binary, absolute),
# TESTS (this directory, absolute) and moves into a fresh scratch
# directory, SCRATCH, removed on exit. A script sets up there what its
# checks share, and runs each check in a directory of its own (fresh).
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

# check OK NAME [FILE]: the next TAP line, "ok" for NAME when OK is 0; a
# failure sets status to 1 and shows the end of FILE, if there is one.
n=0 status=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -z "$3" ] || [ ! -f "$3" ] || sed 's/^/# /' "$3" | tail -n 40
		status=1
	fi
}

# fresh [FILE...]: move into a new, empty directory of SCRATCH (named
# after the number of the next check) for the commands of the next check,
# with a copy of each FILE, or directory, of SCRATCH (an input the script
# set up there): no file that an earlier check left, or changed, is seen.
# Call it first in each group of commands that ends in a check; checks
# that go on from what the ones before them did (install, then build,
# then rebuild) are one group.
fresh() {
	cd "$SCRATCH" && fresh_dir=$(mktemp -d "$SCRATCH/$((n + 1)).XXXX") &&
		cd "$fresh_dir" || exit 1
	for fresh_file; do
		cp -R "$SCRATCH/$fresh_file" . || exit 1
	done
}

# install_into DEST: make install into DEST with PREFIX=/usr, of the
# binary under test: built in make check's O (BCASTGEN_O), as it was
# built, so that nothing is rebuilt while other tests run it.
install_into() {
	make -s -C "$TESTS/.." install ${BCASTGEN_O:+O="$BCASTGEN_O"} DESTDIR="$1" PREFIX=/usr
}

# install_at PREFIX: the same, into PREFIX itself (no DESTDIR), as a user
# installs it to use it there.
install_at() {
	make -s -C "$TESTS/.." install ${BCASTGEN_O:+O="$BCASTGEN_O"} PREFIX="$1"
}

# path_without_bcastgen: $PATH without the directories that hold a
# bcastgen, for a test of what a user without one in PATH does.
path_without_bcastgen() {
	(
		p=
		IFS=:
		for d in $PATH; do
			[ -e "${d:-.}/bcastgen" ] || p=$p${p:+:}$d
		done
		printf '%s\n' "$p"
	)
}

# build_dir: make check's build directory (BCASTGEN_O, build by default),
# absolute.
build_dir() {
	case ${BCASTGEN_O:-build} in
	/*) printf '%s\n' "$BCASTGEN_O" ;;
	*) printf '%s\n' "$TESTS/../${BCASTGEN_O:-build}" ;;
	esac
}

# svg_size FILE.svg WHAT: the picture's width or height (WHAT), in pixels,
# as its <svg> element declares it.
svg_size() {
	sed -n "1s/^<svg [^>]*$2=\"\\([0-9]*\\)\".*/\\1/p" "$1"
}
