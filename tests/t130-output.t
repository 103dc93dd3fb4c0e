#!/bin/sh
# t130-output: -o writes the .c and .h atomically and deterministically:
# the same bytes from any directory and output path, nothing written on
# an error, earlier outputs untouched by a failed run, and a file whose
# content would not change left alone (its mtime stays).
. "$(dirname "$0")/lib.sh"

args="--op mul --dtype i16 x=2,3,1 y=4"

fresh
mkdir -p a b/deep
(cd a && "$GEN" -o k.c $args)
(out=$PWD/b/k.c && cd b/deep && "$GEN" -o "$out" $args)
cmp -s a/k.c b/k.c && cmp -s a/k.h b/k.h
check $? "the same bytes from another directory and output path"
grep -q "$SCRATCH" a/k.c a/k.h b/k.c b/k.h
[ $? = 1 ]; check $? "no path in the output"

cp a/k.c k.c.before
cp a/k.h k.h.before
touch -d '2001-01-01 00:00' a/k.c a/k.h
(cd a && "$GEN" -o k.c $args)
[ -z "$(find a -newermt '2001-01-02' -name 'k.*')" ]
check $? "an unchanged kernel is not rewritten (mtime kept)"

(cd a && "$GEN" -o k.c $args z=5 2>/dev/null)
[ $? = 1 ] && cmp -s a/k.c k.c.before && cmp -s a/k.h k.h.before
check $? "a failed run leaves the earlier output untouched"
[ "$(ls -A a)" = "$(printf 'k.c\nk.h')" ]
check $? "a failed run leaves no temporary file"

(cd a && "$GEN" -o k.c ${args#--op mul} --op sub)
! cmp -s a/k.c k.c.before
check $? "a changed kernel is rewritten"
[ "$(stat -c %a a/k.c)" = "$(touch perm && stat -c %a perm)" ]
check $? "the output has the usual permissions"
(cd a && "$GEN" -o k.c ${args#--op mul} --op add -M k.d)
[ "$(ls -A a)" = "$(printf 'k.c\nk.d\nk.h')" ] && grep -q ' + ' a/k.c
check $? "a run that replaces three files leaves no temporary, backup or journal"

fresh
mkdir t
printf '%s\n' '@ error("broken on purpose")' >t/kernel.h.lt
cp "$TESTS/../templates/kernel.c.lt" t/
mkdir c
(cd c && "$GEN" --templates ../t -o k.c $args 2>../err)
[ $? = 1 ] && [ -z "$(ls -A c)" ] && grep -q 'kernel.h.lt:1: broken on purpose' err
check $? "a template error in the header writes neither file"

# The command a banner shows ("Made by:") makes the same bytes again,
# whether or not the first run gave --dtype (the banner always shows it).
while IFS='|' read -r what args; do
	fresh
	rm -rf made remade && mkdir made remade
	(cd made && eval "\"\$GEN\" -o k.c $args") \
	&& cmd=$(sed -n '/Made by:$/{n;s/^ \*   bcastgen //p;q}' made/k.c) && [ -n "$cmd" ] \
	&& (cd remade && eval "\"\$GEN\" -o k.c $cmd") \
	&& cmp -s made/k.c remade/k.c && cmp -s made/k.h remade/k.h
	check $? "the banner's command makes the same files: $what"
	[ -z "$cmd" ] || echo "#   $cmd"
done <<'EOF_CASES'
promoted dtypes|x:i8=4 y:i16=4
operands without a dtype|x=2,3 y=3
a dtype given, not the promotion|--dtype f64 x:i8=4 y:i16=4
a dtype given, the promotion|--dtype i16 x:i8=4 y:i16=4
where's condition|--op where c:u8=4 a:i8=4 b:i8=4
a float op of integers|--op sqrt x:i32=5 --out-dtype f32
an expression|--expr 'max(x*w + b, 0)' x:f16=2,4 w=4 b:f32=4
an expression's condition|--expr 'c ? a : -a' c:u8=4,1 a:i16=4,5
EOF_CASES

echo "1..$n"
exit $status
