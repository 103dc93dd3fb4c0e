/*
** names.c: the names a user chooses (kernels, operands) become C
** identifiers in the emitted file. Each must be one, must not be a word
** C, C++ or the headers the file includes keep for themselves, and must
** not collide with a name the emitted code itself declares: the
** templates report those (declare() in lib.lua), so the check follows
** the templates and keeps no copy of their names.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* C and C++ keywords, and the types the emitted code names. */
static const char *const keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if",
	"inline", "int", "long", "register", "restrict", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "typedef", "union",
	"unsigned", "void", "volatile", "while", "_Bool", "_Complex",
	"_Imaginary", "alignas", "alignof", "and", "and_eq", "asm", "bitand",
	"bitor", "bool", "catch", "char16_t", "char32_t", "class", "compl",
	"const_cast", "constexpr", "decltype", "delete", "dynamic_cast",
	"explicit", "export", "false", "friend", "mutable", "namespace", "new",
	"noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
	"private", "protected", "public", "reinterpret_cast", "static_assert",
	"static_cast", "template", "this", "thread_local", "throw", "true",
	"try", "typeid", "typename", "using", "virtual", "wchar_t", "xor",
	"xor_eq", NULL
};

/* What the headers the emitted code includes define, besides the families below. */
static const char *const stddef_words[] = {
	"NULL", "offsetof", "ptrdiff_t", "size_t", "max_align_t", NULL
};
static const char *const stdint_words[] = {
	"intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "SIZE_MAX", NULL
};
static const char *const limits_words[] = {
	"CHAR_BIT", "MB_LEN_MAX", "SCHAR_MIN", "SCHAR_MAX", "UCHAR_MAX", "CHAR_MIN",
	"CHAR_MAX", "SHRT_MIN", "SHRT_MAX", "USHRT_MAX", "INT_MIN", "INT_MAX",
	"UINT_MAX", "LONG_MIN", "LONG_MAX", "ULONG_MAX", "LLONG_MIN", "LLONG_MAX",
	"ULLONG_MAX", NULL
};
static const char *const math_words[] = {
	"HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY", "NAN", "MATH_ERRNO",
	"MATH_ERREXCEPT", "math_errhandling", "float_t", "double_t", "fpclassify",
	"isfinite", "isinf", "isnan", "isnormal", "signbit", "isgreater",
	"isgreaterequal", "isless", "islessequal", "islessgreater", "isunordered",
	"MAXFLOAT", "signgam", NULL
};
/* What compilers predefine in their GNU modes (gcc -std=gnu99, g++). */
static const char *const predefined_words[] = {
	"unix", "linux", "i386", "__STDC__", NULL
};

/*
** The C library's functions (C99), which a kernel, an external function,
** must not be named after; <math.h>'s also with the suffixes f and l.
*/
static const char *const math_functions[] = {
	"acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh",
	"atanh", "cosh", "sinh", "tanh", "exp", "exp2", "expm1", "frexp", "ilogb",
	"ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "scalbn",
	"scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma",
	"tgamma", "ceil", "floor", "nearbyint", "rint", "lrint", "llrint", "round",
	"lround", "llround", "trunc", "fmod", "remainder", "remquo", "copysign",
	"nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma",
	/* glibc's and POSIX's, declared by <math.h> in GNU modes */
	"j0", "j1", "jn", "y0", "y1", "yn", "gamma", "lgamma_r", "drem",
	"significand", "exp10", "pow10", "sincos", "finite", "scalb", NULL
};
static const char *const library_functions[] = {
	"main", "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold",
	"strtol", "strtoll", "strtoul", "strtoull", "rand", "srand", "calloc", "free",
	"malloc", "realloc", "abort", "atexit", "exit", "_Exit", "getenv", "system",
	"bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv", "lldiv", "mblen",
	"mbtowc", "wctomb", "mbstowcs", "wcstombs", "memcpy", "memmove", "strcpy",
	"strncpy", "strcat", "strncat", "memcmp", "strcmp", "strcoll", "strncmp",
	"strxfrm", "memchr", "strchr", "strcspn", "strpbrk", "strrchr", "strspn",
	"strstr", "strtok", "memset", "strerror", "strlen", "remove", "rename",
	"tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen", "setbuf",
	"setvbuf", "fprintf", "fscanf", "printf", "scanf", "snprintf", "sprintf",
	"sscanf", "vfprintf", "vfscanf", "vprintf", "vscanf", "vsnprintf", "vsprintf",
	"vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc", "getchar", "gets",
	"putc", "putchar", "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek",
	"fsetpos", "ftell", "rewind", "clearerr", "feof", "ferror", "perror",
	"isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower",
	"isprint", "ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper",
	"clock", "difftime", "mktime", "time", "asctime", "ctime", "gmtime",
	"localtime", "strftime", "signal", "raise", "setjmp", "longjmp", "setlocale",
	"localeconv", "assert", "errno", "va_start", "va_end", "va_copy", "va_arg", NULL
};

/* Return 1 if S is one of WORDS. */
static int
in_list(const char *s, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	return 0;
}

/* Return 1 if S starts with PREFIX and ends with one of the NULL-ended SUFFIXES. */
static int
shaped(const char *s, const char *prefix, const char *const *suffixes)
{
	size_t n = strlen(s), p = strlen(prefix);

	if (strncmp(s, prefix, p) != 0)
		return 0;
	for (int i = 0; suffixes[i]; i++) {
		size_t k = strlen(suffixes[i]);

		if (n >= p + k && strcmp(s + n - k, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* Return 1 if S is of a macro or type family of <stdint.h>: INT8_MAX, int_least8_t. */
static int
stdint_family(const char *s)
{
	static const char *const limits[] = {"_MIN", "_MAX", "_C", "_WIDTH", NULL};
	static const char *const types[] = {"_t", NULL};

	return shaped(s, "INT", limits) || shaped(s, "UINT", limits)
	       || shaped(s, "int", types) || shaped(s, "uint", types)
	       || shaped(s, "PTRDIFF", limits) || shaped(s, "SIG_ATOMIC", limits)
	       || shaped(s, "WCHAR", limits) || shaped(s, "WINT", limits)
	       || shaped(s, "SIZE", limits);
}

/* Return 1 if S is of a macro family of <math.h>: FP_NAN, M_PI (POSIX). */
static int
math_family(const char *s)
{
	static const char *const any[] = {"", NULL};

	return shaped(s, "FP_", any) || shaped(s, "M_", any);
}

/* The headers the emitted code includes, and what each keeps for itself. */
static const struct header {
	const char *name;
	const char *const *words;
	int (*family)(const char *s);
} headers[] = {
	{"<stddef.h>", stddef_words, NULL},
	{"<limits.h>", limits_words, NULL},
	{"<stdint.h>", stdint_words, stdint_family},
	{"<math.h>", math_words, math_family},
	{"a compiler in its GNU mode", predefined_words, NULL},
	{NULL, NULL, NULL}
};

/* Return 1 if S is a function of the C library, math's with f and l too. */
static int
library_function(const char *s)
{
	size_t n = strlen(s);

	if (in_list(s, library_functions) || in_list(s, math_functions))
		return 1;
	for (int i = 0; n > 1 && math_functions[i]; i++)
		if (strncmp(s, math_functions[i], n - 1) == 0 && math_functions[i][n - 1] == '\0'
		    && (s[n - 1] == 'f' || s[n - 1] == 'l'))
			return 1;
	return 0;
}

/* Return 1 if S is a C identifier. */
static int
c_identifier(const char *s)
{
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
	       == strlen(s);
}

/*
** Return what keeps the name S for itself, or NULL if nothing does; the
** text may use BUF, of SIZE bytes.
*/
static const char *
kept_by(const char *s, char *buf, size_t size)
{
	if (in_list(s, keywords))
		return "a C or C++ keyword";
	for (const struct header *h = headers; h->name; h++)
		if (in_list(s, h->words) || (h->family && h->family(s))) {
			snprintf(buf, size, "a name %s defines", h->name);
			return buf;
		}
	if (strncmp(s, "bc_", 3) == 0 || strncmp(s, "BC_", 3) == 0)
		return "the runtime's (bc_ and BC_)";
	if ((s[0] == '_' && s[1] >= 'A' && s[1] <= 'Z') || strstr(s, "__"))
		return "reserved for the C and C++ implementations (_X, and __ anywhere)";
	return NULL;
}

/*
** Check that the kernel name NAME is at most KERNEL_NAME_MAX characters.
** Return 0, or -1 with the message in ERR, which shows only its start.
*/
int
names_check_length(const char *name, struct strbuf *err)
{
	size_t n = strlen(name);

	if (n <= KERNEL_NAME_MAX)
		return 0;
	sb_printf(err, "kernel name '%.32s...' is %zu characters long: the limit is %d",
	          name, n, KERNEL_NAME_MAX);
	return -1;
}

/*
** Warn on stderr if kernel K's name, or a macro made from it (K_SHAPE,
** the longest), is longer than NAME_PORTABLE_MAX characters.
*/
static void
warn_length(const struct kernel *k)
{
	size_t n = strlen(k->name), macro = n + strlen("_SHAPE");

	if (macro <= NAME_PORTABLE_MAX)
		return;
	fprintf(stderr, "%s: warning: ", progname);
	if (k->desc->origin)
		fprintf(stderr, "%s: ", k->desc->origin);
	if (n > NAME_PORTABLE_MAX)
		fprintf(stderr, "kernel name '%s' is %zu characters long", k->name, n);
	else {
		fprintf(stderr, "kernel name '%s' makes macros of up to %zu characters (",
		        k->name, macro);
		for (const char *p = k->name; *p; p++)
			fputc(toupper((unsigned char)*p), stderr);
		fprintf(stderr, "_SHAPE)");
	}
	fprintf(stderr, ": some toolchains truncate external names to %d characters, so "
	        "names alike in their first %d may collide\n", NAME_PORTABLE_MAX,
	        NAME_PORTABLE_MAX);
}

/*
** Check the names the user chose for kernel K: its own (FROM_OUTPUT:
** taken from -o) and its operands', each on its own; how they meet the
** names the code declares is names_check_clashes's. Return 0, or -1 with
** the message in ERR.
*/
int
names_check_chosen(const struct kernel *k, int from_output, struct strbuf *err)
{
	const struct desc *d = k->desc;
	const char *instead = d->source == FROM_CLI ? "choose another with --name"
	                                            : "choose another name";
	const char *why;
	char buf[64];

	if (names_check_length(k->name, err) != 0)
		return -1;
	if (!c_identifier(k->name)) {
		if (d->source == FROM_SPEC)
			sb_add(err, "the name is not a C identifier");
		else
			sb_printf(err, "kernel name '%s' is not a C identifier%s", k->name,
			          from_output ? " (it comes from -o; set it with --name)" : "");
		return -1;
	}
	if ((why = kept_by(k->name, buf, sizeof buf)) || (k->name[0] == '_' && (why = "reserved at file "
	    "scope for the C implementation (_x)")) || (library_function(k->name)
	    && (why = "a function of the C library"))) {
		sb_printf(err, "kernel name '%s' is %s: %s", k->name, why, instead);
		return -1;
	}
	for (int i = 0; i < d->nops; i++)
		if ((why = kept_by(d->operand[i].name, buf, sizeof buf))) {
			sb_printf(err, "operand name '%s' is %s: choose another name",
			          d->operand[i].name, why);
			return -1;
		}
	warn_length(k);
	return 0;
}

/*
** Add the name TEXT, which names WHAT, to NS: of kernel KERNEL (-1: the
** file's), CHOSEN by the user or declared by the code, seen by the whole
** file (FILE_SCOPE) or by its kernel only.
*/
void
names_add(struct names *ns, const char *text, const char *what, int kernel, int chosen,
          int file_scope)
{
	struct name *n;

	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		ns->name = xrealloc(ns->name, (size_t)ns->cap * sizeof *ns->name);
	}
	n = &ns->name[ns->n++];
	n->text = xstrdup(text);
	n->what = xstrdup(what);
	n->kernel = kernel;
	n->chosen = chosen;
	n->file_scope = file_scope;
}

/* qsort: by text, then by kernel. */
static int
by_text(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	return c ? c : (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

/*
** Return 1 if A and B, of the same text, clash in the file. A macro the
** code defines is seen everywhere after it; a kernel's function is a
** name other kernels' locals may shadow (legal, and no compiler warns),
** but not its own; names of one kernel clash when the user chose one.
*/
static int
clash(const struct name *a, const struct name *b)
{
	const struct name *f = a->file_scope ? a : b, *o = f == a ? b : a;

	if (a->file_scope && b->file_scope)
		return 1;
	if (f->file_scope)
		return !f->chosen || f->kernel == o->kernel;
	return a->kernel == b->kernel && (a->chosen || b->chosen);
}

/*
** Note in *WORST, *WA and *WB the pair A, B if they clash and are
** reported for an earlier kernel than the pair noted so far.
*/
static void
note_clash(const struct name *a, const struct name *b, int *worst,
           const struct name **wa, const struct name **wb)
{
	int at = a->kernel > b->kernel ? a->kernel : b->kernel;

	if (!clash(a, b) || (*worst != -2 && at >= *worst))
		return;
	*worst = at;
	/* the subject: a name the user chose, an operand first */
	*wa = b->chosen && (!a->chosen || (a->file_scope && !b->file_scope)) ? b : a;
	*wb = *wa == a ? b : a;
}

/*
** Check every pair of names in NS with the same text. On a clash return
** the kernel it is reported for (the later of the two, the first such
** kernel if there are several) with the message in ERR; return -2 when
** there is none. Names of different kernels clash only through one seen
** by the whole file, so a name that every kernel has costs linear time.
*/
int
names_check_clashes(struct names *ns, struct strbuf *err)
{
	const struct name *worst_a = NULL, *worst_b = NULL, *g;
	int worst = -2, *file = xmalloc(((size_t)ns->n + 1) * sizeof *file);

	qsort(ns->name, (size_t)ns->n, sizeof *ns->name, by_text);
	g = ns->name;
	for (int start = 0, end; start < ns->n; start = end) {
		int nfile = 0;

		for (end = start; end < ns->n && strcmp(g[start].text, g[end].text) == 0; end++)
			if (g[end].file_scope)
				file[nfile++] = end;
		for (int i = start, f = 0, j; i < end; i++) {
			while (f < nfile && file[f] <= i)
				f++;
			if (g[i].file_scope) {
				for (j = i + 1; j < end; j++)
					note_clash(&g[i], &g[j], &worst, &worst_a, &worst_b);
				continue;
			}
			/* i's kernel, then the file's names past it */
			for (j = i + 1; j < end && g[j].kernel == g[i].kernel; j++)
				note_clash(&g[i], &g[j], &worst, &worst_a, &worst_b);
			for (int k = f; k < nfile; k++)
				if (file[k] >= j)
					note_clash(&g[i], &g[file[k]], &worst, &worst_a, &worst_b);
		}
	}
	free(file);
	if (worst == -2)
		return -2;
	if (worst_a->chosen)
		sb_printf(err, "'%s', %s, is also %s: choose another name", worst_a->text,
		          worst_a->what, worst_b->what);
	else
		sb_printf(err, "'%s' is both %s and %s: kernel names must differ in more than "
		          "case, as they give the macros' prefix", worst_a->text, worst_a->what,
		          worst_b->what);
	return worst;
}

void
names_free(struct names *ns)
{
	for (int i = 0; i < ns->n; i++) {
		free(ns->name[i].text);
		free(ns->name[i].what);
	}
	free(ns->name);
	memset(ns, 0, sizeof *ns);
}
