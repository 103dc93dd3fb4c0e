/*
** quant_gemmlowp: gemmlowp's own SaturatingRoundingDoublingHighMul and
** RoundingDivideByPOT on int32 values, the second oracle of
** tests/quant_oracle.py (tests/t700-quant-oracle.t runs it).
**
** Reads lines from the file named by its argument, or from stdin:
**   srdhm A B     prints SaturatingRoundingDoublingHighMul(A, B)
**   rdbpot X E    prints RoundingDivideByPOT(X, E), 0 <= E <= 31
** one result a line, in order. A, B and X are int32. A line that is not
** one of these is an error: a message on stderr naming the line, exit 1.
**
** Build: g++ -std=c++11 -O2 quant_gemmlowp.cc (Debian's libgemmlowp-dev).
*/
#include <gemmlowp/fixedpoint/fixedpoint.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

/*
** Parse the decimal integer at *s into *v, which must lie in [lo, hi];
** advance *s past it. Returns false if there is none or it is out of range.
*/
static bool parse_int(const char **s, long long lo, long long hi, long long *v)
{
	char *end;
	errno = 0;
	long long n = std::strtoll(*s, &end, 10);
	if (end == *s || errno != 0 || n < lo || n > hi)
		return false;
	*s = end;
	*v = n;
	return true;
}

int main(int argc, char **argv)
{
	FILE *in = stdin;
	if (argc > 2) {
		std::fprintf(stderr, "usage: quant_gemmlowp [FILE]\n");
		return 2;
	}
	if (argc == 2 && !(in = std::fopen(argv[1], "r"))) {
		std::fprintf(stderr, "quant_gemmlowp: open '%s': %s\n", argv[1], std::strerror(errno));
		return 1;
	}
	char line[256];
	long lineno = 0;
	while (std::fgets(line, sizeof line, in)) {
		lineno++;
		const char *s = line;
		long long a, b;
		bool is_srdhm = std::strncmp(s, "srdhm ", 6) == 0;
		bool is_rdbpot = std::strncmp(s, "rdbpot ", 7) == 0;
		s += is_srdhm ? 6 : is_rdbpot ? 7 : 0;
		bool ok = (is_srdhm || is_rdbpot)
			&& parse_int(&s, INT32_MIN, INT32_MAX, &a)
			&& parse_int(&s, is_srdhm ? INT32_MIN : 0, is_srdhm ? INT32_MAX : 31, &b)
			&& std::strspn(s, " \t\r\n") == std::strlen(s);
		if (!ok) {
			std::fprintf(stderr, "quant_gemmlowp: line %ld: expected 'srdhm A B' or "
				"'rdbpot X E' (int32 A, B, X; E in 0..31)\n", lineno);
			return 1;
		}
		std::int32_t r = is_srdhm
			? gemmlowp::SaturatingRoundingDoublingHighMul(static_cast<std::int32_t>(a),
				static_cast<std::int32_t>(b))
			: gemmlowp::RoundingDivideByPOT(static_cast<std::int32_t>(a), static_cast<int>(b));
		std::printf("%ld\n", static_cast<long>(r));
	}
	if (std::ferror(in)) {
		std::fprintf(stderr, "quant_gemmlowp: read error\n");
		return 1;
	}
	return std::fflush(stdout) == 0 ? 0 : 1;
}
