#!/bin/sh
# t030-bad-input: each malformed input gives one clear message on stderr,
# its exit status (1 input, 2 usage), nothing on stdout, no signal, and
# no file written.
. "$(dirname "$0")/lib.sh"

rank65=x=$(printf '1,%.0s' $(seq 64))1
n=0 status=0
# run_case RC WANT ARGS...: bcastgen ARGS in a fresh directory (with
# int.lua, if there is one) exits RC, the first line of stderr is WANT,
# nothing is on stdout and no file is left behind.
run_case() {
	want_rc=$1 want=$2
	shift 2
	n=$((n + 1))
	mkdir "case$n" && cd "case$n" || exit 1
	[ -f ../int.lua ] && cp ../int.lua .
	"$GEN" "$@" >out 2>err
	rc=$?
	got=$(head -n 1 err)
	# Only --explain prints (its walkthrough) before failing.
	case " $* " in *" --explain "*) ;; *) [ -s out ] && got="stdout: $(cat out)" ;; esac
	rm -f out err int.lua
	left=$(ls -A)
	cd .. || exit 1
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ] && [ -z "$left" ]; then
		echo "ok $n - $*"
	else
		echo "not ok $n - $*"
		echo "#   want (exit $want_rc): $want"
		echo "#   got  (exit $rc): $got"
		[ -z "$left" ] || echo "#   files left behind: $left"
		status=1
	fi
}

# Each line: exit status | arguments, split into words | the first line of stderr.
set -f
while IFS='|' read -r want_rc args want; do
	# shellcheck disable=SC2086
	run_case "$want_rc" "$want" $args
done <<EOF_CASES
1|x=2,-3|bcastgen: error: bad size '-3' in shape '2,-3' of operand 'x': sizes are non-negative integers
1|x=2,a|bcastgen: error: bad size 'a' in shape '2,a' of operand 'x': sizes are non-negative integers
1|x=2.5|bcastgen: error: bad size '2.5' in shape '2.5' of operand 'x': sizes are non-negative integers
1|x=2,,3|bcastgen: error: empty size in shape '2,,3' of operand 'x'
1|x=3,|bcastgen: error: empty size in shape '3,' of operand 'x'
1|x|bcastgen: error: expected NAME=SHAPE (or a spec file NAME.lua), got 'x'
1|2x=3|bcastgen: error: operand name '2x' is not a C identifier
1|x=3 x=3|bcastgen: error: operand 'x' is given twice
1|x=99999999999999999999|bcastgen: error: size '99999999999999999999' in shape of operand 'x' is too large (the limit is 9223372036854775807)
1|x=4294967296,4294967296|bcastgen: error: operand 'x' has more elements than the limit 9223372036854775807
1|x=4294967296,1 y=4294967296|bcastgen: error: the result of broadcasting x(4294967296,1) y(4294967296,) has more elements than the limit 9223372036854775807
1|$rank65|bcastgen: error: operand 'x' has more than 64 dimensions
1|x=2,1,4 y=3,2|bcastgen: error: operands could not be broadcast together with shapes x(2,1,4) y(3,2)
1|--explain x=2,1,4 y=3,2|bcastgen: error: operands could not be broadcast together with shapes x(2,1,4) y(3,2)
1|--axis 1 x=2,3,4,5 y=4,5|bcastgen: error: operands could not be broadcast together with shapes x(2,3,4,5) y(4,5)
1|--axis 3 x=2,3,4,5 y=4,5|bcastgen: error: axis 3 is out of range for x(2,3,4,5) and y(4,5): it must be -1, 0 to 2, or -3 to -2
1|--axis -2 x=2,3,4,5 y=4,5|bcastgen: error: operands could not be broadcast together with shapes x(2,3,4,5) y(4,5)
1|--axis -4 x=2,3,4,5 y=4,5|bcastgen: error: axis -4 is out of range for x(2,3,4,5) and y(4,5) (axis -4 is axis -1 here: an axis k below -1 means |4 - 2| + k + 1), and for these shapes it must be -1, 0 to 2, or -3 to -2
1|--axis -5 x=2,3,4,5 y=4,5|bcastgen: error: axis -5 is out of range for x(2,3,4,5) and y(4,5): Paddle's axes go from -4 to 3 (the larger rank is 4), and for these shapes it must be -1, 0 to 2, or -3 to -2
1|--axis 2 x=2,3 y=1|bcastgen: error: axis 2 is out of range for x(2,3) and y(1,): Paddle's axes go from -2 to 1 (the larger rank is 2), and for these shapes it must be -1, 0 to 1, or -2 (y counts as rank 0 once its trailing 1s are dropped)
1|--axis 1 x=2,3 y=1,3|bcastgen: error: axis 1 is out of range for x(2,3) and y(1,3), which have the same rank: it must be -1 or 0
1|--axis foo x=2 y=2|bcastgen: error: bad axis 'foo': expected an integer
1|--axis=99999999999 x=2 y=2|bcastgen: error: axis 99999999999 is out of range: it must be from -2147483648 to 2147483647
1|--axis 0 x=2 y=2 z=2|bcastgen: error: Paddle's axis needs exactly two operands (x and y), got 3
1|--inplace y=2 x=3,2,2|bcastgen: error: cannot write the result in place into 'y': the result shape (3,2,2) is not the shape of 'y' (2,)
1|--lang zh --inplace y=2 x=3,2,2|bcastgen: error: 不能把结果原地写回 'y'：结果的形状 (3,2,2) 不是 'y' 的形状 (2,)
1|x=2,1,4 y=3,2 --lang=zh|bcastgen: error: 这些形状的张量无法一起广播：x(2,1,4) y(3,2)
1|--lang zh --axis 1 x=2,3 y=1,3|bcastgen: error: axis 1 超出了范围（x(2,3) 和 y(1,3)），两者维度数相同，axis 只能是 -1 或 0
1|--lang fr x=2|bcastgen: error: bad lang 'fr': expected en or zh
2|--explain --format svg --elements x=2|bcastgen: error: --elements lists the elements in words: with --format text or html, not svg
1|x=2,a --lang zh|bcastgen: error: 维度大小 'a' 不对（形状 '2,a'，张量 'x'）：维度的大小必须是非负整数
1|--lang zh x=2,,3|bcastgen: error: 形状 '2,,3' 里有一个维度的大小是空的（张量 'x'）
1|--lang zh x=99999999999999999999|bcastgen: error: 维度大小 '99999999999999999999' 太大了（张量 'x'）：上限是 9223372036854775807
1|--lang zh x=4294967296,4294967296|bcastgen: error: 张量 'x' 的元素个数超过了上限 9223372036854775807
1|--lang zh $rank65|bcastgen: error: 张量 'x' 的维度超过了 64 个
1|--lang zh x|bcastgen: error: 张量应写成 NAME=SHAPE（或者给一个规格文件 NAME.lua），收到的是 'x'
1|--lang zh 2x=3|bcastgen: error: 张量名 '2x' 不是合法的 C 标识符
1|--lang zh x:=3|bcastgen: error: 数据类型 '' 不对（张量 'x'）
1|--lang zh x=3 x=3|bcastgen: error: 张量 'x' 出现了两次
1|--lang zh aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=3|bcastgen: error: 张量名 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' 超过了 63 个字符
1|--lang zh x:f33=3|bcastgen: error: 未知的数据类型 'f33'（张量 'x'），可用的有：f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64
1|--lang zh x=2,a --lang en|bcastgen: error: 维度大小 'a' 不对（形状 '2,a'，张量 'x'）：维度的大小必须是非负整数
1|--lang en x=2,a --lang zh|bcastgen: error: bad size 'a' in shape '2,a' of operand 'x': sizes are non-negative integers
1|--lang zh --axis foo x=2 y=2|bcastgen: error: axis 'foo' 不对：应当是一个整数
1|--lang zh --axis=99999999999 x=2 y=2|bcastgen: error: axis 99999999999 超出了范围：必须在 -2147483648 到 2147483647 之间
1|--lang zh --op copy --out-shape 2, x=2|bcastgen: error: --out-shape：形状 '2,' 里有一个维度的大小是空的
1|--lang zh --op copy --out-shape 2,-4 x=2|bcastgen: error: --out-shape：维度大小 '-4' 不对（形状 '2,-4'）：维度的大小必须是非负整数
1|--lang zh --unroll-limit x -o k.c x=2|bcastgen: error: bad unroll limit 'x': expected an integer
1|--explain --elements x=20,20 y=20|bcastgen: error: --elements lists at most 256 elements, and the result has 400: leave it out, or explain smaller shapes
1|--templates /nonexistent --explain x=2|bcastgen: error: cannot open template '/nonexistent/explain.txt.lt': No such file or directory
1|-o k.c --op frobnicate x=3|bcastgen: error: unknown op 'frobnicate' (see bcastgen --help)
1|-o k.c --expr=max(x*w+z,0) x=3 w=3|expr:1:9: error: unknown operand 'z'
1|-o k.c --expr=x+300 --dtype=u8 x=3|expr:1:3: error: '300' does not fit u8 (0 to 255)
1|-o k.c --expr=sqrt(x) --dtype=i32 x=3|expr:1:1: error: 'sqrt' needs float operands, not i32: cast with f32(...) or f64(...)
1|-o k.c --expr=x<<1 x=3|expr:1:2: error: '<<' needs integer operands, not f32
1|-o k.c --expr=x+(y x=3 y=3|expr:1:5: error: expected ')'
1|--shape --expr=x+1 x=3 y=3|bcastgen: error: operand 'y' is not used in the expression
1|-o k.c --op sqrt --dtype i16 x=3|bcastgen: error: op 'sqrt' does not apply to dtype i16: it needs f16, f32 or f64
2|-o k.c --op add --expr=x x=3|bcastgen: error: give --op or --expr, not both
1|-o k.c --strategy=unroll --unroll-limit=512 --expr=x+x+x+x+x+x+x+x+x+x x=8,64|bcastgen: error: cannot unroll 512 elements of 19 nodes each: at most 1024 nodes are unrolled in all, so at most 53 elements of this computation (use --strategy loops)
1|-o k.c --strategy=unroll --unroll-limit=512 --expr=x+x x=600|bcastgen: error: cannot unroll 600 elements: at most 512 are unrolled, whatever --unroll-limit says (use --strategy loops)
1|-o k.c --strategy=unroll --unroll-limit=512 x=400 y=400|bcastgen: error: cannot unroll 400 elements of 3 nodes each: at most 1024 nodes are unrolled in all, so at most 341 elements of this computation (use --strategy loops)
1|-o k.c --strategy=loops --expr=x*exp(b)+t0 x=3,4 b=3,1 t0=3,4|bcastgen: error: 't0', an operand of kernel 'k', is also a value kernel 'k' computes once: choose another name
1|-o k.c --dtype f8 x=3|bcastgen: error: unknown dtype 'f8': expected f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64
1|-o k.c x:f128=3|bcastgen: error: unknown dtype 'f128' of operand 'x': expected f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64
1|-o k.c --op shl x=3 y=3|bcastgen: error: op 'left_shift' does not apply to dtype f32: it needs an integer dtype
1|--shape --op invert --dtype f64 x=3|bcastgen: error: op 'invert' does not apply to dtype f64: it needs an integer dtype
1|-o k.c --op sub x=3|bcastgen: error: op 'subtract' takes 2 operands, got 1
1|-o k.c --op not x=3 y=3|bcastgen: error: op 'logical_not' takes 1 operand, got 2
1|-o k.c --strategy unroll x=9,9|bcastgen: error: cannot unroll 81 elements: the limit is 64 (set it with --unroll-limit, at most 512, or use --strategy loops)
1|-o k.c --strategy unroll --unroll-limit 512 x=513|bcastgen: error: cannot unroll 513 elements: at most 512 are unrolled, whatever --unroll-limit says (use --strategy loops)
1|-o k.c --stream on x=0,100|bcastgen: error: cannot stream the output: non-temporal stores need an innermost loop that writes whole 64-byte lines (16 elements) one after the other, and the output has no elements: there is nothing to stream
1|-o k.c --stream on --strategy unroll x=32|bcastgen: error: cannot stream the output: non-temporal stores need an innermost loop that writes whole 64-byte lines (16 elements) one after the other, and --strategy unroll writes a statement per element, with no loop (use --strategy loops)
1|-o k.c --stream on --strategy block x=100,3 y=100,1|bcastgen: error: cannot stream the output: non-temporal stores need an innermost loop that writes whole 64-byte lines (16 elements) one after the other, and --strategy block writes the innermost loops out (use --strategy loops)
1|-o k.c --stream on x=|bcastgen: error: cannot stream the output: non-temporal stores need an innermost loop that writes whole 64-byte lines (16 elements) one after the other, and the output is one element
1|-o k.c --unroll-limit 5000 x=3|bcastgen: error: unroll limit 5000 is out of range: it must be from 0 to 512
1|-o k.c --strategy fast x=3|bcastgen: error: bad strategy 'fast': expected auto, unroll, loops or block
1|-o k.c --out-shape 3,4 x=3|bcastgen: error: the result shape (3,) is not the --out-shape (3,4)
1|-o k.c --out-shape 3,-4 x=3|bcastgen: error: bad --out-shape: bad size '-4' in shape '3,-4': sizes are non-negative integers
1|-o k.c --op copy --out-shape 2, x=3|bcastgen: error: bad --out-shape: empty size in shape '2,'
1|-o k.c --op copy --out-shape 99999999999999999999 x=3|bcastgen: error: bad --out-shape: size '99999999999999999999' is too large (the limit is 9223372036854775807)
1|-o k.c --op copy --out-shape 4294967296,4294967296 x=3|bcastgen: error: bad --out-shape: more elements than the limit 9223372036854775807
1|-o k.c --op copy --out-shape ${rank65#x=} x=3|bcastgen: error: bad --out-shape: more than 64 dimensions
1|-o k.c --op copy x=3|bcastgen: error: op 'copy' needs --out-shape: the shape to broadcast 'x' to
1|-o k.c --op copy --out-shape 2 x=3|bcastgen: error: operands could not be broadcast together with shapes x(3,) out(2,)
1|-o k.c --op copy --out-shape 3 x=2,3|bcastgen: error: the result shape (2,3) is not the --out-shape (3,)
1|-o k.c out=3|bcastgen: error: 'out', an operand of kernel 'k', is also the output parameter of kernel 'k': choose another name
1|-o k.c int=3|bcastgen: error: operand name 'int' is a C or C++ keyword: choose another name
1|-o k.c size_t=3|bcastgen: error: operand name 'size_t' is a name <stddef.h> defines: choose another name
1|-o k.c INT8_MAX=3|bcastgen: error: operand name 'INT8_MAX' is a name <stdint.h> defines: choose another name
1|-o k.c SIZE_MAX=3|bcastgen: error: operand name 'SIZE_MAX' is a name <stdint.h> defines: choose another name
1|-o k.c x=3 NAN=3|bcastgen: error: operand name 'NAN' is a name <math.h> defines: choose another name
1|-o k.c INFINITY=3|bcastgen: error: operand name 'INFINITY' is a name <math.h> defines: choose another name
1|-o k.c MAXFLOAT=3|bcastgen: error: operand name 'MAXFLOAT' is a name <math.h> defines: choose another name
1|-o k.c PTRDIFF_MIN=3|bcastgen: error: operand name 'PTRDIFF_MIN' is a name <stdint.h> defines: choose another name
1|-o k.c UINT8_WIDTH=3|bcastgen: error: operand name 'UINT8_WIDTH' is a name <stdint.h> defines: choose another name
1|-o k.c unix=3|bcastgen: error: operand name 'unix' is a name a compiler in its GNU mode defines: choose another name
1|-o k.c a__b=3|bcastgen: error: operand name 'a__b' is reserved for the C and C++ implementations (_X, and __ anywhere): choose another name
1|-o k.c CHAR_BIT=3|bcastgen: error: operand name 'CHAR_BIT' is a name <limits.h> defines: choose another name
1|-o k.c bc_x=3|bcastgen: error: operand name 'bc_x' is the runtime's (bc_ and BC_): choose another name
1|-o k.c __x=3|bcastgen: error: operand name '__x' is reserved for the C and C++ implementations (_X, and __ anywhere): choose another name
1|-o k.c K_RANK=3|bcastgen: error: 'K_RANK', an operand of kernel 'k', is also a macro of kernel 'k': choose another name
1|-o k.c --expr=x*x+x_v x=3 x_v=3|bcastgen: error: 'x_v', an operand of kernel 'k', is also the local that holds x's value in kernel 'k': choose another name
1|-o k.c --strategy=loops x=3,4 y=3,1 out_0=1|bcastgen: error: 'out_0', an operand of kernel 'k', is also a pointer kernel 'k' moves through out: choose another name
1|-o k.c --strategy=loops x=3 i0=3|bcastgen: error: 'i0', an operand of kernel 'k', is also a loop counter of kernel 'k': choose another name
1|-o k.c --strategy=loops --name x_0 x=3,4 y=3,1|bcastgen: error: 'x_0', the function of kernel 'x_0', is also a pointer kernel 'x_0' moves through x: choose another name
1|-o k.c --name K_H x=3|bcastgen: error: 'K_H', the function of kernel 'K_H', is also the include guard of k.h: choose another name
1|-o k.c --name memcpy x=3|bcastgen: error: kernel name 'memcpy' is a function of the C library: choose another with --name
1|-o main.c x=3|bcastgen: error: kernel name 'main' is a function of the C library: choose another with --name
1|-o k.c --name sqrtf x=3|bcastgen: error: kernel name 'sqrtf' is a function of the C library: choose another with --name
1|-o k.c --name _k x=3|bcastgen: error: kernel name '_k' is reserved at file scope for the C implementation (_x): choose another with --name
1|-o k.c -M k.c x=3|bcastgen: error: the depfile 'k.c' would overwrite an output: choose another path
1|-o k.c -M k.h x=3|bcastgen: error: the depfile 'k.h' would overwrite an output: choose another path
1|-o out/bc.c x=3|bcastgen: error: output file 'out/bc.c' would write a header bc.h that hides the one the kernels include: choose another name
1|-o out/stdint.c x=3|bcastgen: error: output file 'out/stdint.c' would write a header stdint.h that hides the one the kernels include: choose another name
1|-o bc_stream.c --stream on --name kst x=64|bcastgen: error: output file 'bc_stream.c' would write a header bc_stream.h that hides the one the kernels include: choose another name
1|-o bc_ref.c --name k x=3|bcastgen: error: output file 'bc_ref.c' would write a header bc_ref.h that hides the one the kernels include: choose another name
1|-o bc_math.c --name k x=3|bcastgen: error: output file 'bc_math.c' would write a header bc_math.h that hides the one the kernels include: choose another name
1|-o assert.c --stream on --name k x=4096|bcastgen: error: output file 'assert.c' would write a header assert.h that hides the one the kernels include: choose another name
1|-o features.c --name k x=4|bcastgen: error: output file 'features.c' would write a header features.h that hides the one the kernels include: choose another name
1|-o stdc-predef.c --name k x=4|bcastgen: error: output file 'stdc-predef.c' would write a header stdc-predef.h that hides the one the kernels include: choose another name
1|-o immintrin.c x=3|bcastgen: error: output file 'immintrin.c' would write a header immintrin.h that hides the one the kernels include: choose another name
1|-o out/xmmintrin.c x=3|bcastgen: error: output file 'out/xmmintrin.c' would write a header xmmintrin.h that hides the one the kernels include: choose another name
1|-o mm_malloc.c x=3|bcastgen: error: output file 'mm_malloc.c' would write a header mm_malloc.h that hides the one the kernels include: choose another name
1|-o BC_Stream.c --name k x=3|bcastgen: error: output file 'BC_Stream.c' would write a header BC_Stream.h that hides the one the kernels include: choose another name
1|-o k.c --name j0 x=3|bcastgen: error: kernel name 'j0' is a function of the C library: choose another with --name
1|-o k.c --name va_start x=3|bcastgen: error: kernel name 'va_start' is a function of the C library: choose another with --name
1|-o k.c k=3|bcastgen: error: 'k', an operand of kernel 'k', is also the function of kernel 'k': choose another name
1|-o k.h x=3|bcastgen: error: output file 'k.h' does not end in .c
1|-o my-k.c x=3|bcastgen: error: kernel name 'my-k' is not a C identifier (it comes from -o; set it with --name)
1|-o k.c --name for x=3|bcastgen: error: kernel name 'for' is a C or C++ keyword: choose another with --name
1|-o nodir/k.c x=3|bcastgen: error: cannot create a temporary file for 'nodir/k.c': No such file or directory
1|-o k.c --inplace --op lt x=3 y=3|bcastgen: error: --inplace writes the result into 'x', whose dtype f32 is not the result's u8
2|--frobnicate x=2|bcastgen: error: unknown option '--frobnicate'
2|--shape --explain x=2,3 y=3|bcastgen: error: --shape prints only the result shape: not with --explain, which walks through it
2|--explain --shape x=2,3 y=3|bcastgen: error: --shape prints only the result shape: not with --explain, which walks through it
2|--explain --format pdf x=2|bcastgen: error: bad format 'pdf': expected text, svg or html
2|--explain deep x=2|bcastgen: error: bad depth 'deep' for --explain: expected rule, strides or kernel
2|--explain --wrap 5 x=2|bcastgen: error: bad --wrap '5': expected 0 (a paragraph a line) or a width of 20 to 1000 columns
2|--explain --wrap -1 x=2|bcastgen: error: bad --wrap '-1': expected 0 (a paragraph a line) or a width of 20 to 1000 columns
2|--explain --wrap 99999999999999999999 x=2|bcastgen: error: bad --wrap '99999999999999999999': expected 0 (a paragraph a line) or a width of 20 to 1000 columns
2|--wrap 0 x=2|bcastgen: error: --wrap needs --explain with text or html: it sets the width of the text
2|--explain --values zeros x=2|bcastgen: error: bad --values 'zeros': expected arange
2|--values arange x=2|bcastgen: error: --values needs --explain: it fills the operands of the explanation
1|--explain --values arange --op divide x=2 y=2|bcastgen: error: --values arange computes +, -, *, maximum, minimum, negative and absolute on numbers, and this kernel computes divide
1|--explain --values arange --op less x=2 y=2|bcastgen: error: --values arange computes +, -, *, maximum, minimum, negative and absolute on numbers, and this kernel computes less
1|--explain --values arange --expr x*0.5 x=2|bcastgen: error: --values arange computes on integers, and this kernel has the constant 0.5
1|--explain --values arange x=20,20 y=20|bcastgen: error: --values shows at most 256 values, and the result has 400: leave it out, or explain smaller shapes
2|--explain --format svg --wrap 0 x=2|bcastgen: error: --wrap needs --explain with text or html: it sets the width of the text
2|x=2 --explain=loops|bcastgen: error: bad depth 'loops' for --explain: expected rule, strides or kernel
2|--explain= x=2|bcastgen: error: option '--explain' needs a value after '='
2|--explain rule x=2 --explain=kernel|bcastgen: error: option '--explain' is given twice
2|--explain strides --shape x=2|bcastgen: error: --shape prints only the result shape: not with --explain, which walks through it
2|--format svg x=2|bcastgen: error: --format needs --explain or --list: it chooses what they write
2|--format json x=2|bcastgen: error: --format needs --explain or --list: it chooses what they write
2|--list|bcastgen: error: option '--list' needs a value
2|--list foo|bcastgen: error: bad list 'foo': expected ops
2|--list ops --format xml|bcastgen: error: bad format 'xml' for --list: expected text or json
2|--list=ops --list ops|bcastgen: error: option '--list' is given twice
2|--list ops x=2,3 y=3|bcastgen: error: --list prints a table: not with operands, a spec file or options other than --format
2|x=2 --list=ops --format json|bcastgen: error: --list prints a table: not with operands, a spec file or options other than --format
2|--list ops --explain|bcastgen: error: --list prints a table: not with operands, a spec file or options other than --format
2|--list ops -o k.c|bcastgen: error: --list prints a table: not with operands, a spec file or options other than --format
2|--elements x=2|bcastgen: error: --elements needs --explain: it says how to explain
2|--explain --format html -o k.c x=2|bcastgen: error: --format html writes the explanation to standard output: not with -o
2|--lang zh --lang en x=2|bcastgen: error: option '--lang' is given twice
2|--op add --op mul x=2 y=2|bcastgen: error: option '--op' is given twice
2|-o k.c --axis=1 --axis 2 x=2 y=2|bcastgen: error: option '--axis' is given twice
2|--name a --name b x=2|bcastgen: error: option '--name' is given twice
2|--shape=1 x=2|bcastgen: error: option '--shape' takes no value
2|--inplace=1 x=2|bcastgen: error: option '--inplace' takes no value
2|--axis|bcastgen: error: option '--axis' needs a value
2|--shape|bcastgen: error: no operands: give at least one NAME=SHAPE
2||bcastgen: error: no operands: give at least one NAME=SHAPE
1|--axis=+1 x=2,3 y=3|bcastgen: error: bad axis '+1': expected an integer
1|--axis=1x x=2,3 y=3|bcastgen: error: bad axis '1x': expected an integer
1|--axis=- x=2,3 y=3|bcastgen: error: bad axis '-': expected an integer
1|--unroll-limit=+4 -o k.c x=3|bcastgen: error: bad unroll limit '+4': expected an integer
1|-o k.c x=3 y=1 --axis -3|bcastgen: error: axis -3 is out of range for x(3,) and y(1,), which have the same rank: it must be -1 or 0
2|--explain s.lua -o k.c|bcastgen: error: --explain does not apply to a spec file: it answers for the operands of the command line
2|--shape s.lua -o k.c|bcastgen: error: --shape does not apply to a spec file: it answers for the operands of the command line
2|dir=x/s.lua|bcastgen: error: a spec file needs -o FILE.c
2|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 x=3 y=3|bcastgen: error: a quantized kernel needs the scale and zero point of 'out': give --quant out=SCALE,ZERO_POINT
2|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 --quant x=0.05,1 x=3 y=3|bcastgen: error: --quant of 'x' is given twice
2|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 --quant z=1,1 x=3 y=3|bcastgen: error: --quant names 'z', which is not an operand (nor out, the output)
1|--op maximum --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: a quantized kernel computes add, subtract or multiply, not 'maximum'
2|--dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 --expr x+y x=3 y=3|bcastgen: error: --quant computes one op, add, subtract or multiply: a fused --expr is not quantized
1|--op add --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: a quantized kernel computes in i8 or i16, not f32: give --dtype i8 or i16
1|--op add --dtype u8 --quant x=0.05,3 --quant y=0.02,5 --quant out=0.1,1 x=3 y=3|bcastgen: error: a quantized kernel computes in i8 or i16, not u8: give --dtype i8 or i16
1|--op add --dtype i16  --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: the zero point of 'x' is -3: TFLite Micro's i16 kernels need every zero point 0
1|--op add --dtype i8 --quant x=0,1 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: scale '0' of 'x' is not a positive, finite float32 (from 1.4e-45 to 3.40282e+38)
1|--op add --dtype i8 --quant x=-0.5,1 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: bad scale '-0.5' of 'x': expected a positive decimal number, such as 0.0472 or 4.72e-2
1|--op add --dtype i8 --quant x=nan,1 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: bad scale 'nan' of 'x': expected a positive decimal number, such as 0.0472 or 4.72e-2
1|--op add --dtype i8 --quant x=inf,1 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: bad scale 'inf' of 'x': expected a positive decimal number, such as 0.0472 or 4.72e-2
1|--op add --dtype i8 --quant x=1e39,1 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: scale '1e39' of 'x' is not a positive, finite float32 (from 1.4e-45 to 3.40282e+38)
1|--op add --dtype i8 --quant x=0.05,128 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: the zero point of 'x', 128, is out of i8's range, -128 to 127
1|--op add --dtype i8 --quant x=0.05,1.5 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3|bcastgen: error: bad zero point '1.5' of 'x': expected an integer
1|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 x:i16=3 y=3|bcastgen: error: operand 'x' is stored as i16, but the quantized kernel is i8: its operands and output share one dtype
1|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 --out-dtype i16 x=3 y=3|bcastgen: error: the quantized kernel is i8, its output i16: its operands and output share one dtype
1|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 x=3 y=3 z=3|bcastgen: error: a quantized add takes two operands, got 3
1|--op add --dtype i8 --quant x=0.05,-3 --quant out=0.1,-1 x=3 out=3|bcastgen: error: operand 'out' takes the name that --quant gives the output: rename the operand
2|--op add --dtype i8 --activation relu x=3 y=3|bcastgen: error: --activation applies to quantized kernels: give --quant for each operand and for out
2|--op add --dtype i8 --rounding single x=3 y=3|bcastgen: error: --rounding applies to quantized kernels: give --quant for each operand and for out
1|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=0.1,-1 --activation relu7 x=3 y=3|bcastgen: error: bad activation 'relu7': expected none, relu, relu6 or relu_n1_to_1
1|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=1e-9,-1 x=3 y=3|bcastgen: error: the multiplier of 'out', 95.367435758885748, is not between 0 and 1: TFLite Micro refuses these scales (QuantizeMultiplierSmallerThanOneExp)
1|--op mul --dtype i8 --quant x=1000,-3 --quant y=1000,5 --quant out=1e-6,-1 x=3 y=3|bcastgen: error: the output multiplier 1000000002524.7573 needs a left shift of 40, past 30: TFLite Micro's 1 << shift is undefined there under double rounding (--rounding single saturates it)
1|--op add --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=1e-30,-1 --activation relu6 x=3 y=3|bcastgen: error: the multiplier of 'out', 9.5367432759293013e+22, is not between 0 and 1: TFLite Micro refuses these scales (QuantizeMultiplierSmallerThanOneExp)
1|--op mul --dtype i8 --quant x=0.05,-3 --quant y=0.02,5 --quant out=1e-30,-1 --rounding single --activation relu6 x=3 y=3|bcastgen: error: the activation's bound 6 / 1e-30 does not fit int32
1|--op add --dtype i8 --quant x=0.05 x=3 y=3|bcastgen: error: bad --quant 'x=0.05': expected NAME=SCALE,ZERO_POINT, such as x=0.0472,-3
1|--op add --dtype i8 --quant x=0x1p3,1 x=3 y=3|bcastgen: error: bad scale '0x1p3' of 'x': expected a positive decimal number, such as 0.0472 or 4.72e-2
1|--strategy block x= y= -o k.c|bcastgen: error: cannot write out a block: it needs two loops or more, the innermost of at most 64 iterations (1024 nodes in all); the result is a scalar, with no loop (use --strategy loops)
EOF_CASES
set +f

# Leading spaces in an integer, which the table's words cannot hold:
# refused as shapes refuse them, from the command line and from a spec.
run_case 1 "bcastgen: error: bad axis ' 1': expected an integer" --axis ' 1' x=2,3 y=3
run_case 1 "bcastgen: error: bad axis '1 ': expected an integer" --axis '1 ' x=2,3 y=3
run_case 1 "bcastgen: error: bad unroll limit ' 4': expected an integer" -o k.c --unroll-limit ' 4' x=3
run_case 1 "bcastgen: error: bad size ' 3' in shape ' 3' of operand 'x': sizes are non-negative integers" 'x= 3'
printf 'kernel "k" { axis = " 1", "x=2,3", "y=3" }\n' >int.lua
run_case 1 "int.lua:1: error: kernel 'k': field 'axis': bad axis ' 1': expected an integer" int.lua -o k.c
printf 'kernel "k" { lang = "zh", axis = " 1", "x=2,3", "y=3" }\n' >int.lua
run_case 1 "int.lua:1: error: kernel 'k': field 'axis': axis ' 1' 不对：应当是一个整数" int.lua -o k.c
printf 'kernel "k" { "x=2,a", lang = "zh" }\n' >int.lua
run_case 1 "int.lua:1: error: kernel 'k': 维度大小 'a' 不对（形状 '2,a'，张量 'x'）：维度的大小必须是非负整数" int.lua -o k.c
printf 'kernel "k" { unroll_limit = "+4", "x=3" }\n' >int.lua
run_case 1 "int.lua:1: error: kernel 'k': field 'unroll_limit': bad unroll limit '+4': expected an integer" int.lua -o k.c
rm int.lua

# Targets: an unknown one names the rows; --target list prints each row;
# a row without streaming stores refuses --stream on, naming itself.
run_case 1 "bcastgen: error: unknown target 'pdp-11': expected generic, x86-64, x86-64-v2, x86-64-v3, x86-64-v4, cortex-m0, cortex-m4f, cortex-m7, cortex-m55, rv32imac, rv32imafc (bcastgen --target list)" -o k.c --target pdp-11 x=3
run_case 1 "bcastgen: error: cannot stream the output: the target cortex-m4f has no non-temporal stores" -o k.c --target cortex-m4f --stream on x=4,64 y=64
printf 'defaults { target = "cortex-m0" }\nkernel "k" {\n  "x=4,64",\n  stream = "on" }\n' >int.lua
run_case 1 "int.lua:4: error: kernel 'k': cannot stream the output: the target cortex-m0 has no non-temporal stores" int.lua -o k.c
rm int.lua
fresh
n=$((n + 1))
"$GEN" --target list >list 2>err && rows=$(awk 'NR > 1 && !/^ / { print $1 }' list | tr '\n' ' ') \
	&& [ "$rows" = "generic x86-64 x86-64-v2 x86-64-v3 x86-64-v4 cortex-m0 cortex-m4f cortex-m7 cortex-m55 rv32imac rv32imafc " ] \
	&& "$GEN" --target=list | cmp -s - list && [ ! -s err ]
if [ $? = 0 ]; then
	echo "ok $n - --target list prints the table, a row a target"
else
	echo "not ok $n - --target list prints the table, a row a target"
	sed 's/^/#   /' list err
	status=1
fi
# the columns short, pressure, parallel and qlines, the last four: each row's values
n=$((n + 1))
cols=$(awk 'NR == 1 { printf "%s,%s,%s,%s ", $(NF - 3), $(NF - 2), $(NF - 1), $NF }
	NR > 1 && !/^ / { printf "%s=%s,%s,%s,%s ", $1, $(NF - 3), $(NF - 2), $(NF - 1), $NF }' list)
want="short,pressure,parallel,qlines generic=-,-,65536,avx-512 x86-64=block,-,65536,avx2-run-time x86-64-v2=block,-,65536,avx2-run-time x86-64-v3=-,-,65536,avx2 x86-64-v4=-,-,65536,avx-512 cortex-m0=-,-,-,- cortex-m4f=-,-,-,- cortex-m7=-,-,-,- cortex-m55=-,-,-,helium rv32imac=-,ask,-,- rv32imafc=-,ask,-,- "
if [ "$cols" = "$want" ]; then
	echo "ok $n - --target list: the short, pressure, parallel and qlines columns"
else
	echo "not ok $n - --target list: the short, pressure, parallel and qlines columns"
	echo "#   got:  $cols"
	echo "#   want: $want"
	status=1
fi
# Tunings: an unknown one names them, in a spec too; --tune list and
# --tune=list print each, with whether its streaming stores pay.
run_case 1 "bcastgen: error: unknown tuning 'skylake': expected generic, cascadelake, znver4 (bcastgen --tune list)" -o k.c x=3 --tune skylake
printf 'defaults { tune = "Cascadelake" }\nkernel "k" { "x=3" }\n' >int.lua
run_case 1 "int.lua:1: error: defaults: field 'tune': unknown tuning 'Cascadelake': expected generic, cascadelake, znver4 (bcastgen --tune list)" int.lua -o k.c
rm int.lua
run_case 2 "bcastgen: error: option '--tune' needs a value" -o k.c x=3 --tune
fresh
n=$((n + 1))
"$GEN" --tune list >tunes 2>err \
	&& [ "$(awk 'NR > 1 && !/^ / { printf "%s=%s ", $1, $2 }' tunes)" = "generic=pays cascadelake=slower znver4=pays " ] \
	&& "$GEN" --tune=list | cmp -s - tunes && [ ! -s err ]
if [ $? = 0 ]; then
	echo "ok $n - --tune list prints the tunings, whether streaming pays on each"
else
	echo "not ok $n - --tune list prints the tunings, whether streaming pays on each"
	sed 's/^/#   /' tunes err
	status=1
fi

# --list ops prints the op table: a line per op after the header, and
# with --format json one valid object, the same ops in the same order,
# the same bytes on every run.
fresh
n=$((n + 1))
"$GEN" --list ops >ops.txt 2>err && [ ! -s err ] && "$GEN" --list ops --format json >ops.json \
	&& "$GEN" --format=json --list=ops | cmp -s - ops.json \
	&& /usr/bin/python3 -c 'import json, sys
names = [op["name"] for op in json.load(open("ops.json"))["ops"]]
rows = [line.split()[0] for line in open("ops.txt").read().splitlines()[1:]]
sys.exit(not names or names != rows)'
if [ $? = 0 ]; then
	echo "ok $n - --list ops prints the table, a line per op; --format json the same ops as JSON"
else
	echo "not ok $n - --list ops prints the table, a line per op; --format json the same ops as JSON"
	sed 's/^/#   /' ops.txt err | head -n 20
	status=1
fi

# A spec whose directory has '=' in its name is the spec, not an operand.
fresh
n=$((n + 1))
mkdir -p 'dir=x' && printf 'kernel "k" { "x=3" }\n' >'dir=x/s.lua'
if "$GEN" 'dir=x/s.lua' -o k.c 2>err && [ -s k.c ] && [ -s k.h ] && [ ! -s err ]; then
	echo "ok $n - dir=x/s.lua is the spec"
else
	echo "not ok $n - dir=x/s.lua is the spec"
	sed 's/^/#   /' err
	status=1
fi
echo "1..$n"
exit $status
