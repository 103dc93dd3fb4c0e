#!/bin/sh
# t150-names: names are checked against what the emitted file declares,
# not against a fixed list of patterns: a name the code does not use is
# accepted and the file compiles with strict warnings in C and C++
# (-Wshadow too); kernels of one spec whose macros would collide, or a
# kernel given its table twice, are errors. The errors themselves are
# in t030 (command line) and here (spec).
. "$(dirname "$0")/lib.sh"

CFLAGS="-std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror -I$TESTS/../runtime"
CXXFLAGS="-std=c++11 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror -I$TESTS/../runtime"

# Names that look like the code's but that these kernels do not declare.
while IFS='|' read -r what args; do
	fresh
	rm -f k.c k.h
	# shellcheck disable=SC2086
	"$GEN" -o k.c $args 2>err && gcc $CFLAGS -c k.c -o k.o && g++ $CXXFLAGS -x c++ -c k.c -o k.o
	check $? "accepted and compiles: $what ($args)"
done <<'EOF_CASES'
a counter name where there is no loop|i0=3 y=3
a value local's name where none is read once|x=3 x_v=3
an output pointer's name in an unrolled kernel|x=3 out_0=3
a temporary's name where nothing is hoisted|--expr=x*exp(b)+t0 x=3,4 b=3,1 t0=3,4
out as the operand written in place|--inplace out=3 y=3
a name like a macro of another kernel|--name k x=3 K2_RANK=3
EOF_CASES

# A kernel's function may share its name with another kernel's operand
# or local: they shadow it there, which C allows and no compiler warns of.
fresh
printf 'kernel "a" { strategy = "loops", "x=3,4", "b=3,1" }\nkernel "b" { "x=3" }\nkernel "i0" { "y=3" }\n' >case.lua
"$GEN" case.lua -o out.c 2>err && gcc $CFLAGS -c out.c -o out.o && g++ $CXXFLAGS -x c++ -c out.c -o out.o
check $? "kernels named after another kernel's operand and loop counter compile"
rm -f out.c out.h out.o

# Spec kernels whose names collide in the file: spec | the first line of stderr.
while IFS='|' read -r what spec want; do
	fresh
	printf '%b\n' "$spec" >case.lua
	"$GEN" case.lua -o out.c 2>err
	rc=$?
	[ $rc = 1 ] && [ ! -e out.c ] && [ "$(head -n 1 err)" = "$want" ]
	check $? "$what"
	[ $rc = 1 ] || echo "#   exit $rc"
	[ "$(head -n 1 err)" = "$want" ] || echo "#   got: $(head -n 1 err)"
done <<'EOF_CASES'
kernels ab and AB: their macros collide|kernel "ab" { "x=3" }\nkernel "AB" { "x=3" }|case.lua:2: error: kernel 'AB': 'AB_COUNT' is both a macro of kernel 'ab' and a macro of kernel 'AB': kernel names must differ in more than case, as they give the macros' prefix
an operand named after another kernel's macro|kernel "a" { "x=3" }\nkernel "b" { "x=3", "A_RANK=3" }|case.lua:2: error: kernel 'b': 'A_RANK', an operand of kernel 'b', is also a macro of kernel 'a': choose another name
a kernel named after the file's include guard|kernel "OUT_H" { "x=3" }|case.lua:1: error: kernel 'OUT_H': 'OUT_H', the function of kernel 'OUT_H', is also the include guard of out.h: choose another name
a kernel named after a local of its own|kernel "k" { "x=3" }\nkernel "t0" { expr = "x*exp(b)", strategy = "loops", "x=3,4", "b=3,1" }|case.lua:2: error: kernel 't0': 't0', the function of kernel 't0', is also a value kernel 't0' computes once: choose another name
a kernel given its table twice|local k = kernel "a"\nk { "x=3" }\nk { "x=3" }|case.lua:1: error: kernel 'a' is given a table twice
a kernel named after a C library function|kernel "memcpy" { "x=3" }|case.lua:1: error: kernel 'memcpy': kernel name 'memcpy' is a function of the C library: choose another name
EOF_CASES

# Include guards made from any output name are identifiers C does not
# reserve (no leading '_', no "__", no leading digit), and compile; clang,
# where there is one, says so too.
clang=$(command -v clang)
while read -r file; do
	fresh
	rm -rf g && mkdir g
	h=g/${file%.c}.h
	"$GEN" -o "g/$file" --name k x=3 2>err \
	&& guard=$(sed -n '/^#ifndef /{s///p;q;}' "$h") \
	&& printf '%s\n' "$guard" | grep -Eq '^[A-Za-z][A-Za-z0-9_]*$' \
	&& ! printf '%s\n' "$guard" | grep -q '__' \
	&& printf '#include "%s"\n' "${h#g/}" >g/use.c && gcc $CFLAGS -c g/use.c -o g/use.o 2>>err \
	&& { [ -z "$clang" ] || $clang $CFLAGS -Wreserved-macro-identifier -fsyntax-only g/use.c 2>>err; }
	check $? "'$file' has the include guard '$guard'" err
done <<'EOF_CASES'
_x.c
..c
ñ.c
1k.c
a--b.c
x_.c
-x-.c
.c_.c
EOF_CASES

echo "1..$n"
exit $status
