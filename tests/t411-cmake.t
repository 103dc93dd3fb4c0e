#!/bin/sh
# t411-cmake: the installed CMake package as projects use it, with the
# Unix Makefiles generator and, if it is installed, Ninja: two targets
# that share a spec run bcastgen once; a deleted .c or .h is generated
# again; the user's own files get no flag from bcastgen; templates given
# with OPTIONS --templates DIR are tracked; layer.v1.lua and layer.v2.lua
# give layer.v1.c and layer.v2.c; a C++-only project builds its kernels
# as C++; find_package(bcastgen MAJOR.MINOR) takes the installed version
# and refuses others. Then examples/cmake-project from a prefix with a
# space in it, and make uninstall from there.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
if ! command -v cmake >/dev/null 2>&1; then
	echo "1..0 # SKIP cmake not installed (make deps installs it)"
	exit 0
fi
generators="make"
command -v ninja >/dev/null 2>&1 && generators="make ninja"

fresh
install_into "$SCRATCH/dest" >log 2>&1
check $? "make install DESTDIR=... PREFIX=/usr" log
prefix=$SCRATCH/dest/usr
version=$("$GEN" --version | sed -n 's/^bcastgen //p')

# configure SRC BUILD GEN [ARGS]: cmake for GEN (make or ninja), output in log.
configure() {
	src=$1 bld=$2 generator="Unix Makefiles"
	[ "$3" = ninja ] && generator=Ninja
	shift 3
	rm -rf "$bld"
	cmake -S "$src" -B "$bld" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" "$@" >log 2>&1
}
# build BUILD: build it, two jobs, output in log.
build() { cmake --build "$1" -j 2 >log 2>&1; }
# runs: how many times the last build ran bcastgen.
runs() { grep -c 'bcastgen [^ ]*\.lua' log; }

# A project of two programs that share net.lua.
cd "$SCRATCH" || exit 1
mkdir two
cp "$top/examples/cmake-project/main.c" "$top/examples/cmake-project/net.lua" two/
cat >two/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(two C)
find_package(bcastgen REQUIRED)
add_executable(app main.c)
add_executable(app2 main.c)
bcastgen_add_kernels(app net.lua)
bcastgen_add_kernels(app2 net.lua)
target_link_libraries(app m)
target_link_libraries(app2 m)
EOF
expected=$top/examples/cmake-project/expected
# same BUILD: both programs print the expected output.
same() {
	./"$1"/app >out && cmp -s out "$expected" && ./"$1"/app2 >out && cmp -s out "$expected"
}
for g in $generators; do
	fresh two
	b=two-$g
	configure two $b $g -DCMAKE_EXPORT_COMPILE_COMMANDS=ON && build $b && same $b && [ "$(runs)" = 1 ]
	check $? "$g: two targets that share net.lua run bcastgen once, and both work" log
	grep '"command"' $b/compile_commands.json | grep 'main\.c' >cmds
	[ -s cmds ] && ! grep -q 'ffp-contract' cmds
	check $? "$g: the user's main.c gets no -ffp-contract flag" cmds
	rm $b/net.c
	build $b && [ "$(runs)" = 1 ] && [ -f $b/net.c ] && same $b
	check $? "$g: a deleted net.c is generated again" log
	rm $b/net.h
	build $b && [ "$(runs)" = 1 ] && [ -f $b/net.h ] && same $b
	check $? "$g: a deleted net.h is generated again" log
	build $b && [ "$(runs)" = 0 ] && ! grep -q 'Building' log
	check $? "$g: then the build does nothing" log
	sleep 1
	sed -i 's/"b=3,1" }/"b=3,1", strategy = "unroll", unroll_limit = 64 }/' two/net.lua
	build $b && [ "$(runs)" = 1 ] && grep -q 'Building C object .*net\.c' log \
		&& ! grep -q 'Building C object .*main\.c' log && same $b
	check $? "$g: a kernel changed in the .c alone recompiles the .c, not main.c" log
	cp "$top/examples/cmake-project/net.lua" two/
done

# Templates given as options, from a directory of the project: a change
# to one regenerates.
cd "$SCRATCH" || exit 1
mkdir tp
cp "$top/examples/cmake-project/main.c" "$top/examples/cmake-project/net.lua" tp/
cp -r "$top/templates" tp/tpl
cat >tp/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(tp C)
find_package(bcastgen REQUIRED)
add_executable(app main.c)
bcastgen_add_kernels(app net.lua OPTIONS --templates tpl)
target_link_libraries(app m)
EOF
for g in $generators; do
	fresh tp
	b=tp-$g
	cp "$top/templates/file.c.lt" tp/tpl/file.c.lt
	configure tp $b $g && build $b && ./$b/app >out && cmp -s out "$expected"
	check $? "$g: OPTIONS --templates DIR: generated with DIR's templates, and built" log
	sleep 1
	sed -i '1a /* an edited template */' tp/tpl/file.c.lt
	build $b && [ "$(runs)" = 1 ] && grep -q 'an edited template' $b/net.c
	check $? "$g: editing a template in DIR regenerates" log
	build $b && [ "$(runs)" = 0 ]
	check $? "$g: then the build does nothing" log
done

# Two specs whose names differ after the first dot.
fresh
mkdir ver
cat >ver/layer.v1.lua <<'EOF'
kernel "add_v1" { op = "add", "x=4", "y=4" }
EOF
cat >ver/layer.v2.lua <<'EOF'
kernel "add_v2" { op = "add", "x=4", "y=" }
EOF
cat >ver/main.c <<'EOF'
#include <stdio.h>
#include "layer.v1.h"
#include "layer.v2.h"
int main(void)
{
	float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, s = 100, a[4], b[4];
	add_v1(x, y, a);
	add_v2(x, &s, b);
	printf("%g %g\n", a[3], b[3]);
	return 0;
}
EOF
cat >ver/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(ver C)
find_package(bcastgen REQUIRED)
add_executable(app main.c)
bcastgen_add_kernels(app layer.v1.lua layer.v2.lua)
EOF
configure ver ver-b make && build ver-b && [ -f ver-b/layer.v1.c ] && [ -f ver-b/layer.v2.h ] \
	&& [ "$(./ver-b/app)" = "44 104" ]
check $? "layer.v1.lua and layer.v2.lua give layer.v1.c and layer.v2.c, as with Make" log

# A C++-only project: the kernels are compiled as C++.
fresh
mkdir cxx
cp "$top/examples/cmake-project/net.lua" cxx/
cp "$top/examples/cmake-project/main.c" cxx/main.cpp
cat >cxx/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(cxx CXX)
find_package(bcastgen REQUIRED)
add_executable(app main.cpp)
bcastgen_add_kernels(app net.lua)
EOF
configure cxx cxx-b make && build cxx-b && grep -q 'Building CXX object .*net\.c' log \
	&& ./cxx-b/app >out && cmp -s out "$expected"
check $? "project(NAME CXX): the kernels are compiled as C++, linked and right" log

# find_package with a version: the installed one, its minor series, no other.
mm=${version%.*}
major=${mm%%.*} minor=${mm#*.}
cd "$SCRATCH" || exit 1
mkdir vq
# want VERSION FOUND: find_package(bcastgen VERSION) finds it or not.
want() {
	printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(vq NONE)' \
		"find_package(bcastgen $1)" 'message(STATUS "found=${bcastgen_FOUND} version=${bcastgen_VERSION}")' \
		>vq/CMakeLists.txt
	rm -rf vq-b
	cmake -S vq -B vq-b -DCMAKE_PREFIX_PATH="$prefix" >log 2>&1 || return 1
	if [ "$2" = yes ]; then grep -q "found=1 version=$version\$" log; else grep -q 'found=0 ' log; fi
}
fresh vq
want "$mm REQUIRED" yes && want "$version EXACT REQUIRED" yes && want "$major" yes
check $? "find_package(bcastgen $mm REQUIRED) finds version $version" log
fresh vq
want "$major.$((minor + 1))" no && want "$((major + 1))" no && want "$major.$minor.$(( ${version##*.} + 1 ))" no
check $? "find_package refuses a later minor or major version than $version" log
fresh vq
want "$major.0...$major.$((minor + 1))" yes && want "$major.$((minor + 1))...$((major + 1)).0" no
check $? "find_package with a version range" log

# The example from a prefix with a space in it, and uninstall from there.
fresh
sp="$SCRATCH/pre fix"
make -s -C "$top" install ${BCASTGEN_O:+O="$BCASTGEN_O"} PREFIX="$sp" >log 2>&1
check $? "make install PREFIX='.../pre fix'" log
cp -r "$top/examples/cmake-project" "ex dir"
rm -rf ex-b
cmake -S "ex dir" -B ex-b -DCMAKE_PREFIX_PATH="$sp" >log 2>&1 && build ex-b && ./ex-b/app >out \
	&& cmp -s out "$expected" && [ "$(runs)" = 1 ]
check $? "examples/cmake-project in a directory with a space, from that prefix" log
rm ex-b/net.c
build ex-b && [ "$(runs)" = 1 ] && ./ex-b/app >out && cmp -s out "$expected"
check $? "there too, a deleted net.c is generated again" log
make -s -C "$top" uninstall ${BCASTGEN_O:+O="$BCASTGEN_O"} PREFIX="$sp" >log 2>&1 \
	&& [ -z "$(find "$sp" -type f)" ]
check $? "make uninstall PREFIX='.../pre fix' removes every file" log

echo "1..$n"
exit $status
