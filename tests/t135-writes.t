#!/bin/sh
# t135-writes: writes all or none, for real. No output is an input or
# another output (by path and by inode); devices and FIFOs are written in
# place, never read or replaced; symlinks are followed; a failed rename
# puts the old files back and a kill between renames is completed by the
# next run (a rename(2) shim loaded with LD_PRELOAD); stale temporaries
# of dead processes are removed; modes are kept; the depfile lists every
# file read and refuses what make cannot read.
. "$(dirname "$0")/lib.sh"

top=$(cd "$TESTS/.." && pwd)
skip() {
	n=$((n + 1))
	echo "ok $n # SKIP $1"
}
A="--op mul x=2,3 y=3"
B="--op sub x=2,3 y=3"

cat >s.lua <<'EOF'
kernel "k" { op = "add", "x=2,3", "y=3" }
EOF
cp s.lua s.before

# 1. No output is an input or another output.
fresh
"$GEN" -o k.c -M ./k.h $A 2>err
[ $? = 1 ] && grep -q "the depfile './k.h' would overwrite an output" err && [ "$(ls)" = err ]
check $? "a depfile spelled ./k.h is the header: refused, nothing written"
fresh
ln ../s.lua dep.d
"$GEN" ../s.lua -o k.c -M dep.d 2>err
[ $? = 1 ] && grep -q "the depfile 'dep.d' would overwrite the spec '../s.lua'" err \
	&& cmp -s ../s.lua ../s.before && [ "$(ls)" = "dep.d
err" ]
check $? "a depfile hard-linked to the spec: refused, the spec untouched"
rm dep.d
fresh
echo old >k.c
ln -s k.c k.h
"$GEN" -o k.c $A 2>err
[ $? = 1 ] && grep -q "the output 'k.h' would overwrite an output" err \
	&& [ "$(cat k.c)" = old ] && [ -L k.h ]
check $? "a header that is a symlink to the .c: refused, the .c untouched"
rm k.c k.h
fresh
mkdir t
cp "$top"/templates/*.lt t/
cp t/kernel.h.lt h.before
ln -s t/kernel.h.lt k.h
"$GEN" --templates t -o k.c $A 2>err
[ $? = 1 ] && grep -q "the output 'k.h' would overwrite the template 't/kernel.h.lt'" err \
	&& cmp -s t/kernel.h.lt h.before && [ ! -e k.c ]
check $? "an output that is a template read: refused, the template untouched"
rm k.h
"$GEN" --templates t -o k.c -M t/../t/file.c.lt $A 2>err
[ $? = 1 ] && grep -q "would overwrite the template" err && cmp -s t/file.c.lt "$top"/templates/file.c.lt
check $? "a depfile that is a template by another spelling: refused"
cd ..

# 2. Special files are written in place.
fresh
"$GEN" -o k.c $A && cp k.c c.want
if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then
	"$GEN" -o k.c -M null $A && [ -c null ] && [ -f k.c ]
	check $? "-M onto a character device node: written, still a device"
	fresh
	"$GEN" -o k.c -M /dev/null $A && [ -c /dev/null ]
	check $? "-M /dev/null leaves /dev/null a character device"
else
	"$GEN" -o k.c -M /dev/null $A && [ -c /dev/null ]
	check $? "-M /dev/null leaves /dev/null a character device"
	skip "not root: cannot mknod a device in the scratch directory"
fi
fresh
mkfifo f.d
cat f.d >got &
"$GEN" -o k.c -M f.d $A
st=$?
wait
[ $st = 0 ] && [ -p f.d ] && grep -q '^k.c k.h:' got
check $? "a FIFO depfile with a reader receives the text, and stays a FIFO"
fresh
mkfifo k2.c
cat k2.c >got2 &
"$GEN" -o k2.c $A
st=$?
wait
[ $st = 0 ] && [ -p k2.c ] && grep -q '^void k2' got2 && [ -f k2.h ]
check $? "an existing FIFO as the .c is written, never read (no hang)"
fresh
ln -s /dev/full full.c
"$GEN" -o full.c $A 2>err
[ $? = 1 ] && grep -q "cannot write 'full.c': No space left on device" err \
	&& [ -L full.c ] && [ ! -e full.h ]
check $? "-o onto /dev/full: a clear error, exit 1, no header written"
fresh
"$GEN" --explain -o ex.c $A >/dev/full 2>err
[ $? = 1 ] && grep -q "cannot write to standard output: No space left on device" err \
	&& [ ! -e ex.c ] && [ ! -e ex.h ]
check $? "--explain -o with stdout on /dev/full: a clear error, exit 1, no file written"
for opt in --help --version; do
	fresh
	"$GEN" $opt >/dev/full 2>err
	[ $? = 1 ] && grep -q "cannot write to standard output" err
	check $? "$opt onto /dev/full: a clear error, exit 1"
done
cd ..

# 3. Symlinks are followed.
fresh
mkdir real links
"$GEN" -o real/k.c $A
ln -s ../real/k.c links/a.c
ln -s links/a.c b.c
"$GEN" -o b.c $B && [ -L b.c ] && [ -L links/a.c ] && [ -f real/k.c ] \
	&& grep -q ' - ' real/k.c && [ "$(ls -A real)" = "k.c
k.h" ]
check $? "a chain of relative symlinks: the links stay, the file they end at is updated"
fresh
ln -s made.c dangling.c
"$GEN" -o dangling.c $A && [ -L dangling.c ] && [ -f made.c ] && grep -q '^void dangling' made.c
check $? "a dangling symlink: its target is created, the link stays"
fresh
ln -s nodir/x.c broken.c
"$GEN" -o broken.c $A 2>err
[ $? = 1 ] && grep -q "cannot create a temporary file for 'broken.c'" err && [ ! -e broken.h ]
check $? "a symlink into a missing directory: a clear error, nothing written"
cd ..

# 4. A failed rename puts the old files back; a kill is completed later.
cat >shim.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

/* rename(2), failing with EIO or killing the process at its Nth call. */
int
rename(const char *from, const char *to)
{
	static int calls;
	static int (*real)(const char *, const char *);
	const char *fail = getenv("SHIM_RENAME_FAIL"), *die = getenv("SHIM_RENAME_KILL");

	calls++;
	if (fail && atoi(fail) == calls) {
		errno = EIO;
		return -1;
	}
	if (die && atoi(die) == calls)
		raise(SIGKILL);
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	return real(from, to);
}
EOF
fresh
mkdir ref
if ! cc -shared -fPIC -o ../shim.so ../shim.c -ldl 2>/dev/null; then
	skip "cannot build the rename shim"
	skip "cannot build the rename shim"
	skip "cannot build the rename shim"
	skip "cannot build the rename shim"
else
	(cd ref && "$GEN" -o k.c $B)
	"$GEN" -o k.c -M k.d $A
	cp k.c c.old && cp k.h h.old && cp k.d d.old
	LD_PRELOAD=$PWD/../shim.so SHIM_RENAME_FAIL=2 "$GEN" -o k.c -M k.d $B 2>err
	[ $? = 1 ] && grep -q "cannot rename '.*' to 'k.h': Input/output error" err \
		&& cmp -s k.c c.old && cmp -s k.h h.old && cmp -s k.d d.old
	check $? "the second rename fails: exit 1, a clear message, the old files all back"
	[ "$(ls -A)" = "c.old
d.old
err
h.old
k.c
k.d
k.h
ref" ]
	check $? "and no temporary, backup or journal is left"
	LD_PRELOAD=$PWD/../shim.so SHIM_RENAME_KILL=2 "$GEN" -o k.c -M k.d $B 2>err
	[ $? -gt 128 ] && [ -f .k.c.bcastgen-commit ] && cmp -s k.c ref/k.c && cmp -s k.h h.old
	check $? "killed between two renames: a mixed pair and the journal are left"
	"$GEN" -o k.c -M k.d $B && cmp -s k.c ref/k.c && cmp -s k.h ref/k.h \
		&& [ "$(ls -A | grep -c bcastgen)" = 0 ]
	check $? "the next run completes the commit: the new pair, no stray file"
fi
cd ..

# 5. Stale temporaries of dead processes are removed, live ones kept.
fresh
"$GEN" -o k.c $A
dead=999999
while kill -0 $dead 2>/dev/null; do dead=$((dead + 1)); done
echo junk >.k.c.bcastgen-$dead-AbC123
echo junk >.k.h.bcastgen-$dead-XyZ789.old
echo junk >.k.c.bcastgen-$$-LiVe42
"$GEN" -o k.c $B && [ ! -e .k.c.bcastgen-$dead-AbC123 ] \
	&& [ ! -e .k.h.bcastgen-$dead-XyZ789.old ] && [ -e .k.c.bcastgen-$$-LiVe42 ]
check $? "stale temporaries of a dead pid are removed, a live process's kept"
cd ..

# 6. Modes.
fresh
"$GEN" -o k.c $A && chmod 0640 k.c && "$GEN" -o k.c $B && [ "$(stat -c %a k.c)" = 640 ]
check $? "a rewritten output keeps its mode (0640)"
fresh
(umask 027 && "$GEN" -o n.c $A) && [ "$(stat -c %a n.c)" = 640 ] \
	&& (umask 077 && "$GEN" -o m.c $A) && [ "$(stat -c %a m.c)" = 600 ]
check $? "a new output gets 0666 & ~umask"
cd ..

# 7. The depfile: every file read, escaped for make, or an error.
fresh
d='we i#rd:$x%'
mkdir "$d" && cp ../s.lua "$d/s.lua"
"$GEN" "$d/s.lua" -o k.c -M k.d && cat >Makefile <<'EOF'
include k.d
k.c: ; @echo regenerate
EOF
touch -d '2001-01-01' k.c k.h
out=$(make -s k.c 2>&1)
touch "$d/s.lua" -d '2000-01-01'
out2=$(make -s k.c 2>&1)
rm "$d/s.lua"
out3=$(make -s k.c 2>&1)
[ "$out" = regenerate ] && [ -z "$out2" ] && [ "$out3" = regenerate ]
check $? "make reads a depfile with ' ', '#', ':', '\$' and '%' in the spec's path (newer, older, removed)"
nl='a
b'
fresh
mkdir "$nl" && cp ../s.lua "$nl/s.lua"
"$GEN" "$nl/s.lua" -o n.c -M n.d 2>err
[ $? = 1 ] && grep -q "make has no way to read a newline in a file name" err \
	&& [ ! -e n.c ] && [ ! -e n.d ]
check $? "a newline in a path: a clear error, nothing written"
fresh
mkdir "st*r" && cp ../s.lua "st*r/s.lua"
"$GEN" "st*r/s.lua" -o n.c -M n.d 2>err
[ $? = 1 ] && grep -q "make has no way to read '\*' in a file name" err && [ ! -e n.c ]
check $? "a '*' in a path: a clear error, nothing written"

# Templates read only the files the generator names, so 70 files are
# read through the API: lhost_render of 70 templates from a directory.
build=$(dirname "$GEN")
fresh
mkdir tt
i=0
while [ $i -lt 70 ]; do echo "x" >tt/t$i.lt; i=$((i + 1)); done
cat >many.c <<'EOF'
#include <stdio.h>
#include "lhost.h"
#include "output.h"

int
main(void)
{
	lua_State *L = lhost_open("tt");
	struct strbuf text = {0}, dep = {0};
	const char *targets[] = {"k.c", "k.h"};
	const char **read;
	char name[32];
	int n;

	for (int i = 0; i < 70; i++) {
		snprintf(name, sizeof name, "t%d.lt", i);
		lua_newtable(L);
		if (lhost_render(L, name, &text) != 0)
			return 1;
	}
	read = lhost_files_read(L, &n);
	if (output_depfile(&dep, targets, 2, read, n) != 0)
		return 1;
	fputs(dep.s, stdout);
	return 0;
}
EOF
if [ -f "$build/embedded.c" ] && cc -std=c99 -I"$top/gen" -I"$build" $(pkg-config --cflags lua5.4) \
	-o many many.c "$top/gen/lhost.c" "$top/gen/output.c" "$top/gen/util.c" \
	"$build/embedded.c" $(pkg-config --libs lua5.4) -lm 2>/dev/null; then
	./many >many.d
	[ $? = 0 ] && [ "$(head -n 1 many.d | tr ' ' '\n' | grep -c '^tt/t[0-9]*\.lt$')" = 70 ] \
		&& [ "$(grep -c '^tt/t[0-9]*\.lt:$' many.d)" = 70 ]
	check $? "70 template files read: the depfile lists all 70"
else
	skip "cannot build the API test (needs $build/embedded.c and lua5.4)"
fi
cd ..

echo "1..$n"
exit $status
