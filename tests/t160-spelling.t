#!/bin/sh
# t160-spelling: how templates/c.lua spells the plan's values in C:
# precedence and parentheses, literals of each dtype, conversions, the
# forms of each op. Each kernel has scalar operands, so its one
# statement reads them as locals: out[0] = x_v * y_v + w_v; every op of
# the table (bcastgen --list ops) has a case.
. "$(dirname "$0")/lib.sh"

n=0 status=0
# Each line: dtype | an expression, or --op and the words after it (for
# the ops that --expr does not write, or writes with '|') | the C
# expression stored in out[0]. An expression's operands are the ones of
# x, y and w it names.
cat >cases <<'EOF_CASES'
u16|x ^ ~(-2)|bc_xor_u16(x_v, (uint16_t)1)
f32|x + -0|x_v + 0.0f
f32|x * -(1 - 1)|x_v * 0.0f
f32|x + -0.0|x_v + -0.0f
f64|x + min(3, -0)|x_v + 0.0
f64|x + min(3, -0.0)|x_v + -0.0
f64|x + (0.1 + 0.2)|x_v + 0.30000000000000004
f32|x * (1 < 2)|x_v * 1.0f
f32|x*y + w|x_v * y_v + w_v
f32|x*(y + w)|x_v * (y_v + w_v)
f32|x - (y - w)|x_v - (y_v - w_v)
f32|-(x + y)|-(x_v + y_v)
f32|- -x|-(-x_v)
i8|x*y + w|bc_add_i8(bc_mul_i8(x_v, y_v), w_v)
i8|x + -128|bc_add_i8(x_v, (int8_t)-128)
i32|x + -2147483648|bc_add_i32(x_v, INT32_MIN)
i64|x + -9223372036854775808|bc_add_i64(x_v, INT64_MIN)
u64|x + 1|bc_add_u64(x_v, UINT64_C(1))
i64|x - 5|bc_sub_i64(x_v, INT64_C(5))
u32|x + 7|bc_add_u32(x_v, 7u)
i32|x + 7|bc_add_i32(x_v, 7)
f32|x * 0.1|x_v * 0.1f
f64|x * 0.1|x_v * 0.1
f32|x + 16777217|x_v + 16777216.0f
f32|x * 1e30|x_v * 1e+30f
f32|(x > y) * x|(float)(uint8_t)(x_v > y_v) * x_v
i16|x > 0 ? x : 0|(int16_t)(bc_gt_i16(x_v, (int16_t)0) ? x_v : (int16_t)0)
f32|w ? x : y|(w_v != 0) ? x_v : y_v
f32|x && !y|(uint8_t)((x_v != 0) && (uint8_t)(y_v == 0))
f32|i16(x) + 1|bc_add_i16(bc_f32_to_i16(x_v), (int16_t)1)
f32|f32(i16(x) + 1)|(float)bc_add_i16(bc_f32_to_i16(x_v), (int16_t)1)
f64|i32(x) + 1|bc_add_i32(bc_f64_to_i32(x_v), 1)
f16|u8(x + 1)|bc_f32_to_u8(bc_round_f16(x_v + 1.0f))
i8|i8(i16(x) * 300)|bc_wrap_i8((uint64_t)bc_mul_i16((int16_t)x_v, (int16_t)300))
i16|i8(x) + 1|bc_add_i8(bc_wrap_i8((uint64_t)x_v), (int8_t)1)
f32|x / y - w / 2|x_v / y_v - w_v / 2.0f
f32|max(x, y, w)|bc_max_f32(bc_max_f32(x_v, y_v), w_v)
f32|x + y + w|x_v + y_v + w_v
f32|x - y - w|x_v - y_v - w_v
f32|x / (y * w)|x_v / (y_v * w_v)
f64|floor(x) % y|bc_mod_f64(bc_floor_f64(x_v), y_v)
i32|x << y >> w|bc_shr_i32(bc_shl_i32(x_v, y_v), w_v)
f32|x == y|(uint8_t)(x_v == y_v)
i32|x == y|bc_eq_i32(x_v, y_v)
u8|!x|(uint8_t)(x_v == 0)
i32|fmod(x, y)|bc_fmod_i32(x_v, y_v)
f64|pow(x, y)|bc_pow_f64(x_v, y_v)
i64|pow(x, 3)|bc_pow_i64(x_v, INT64_C(3))
f32|fmax(x, y)|bc_fmax_f32(x_v, y_v)
u8|fmin(x, y)|bc_fmin_u8(x_v, y_v)
f32|abs(x)|bc_abs_f32(x_v)
i16|abs(x)|bc_abs_i16(x_v)
f64|sqrt(x)|bc_sqrt_f64(x_v)
f32|exp(x)|bc_exp_f32(x_v)
f16|log(x)|bc_f32_to_f16(bc_log_f32(x_v))
f64|ceil(x)|bc_ceil_f64(x_v)
f32|copysign(x, -1)|bc_copysign_f32(x_v, -1.0f)
f64|hypot(x, y)|bc_hypot_f64(x_v, y_v)
f32|atan2(y, x)|bc_atan2_f32(y_v, x_v)
f64|logaddexp(x, y)|bc_logaddexp_f64(x_v, y_v)
f32|heaviside(x, 0.5)|bc_heaviside_f32(x_v, 0.5f)
i16|x != y|bc_ne_i16(x_v, y_v)
f64|x <= y|(uint8_t)(x_v <= y_v)
u32|x >= 1|bc_ge_u32(x_v, 1u)
i8|--op or x= y=|(uint8_t)((x_v != 0) || (y_v != 0))
i32|x & 255|bc_and_i32(x_v, 255)
u16|--op bitwise_or x= y=|bc_or_u16(x_v, y_v)
f64|--op floordiv x= y=|bc_floordiv_f64(x_v, y_v)
f32|--op xor x= y=|(uint8_t)((x_v != 0) != (y_v != 0))
i8|--op copy --out-shape 1 x=|x_v
EOF_CASES
set -f
while IFS='|' read -r dtype expr want; do
	fresh
	n=$((n + 1))
	rm -f k.c
	case $expr in
	--op\ *)
		# shellcheck disable=SC2086
		"$GEN" -o k.c --strategy loops --dtype "$dtype" $expr 2>err ;;
	*)
		operands=
		for v in x y w; do
			printf '%s\n' "$expr" | grep -qw "$v" && operands="$operands $v="
		done
		# shellcheck disable=SC2086
		"$GEN" -o k.c --strategy loops --dtype "$dtype" --expr "$expr" $operands 2>err ;;
	esac
	got=$(sed -n 's/^	out\[0\] = \(.*\);$/\1/p' k.c 2>/dev/null)
	if [ "$got" = "$want" ]; then
		echo "ok $n - $dtype: $expr"
	else
		echo "not ok $n - $dtype: $expr"
		echo "#   want: $want"
		echo "#   got:  $got $(cat err)"
		status=1
	fi
done <cases
set +f

# Every op of the table has a case above: the op of each --op, and
# every operator and function of each expression (tests/optable.py).
fresh cases
n=$((n + 1))
{
	sed -n 's/^[^|]*|--op \([^ |]*\).*/op \1/p' cases
	sed -n '/^[^|]*|--op /!s/^[^|]*|\([^|]*\)|.*/expr \1/p' cases
} | /usr/bin/python3 "$TESTS/optable.py" "$GEN" "the spelling cases" >cover
if [ $? = 0 ]; then
	echo "ok $n - $(head -n 1 cover)"
else
	echo "not ok $n - $(head -n 1 cover)"
	sed '1d; s/^/#   /' cover
	status=1
fi
echo "1..$n"
exit $status
