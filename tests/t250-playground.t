#!/bin/sh
# t250-playground: the playground page (make playground): the generator
# compiled to WebAssembly with Debian's emscripten, in one HTML file.
# Builds the page if it is not built (make playground, which installs
# emscripten and fetches Debian's Lua source when it can), then loads it
# in one headless Chromium (tests/playground/check.py, over browse.py's
# DevTools pipe) and compares, for every seed example in both languages,
# every lesson of examples/teaching and 50 random command lines, the
# page's #kernel, #header, #explain, #error and #status with what the
# binary under test gives for the same words, by the page's mapping of
# words to runs (playground/README.md). Also: the page's size (2 MB at
# most), no request and no http(s) URL, its first results under a
# second, the URL fragment, keyboard use, the labels in en and zh,
# contrast, the version, the spec box, and screenshots that are not
# blank. Skipped where emscripten or Chromium cannot be had.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
PY=/usr/bin/python3
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM
for tool in "$CHROMIUM" "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool is not installed (make deps installs chromium)"
		exit 0
	fi
done
if ! HOME=$SCRATCH timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	--user-data-dir="$SCRATCH/probe" --dump-dom about:blank >/dev/null 2>&1; then
	echo "1..0 # SKIP $CHROMIUM does not run here"
	exit 0
fi

# The page, built from the sources under test (nothing to do when it is
# up to date), as make playground builds it: emscripten installed first
# if it can be. O as make check was given it (relative to the top), so
# that the page's flags, which name it, are make playground's; the binary
# under test is not remade (-o) while other tests run it.
O=${BCASTGEN_O:-build}
page=$(build_dir)/playground/bcastgen.html
if ! { make -s -C "$top" O="$O" playground-deps &&
	make -s -C "$top" O="$O" -o "$O/bcastgen" "$O/playground/bcastgen.html"; } >build.log 2>&1; then
	if ! command -v emcc >/dev/null 2>&1; then
		echo "1..0 # SKIP emscripten cannot be installed here (make playground):" \
			"$(tail -n 1 build.log)"
		exit 0
	fi
	if [ ! -f "${page%/bcastgen.html}/lua/lua5.4/src/lapi.c" ]; then
		echo "1..0 # SKIP Debian's Lua source cannot be fetched here (apt-get source lua5.4):" \
			"$(tail -n 1 build.log)"
		exit 0
	fi
	echo "1..1"
	check 1 "make playground builds the page" build.log
	exit 1
fi

HOME=$SCRATCH "$PY" "$TESTS/playground/check.py" "$GEN" "$page" "$top" "$SCRATCH" 2>err
s=$?
[ ! -s err ] || sed 's/^/# /' err
exit $s
