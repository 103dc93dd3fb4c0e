#!/bin/sh
# t410-integration: make install into a temporary DESTDIR, then build
# examples/make-project and examples/cmake-project, which generate their
# kernels in their own build through the installed Make fragment and
# CMake package: run, compare, and rebuild incrementally (touch the spec:
# regenerated, nothing recompiled; touch nothing: nothing done; change
# the spec: recompiled). The README's Make snippet, as written, builds;
# a new bcastgen binary regenerates (recompiling nothing), a deleted
# generated file comes back. Then make uninstall removes everything.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
dest=$SCRATCH/dest
files="bin/bcastgen include/bcastgen/bc.h include/bcastgen/bc_math.h
include/bcastgen/bc_ref.h include/bcastgen/bc_f16.h include/bcastgen/bc_quant.h
include/bcastgen/bc_cpu.h
share/man/man1/bcastgen.1
share/bcastgen/bcastgen.mk lib/cmake/bcastgen/bcastgen-config.cmake
lib/cmake/bcastgen/bcastgen-config-version.cmake"

fresh
install_into "$dest" >log 2>&1
check $? "make install DESTDIR=... PREFIX=/usr"
missing=
for f in $files; do [ -f "$dest/usr/$f" ] || missing="$missing $f"; done
[ -z "$missing" ]; check $? "it installs the binary, headers, man page, Make and CMake files$missing"

# Make: BUILD runs make in the copy and keeps what it printed.
fresh
cp -r "$top/examples/make-project" mp
build() { make --no-print-directory -C mp BCASTGEN_MK="$dest/usr/share/bcastgen/bcastgen.mk" >log 2>&1; }
build && ./mp/app >out && cmp -s out mp/expected
check $? "make-project: generated, built, and its output is NumPy's"
build && ! grep -q 'bcastgen\|cc ' log
check $? "make-project: a second make does nothing"
sleep 1
touch mp/net.lua
build && grep -q 'bin/bcastgen' log && ! grep -q 'cc ' log
check $? "make-project: touching the spec regenerates, and recompiles nothing"
build && ! grep -q 'bcastgen\|cc ' log
check $? "make-project: then make does nothing again"
echo 'kernel "scale" { op = "mul", "x=2,3,4", "s=" }' >>mp/net.lua
build && grep -q 'bin/bcastgen' log && grep -q 'net.o' log && grep -q 'main.o' log \
	&& grep -q '^void scale' mp/net.h
check $? "make-project: a new kernel in the spec rebuilds what uses it"

# The README's Make snippet, as it is written, with a copy of the binary
# as the project's BCASTGEN: it links the program, regenerates when the
# binary changes (recompiling nothing when the output is the same), and
# generates a deleted net.c again.
fresh
mkdir rp rp/bin
cp "$top/examples/make-project/main.c" "$top/examples/make-project/net.lua" rp/
cp "$dest/usr/bin/bcastgen" rp/bin/bcastgen
sed -n '/^```make$/,/^```$/p' "$top/README.md" | sed '1d;$d' \
	| sed "s|/usr/local/share/bcastgen/bcastgen.mk|$dest/usr/share/bcastgen/bcastgen.mk|" >rp/Makefile
rbuild() { make --no-print-directory -C rp BCASTGEN="$PWD/rp/bin/bcastgen" >log 2>&1; }
rbuild && ./rp/app >out && cmp -s out "$top/examples/make-project/expected"
check $? "the README's Make snippet builds and links the program"
before=$(stat -c %Y rp/net.o)
sleep 1
touch rp/bin/bcastgen
rbuild && grep -q 'rp/bin/bcastgen' log && [ "$(stat -c %Y rp/net.o)" = "$before" ] \
	&& ! grep -q 'cc ' log && [ rp/net.bcastgen-stamp -nt rp/bin/bcastgen ]
check $? "a new bcastgen binary regenerates, and recompiles nothing"
rbuild && ! grep -q 'bcastgen\|cc ' log
check $? "then make does nothing again"
rm rp/net.c
rbuild && [ -f rp/net.c ] && ./rp/app >out && cmp -s out "$top/examples/make-project/expected"
check $? "a deleted net.c is generated again"

# CMake, through find_package(bcastgen).
if ! command -v cmake >/dev/null 2>&1; then
	echo "ok $((n + 1)) # SKIP cmake not installed (make deps installs it)"
	n=$((n + 1))
else
	fresh
	cp -r "$top/examples/cmake-project" cp
	cmake -S cp -B cb -DCMAKE_PREFIX_PATH="$dest/usr" >log 2>&1 \
		&& cmake --build cb >log 2>&1 && ./cb/app >out && cmp -s out cp/expected
	check $? "cmake-project: generated, built, and its output is NumPy's"
	cmake --build cb >log 2>&1 && ! grep -q 'bcastgen net.lua\|Building' log
	check $? "cmake-project: a second build does nothing"
	sleep 1
	touch cp/net.lua
	cmake --build cb >log 2>&1 && grep -q 'bcastgen net.lua' log && ! grep -q 'Building' log
	check $? "cmake-project: touching the spec regenerates, and recompiles nothing"
	cmake --build cb >log 2>&1 && ! grep -q 'bcastgen net.lua\|Building' log
	check $? "cmake-project: then the build does nothing again"
	sed -i 's/"b=3,1" }/"b=3,1", strategy = "unroll", unroll_limit = 64 }/' cp/net.lua
	cmake --build cb >log 2>&1 && grep -q 'Building C object .*net.c' log
	check $? "cmake-project: a changed kernel is recompiled"
fi

fresh
make -s -C "$top" uninstall ${BCASTGEN_O:+O="$BCASTGEN_O"} DESTDIR="$dest" PREFIX=/usr >log 2>&1
check $? "make uninstall"
[ -z "$(find "$dest" -type f)" ]
check $? "it removes every installed file"

echo "1..$n"
exit $status
