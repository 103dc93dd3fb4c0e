#!/bin/sh
# t420-canonical: a kernel is the same bytes whatever the order its
# options are written in: 20 permutations of a spec kernel's fields and
# 20 of the command line's option words, for kernels that set every
# option, all give one .c and one .h; and the spec's banner shows the
# command line's canonical command, plus where the spec declares it.
. "$(dirname "$0")/lib.sh"


# permute SEED WORD...: the words in an order that SEED picks.
permute() {
	seed=$1
	shift
	printf '%s\n' "$@" | awk -v seed="$seed" 'BEGIN { srand(seed) }
		{ w[NR] = $0 }
		END { for (i = NR; i > 1; i--) { j = int(rand() * i) + 1; t = w[i]; w[i] = w[j]; w[j] = t }
		      for (i = 1; i <= NR; i++) print w[i] }'
}

# Each kernel: its fields as spec entries (one per line), then the operands.
for kind in op expr; do
	fresh
	if [ $kind = op ]; then
		fields='op = "mul"
axis = 1
inplace = true
strategy = "loops"
unroll_limit = 8
out_shape = "2,3,4,5"
dtype = "i32"
out_dtype = "i32"'
		words='--op=mul
--axis=1
--inplace
--strategy=loops
--unroll-limit=8
--out-shape=2,3,4,5
--dtype=i32
--out-dtype=i32'
		operands='"x:i32=2,3,4,5", "y=3"'
		cli_operands='x:i32=2,3,4,5 y=3'
	else
		fields='expr = "where(x > 0, x * y, -y)"
axis = 0
strategy = "unroll"
unroll_limit = 64
out_shape = "4,3"
dtype = "f64"
out_dtype = "f32"'
		words='--expr=where(x > 0, x * y, -y)
--axis=0
--strategy=unroll
--unroll-limit=64
--out-shape=4,3
--dtype=f64
--out-dtype=f32'
		operands='"x=4,3", "y:i16=4"'
		cli_operands='x=4,3 y:i16=4'
	fi
	rm -rf spec cli
	mkdir spec cli
	i=0
	while [ $i -lt 20 ]; do
		i=$((i + 1))
		{
			printf 'kernel "k" { '
			# shellcheck disable=SC2086
			(IFS='
'; permute "$i" $fields) | awk '{ printf "%s, ", $0 }'
			printf '%s }\n' "$operands"
		} >net.lua
		"$GEN" net.lua -o spec/net.c 2>err || { cat err; break; }
		cp spec/net.c "spec/$i.c"
		cp spec/net.h "spec/$i.h"
		set --
		while IFS= read -r w; do set -- "$@" "$w"; done <<EOF_WORDS
$(IFS='
'; permute $((i + 100)) $words)
EOF_WORDS
		# shellcheck disable=SC2086
		"$GEN" -o cli/k.c "$@" $cli_operands 2>err || { cat err; break; }
		cp cli/k.c "cli/$i.c"
		cp cli/k.h "cli/$i.h"
	done
	[ $i = 20 ] && [ -s spec/20.c ] && [ -s cli/20.c ]
	check $? "$kind: 20 permutations generate, from a spec and from the command line"
	same=0
	for f in spec/*.[ch]; do cmp -s "$f" "spec/1.${f##*.}" || same=1; done
	check $same "$kind: the spec's fields in 20 orders give the same bytes"
	same=0
	for f in cli/*.[ch]; do cmp -s "$f" "cli/1.${f##*.}" || same=1; done
	check $same "$kind: the options in 20 orders give the same bytes"
	grep -F ' *   bcastgen' cli/1.c >cli.cmd
	grep -F ' *   bcastgen' spec/1.c | sed "s/ (kernel 'k' of net.lua, line 1)\$//" >spec.cmd
	cmp -s cli.cmd spec.cmd && [ -s cli.cmd ]
	check $? "$kind: the spec's banner shows the command line's command, and where"
	sed -n '/^\/\* Begin k/,/^\/\* End k/p' cli/1.c >cli.body
	sed -n '/^\/\* Begin k/,/^\/\* End k/p' spec/1.c >spec.body
	cmp -s cli.body spec.body && [ -s cli.body ]
	check $? "$kind: the spec and the command line give the same function"
	cp spec/1.c "$SCRATCH/spec.$kind.c"
done
fresh spec.op.c
grep -q -- "--inplace --axis 1 --strategy loops --unroll-limit 8 --out-shape 2,3,4,5 --op multiply --dtype i32 --out-dtype i32 --name k x:i32=2,3,4,5 y=3 (kernel 'k'" spec.op.c
check $? "the canonical order is the field table's"

echo "1..$n"
exit $status
