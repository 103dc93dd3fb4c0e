#!/bin/sh
# t412-make: the installed Make fragment as projects use it: a spec in a
# subdirectory has its depfile read, so a change to a template given with
# BCASTGEN_FLAGS = --templates DIR regenerates it, with and without
# BCASTGEN_SPECS; with BCASTGEN_SPECS, a config.lua beside a hand-written
# config.c is left alone; without BCASTGEN_SPECS, make deletes no
# generated file the Makefile does not name; BCASTGEN_CFLAGS carries no
# -ffp-contract; the firmware and teaching examples find the fragment
# through BCASTGEN_MK in the environment, the one a make was given
# before, or the bcastgen in PATH. Then make install into a prefix with
# a space in it: examples/make-project builds from there, and a new
# binary there regenerates; make uninstall removes it all. And from a
# prefix with '&' in it, with and without a space.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
fresh
install_into "$SCRATCH/dest" >log 2>&1
check $? "make install DESTDIR=... PREFIX=/usr" log
prefix=$SCRATCH/dest/usr
mk=$prefix/share/bcastgen/bcastgen.mk
expected=$top/examples/make-project/expected
# make's own lines would name the scratch directory, bcastgen-test.*.
MAKEFLAGS=--no-print-directory
export MAKEFLAGS

# A spec in gen/, templates in tpl/, with and without BCASTGEN_SPECS.
for mode in default declared; do
	fresh
	d=sub-$mode
	mkdir -p $d/gen
	cp "$top/examples/make-project/main.c" $d/
	cp "$top/examples/make-project/net.lua" $d/gen/
	cp -r "$top/templates" $d/tpl
	{
		[ $mode = declared ] && echo 'BCASTGEN_SPECS = gen/net.lua'
		echo 'BCASTGEN_FLAGS = --templates tpl'
		echo "include $mk"
		echo 'CFLAGS = -std=c99 -O2 -Igen $(BCASTGEN_CFLAGS)'
		printf 'app: main.o gen/net.o\n\t$(CC) -o $@ main.o gen/net.o -lm\n'
		echo 'main.o: gen/net.h'
	} >$d/Makefile
	make -C $d >log 2>&1 && ./$d/app >out && cmp -s out "$expected"
	check $? "$mode: a spec in gen/ with templates from tpl/ builds" log
	sleep 1
	sed -i '1a /* an edited template */' $d/tpl/file.c.lt
	make -C $d >log 2>&1 && grep -q 'an edited template' $d/gen/net.c && grep -q 'cc .*gen/net.o' log
	check $? "$mode: editing a template regenerates gen/net.c and recompiles it" log
	make -C $d >log 2>&1 && ! grep -q 'bcastgen\|cc ' log
	check $? "$mode: then make does nothing" log
done

# A Lua file that is not a spec, beside the C file it configures.
fresh
mkdir cfg
cp "$top/examples/make-project/main.c" "$top/examples/make-project/net.lua" cfg/
echo 'rate = 3  -- read by the program at run time, not a spec' >cfg/config.lua
printf 'int config_rate(void);\nint config_rate(void) { return 3; }\n' >cfg/config.c
cp cfg/config.c config.c.orig
# The Lua file edited after the C file: a rule from it would run.
touch -d '1 minute ago' cfg/config.c
cat >cfg/Makefile <<EOF
BCASTGEN_SPECS = net.lua
include $mk
CFLAGS = -std=c99 -O2 \$(BCASTGEN_CFLAGS)
app: main.o net.o config.o
	\$(CC) -o \$@ main.o net.o config.o -lm
main.o: net.h
EOF
make -C cfg >log 2>&1 && ./cfg/app >out && cmp -s out "$expected" && cmp -s cfg/config.c config.c.orig \
	&& [ ! -f cfg/config.h ] && [ ! -f cfg/config.bcastgen-stamp ] && [ "$(grep -c 'bin/bcastgen' log)" = 1 ]
check $? "BCASTGEN_SPECS = net.lua: net.lua is generated, config.lua and config.c are left alone" log
rm cfg/net.h
make -C cfg >log 2>&1 && [ -f cfg/net.h ] && ./cfg/app >out && cmp -s out "$expected"
check $? "BCASTGEN_SPECS: a deleted net.h is generated again" log
sleep 1
touch cfg/net.lua
make -C cfg >log 2>&1 && grep -q 'bin/bcastgen' log && ! grep -q 'cc ' log
check $? "BCASTGEN_SPECS: touching the spec regenerates, and recompiles nothing" log
fresh
printf 'BCASTGEN_SPECS = net.lua config\ninclude %s\n' "$mk" >bad.mk
! make -f bad.mk >log 2>&1 && grep -q "BCASTGEN_SPECS: config: a spec's name ends in .lua" log
check $? "BCASTGEN_SPECS: a name without .lua is an error that says so" log

# Without BCASTGEN_SPECS, net.c named by no rule (net.o comes first, and
# the header only from a depfile): an intermediate file of net.o <- net.c
# <- net.bcastgen-stamp, which make deletes once it is built unless told.
fresh
mkdir dflt
cp "$top/examples/make-project/main.c" "$top/examples/make-project/net.lua" dflt/
{
	echo "include $mk"
	echo 'CFLAGS = -std=c99 -O2 $(BCASTGEN_CFLAGS)'
	printf 'app: net.o main.o\n\t$(CC) -o $@ main.o net.o -lm\n'
	echo 'main.o: CFLAGS += -MMD'
	echo '-include main.d'
} >dflt/Makefile
make -C dflt >log 2>&1 && [ -f dflt/net.c ] && [ -f dflt/net.h ] && ! grep -q '^rm ' log \
	&& ./dflt/app >out && cmp -s out "$expected"
check $? "default: make deletes neither net.c nor net.h, though no rule names them" log
make -C dflt >log 2>&1 && [ -f dflt/net.c ] && ! grep -q 'bcastgen\|cc \|^rm ' log
check $? "default: then make does nothing, and deletes nothing" log
rm dflt/net.c
make -C dflt >log 2>&1 && [ -f dflt/net.c ] && grep -q 'cc .*-o net.o net.c' log
check $? "default: a deleted net.c is generated again, and net.o rebuilt" log

fresh
printf 'include %s\nall:\n\t@echo "$(BCASTGEN_CFLAGS)"\n' "$mk" >flags.mk
make -s -f flags.mk >out 2>&1 && grep -q -- "-I$prefix/include/bcastgen" out && ! grep -q 'ffp-contract' out
check $? "BCASTGEN_CFLAGS is the runtime's -I, and no -ffp-contract" out

# The examples' Makefiles: BCASTGEN_MK from the environment, or the
# fragment beside the bcastgen in PATH, there under a prefix with a
# space in it.
fresh
sp="$SCRATCH/pre fix"
make -s -C "$top" install ${BCASTGEN_O:+O="$BCASTGEN_O"} PREFIX="$sp" >log 2>&1 \
	&& [ -x "$sp/bin/bcastgen" ] && [ -f "$sp/share/bcastgen/bcastgen.mk" ]
check $? "make install PREFIX='.../pre fix'" log
fresh
cp -r "$top/examples/teaching" lesson
rm -rf lesson/*/
BCASTGEN_MK=$mk make -C lesson run >log 2>&1 && grep -q 'column_row' log && [ -x lesson/show ]
check $? "teaching: BCASTGEN_MK=... make run (in the environment)" log
make -C lesson clean >log 2>&1
make -C lesson BCASTGEN_MK="$mk" stretch >log 2>&1 && PATH="$sp/bin:$PATH" make -C lesson run >log 2>&1 \
	&& [ -x lesson/show ] && grep -q -- "-I$prefix/include/bcastgen" log
check $? "teaching: make BCASTGEN_MK=... then make run uses that, not the bcastgen in PATH (.../pre fix/bin)" log
BCASTGEN_MK="$sp/share/bcastgen/bcastgen.mk" make -C lesson -B show >log 2>&1 \
	&& grep -q "'$sp/include/bcastgen'" log
check $? "teaching: BCASTGEN_MK in the environment comes before the one kept" log
make -C lesson clean >log 2>&1 && [ ! -e lesson/.bcastgen-mk ] \
	&& PATH="$sp/bin:$PATH" make -C lesson run >log 2>&1 && [ -x lesson/show ] && grep -q "'$sp/include/bcastgen'" log
check $? "teaching: after make clean, make run finds the bcastgen in PATH (.../pre fix/bin)" log
fresh
cp -r "$top/examples/firmware" fw
BCASTGEN_MK=$mk make -n -C fw >log 2>&1 && grep -q 'bin/bcastgen *kernels.lua' log
check $? "firmware: BCASTGEN_MK=... make (in the environment) finds the fragment" log
PATH="$sp/bin:$PATH" make -n -C fw run >log 2>&1 && grep -q "'$sp/bin/bcastgen' *kernels.lua" log
check $? "firmware: make run finds the fragment beside the bcastgen in PATH (.../pre fix/bin)" log
make -C fw clean >log 2>&1
check $? "firmware: make clean does without the fragment" log

# A prefix with a space in it.
fresh
cp -r "$top/examples/make-project" mp
make -C mp BCASTGEN_MK="$sp/share/bcastgen/bcastgen.mk" >log 2>&1 && ./mp/app >out && cmp -s out "$expected"
check $? "examples/make-project from there: generated, built, and right" log
sleep 1
touch "$sp/bin/bcastgen"
make -C mp BCASTGEN_MK="$sp/share/bcastgen/bcastgen.mk" >log 2>&1 && grep -q "'$sp/bin/bcastgen'" log
check $? "a new bcastgen binary there regenerates" log
# The README's snippet, with the spaces of the path escaped as it says.
fresh
mkdir rp
cp "$top/examples/make-project/main.c" "$top/examples/make-project/net.lua" rp/
esc=$(printf '%s' "$sp" | sed 's/ /\\\\ /g')
sed -n '/^```make$/,/^```$/p' "$top/README.md" | sed '1d;$d' \
	| sed "s|/usr/local/share/bcastgen/bcastgen.mk|$esc/share/bcastgen/bcastgen.mk|" >rp/Makefile
make -C rp >log 2>&1 && ./rp/app >out && cmp -s out "$expected"
check $? "the README's Make snippet, included from there" log
fresh
make -s -C "$top" uninstall ${BCASTGEN_O:+O="$BCASTGEN_O"} PREFIX="$sp" >log 2>&1 \
	&& [ -z "$(find "$sp" -type f)" ]
check $? "make uninstall PREFIX='.../pre fix' removes every file" log

# A prefix with '&' in it, which a sed replacement would take for the
# text it replaces, and which the shell would take for its own.
for amp in "$SCRATCH/R&D tools" "$SCRATCH/R&D"; do
	fresh
	install_at "$amp" >log 2>&1 \
		&& grep -qxF "bcastgen_installed_prefix = $amp" "$amp/share/bcastgen/bcastgen.mk"
	check $? "make install PREFIX='.../${amp##*/}': the fragment has the prefix as it is" log
	rm -rf amp
	cp -r "$top/examples/make-project" amp
	make -C amp BCASTGEN_MK="$amp/share/bcastgen/bcastgen.mk" >log 2>&1 && ./amp/app >out \
		&& cmp -s out "$expected" && grep -qF "'$amp/bin/bcastgen'" log
	check $? "examples/make-project from '.../${amp##*/}': generated, built, and right" log
done

echo "1..$n"
exit $status
