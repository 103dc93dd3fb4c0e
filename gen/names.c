/*
** names.c: the names a user chooses (kernels, operands) become C
** identifiers in the emitted file, so each must be one and must not
** collide with a keyword, a type or macro the file uses, or a name the
** kernel itself declares.
*/
#include <string.h>

#include "names.h"

/* Return 1 if S is a C identifier. */
static int
c_identifier(const char *s)
{
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
	       == strlen(s);
}

/* Return 1 if S is a C or C++ keyword or a type the kernel code names. */
static int
reserved_name(const char *s)
{
	static const char *const words[] = {
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
		"xor_eq", "out", "NULL", "size_t", "int8_t", "int16_t", "int32_t",
		"int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", NULL
	};

	for (int i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	/* bc_ is the runtime's; _X and __ are the implementation's */
	return strncmp(s, "bc_", 3) == 0 || strncmp(s, "BC_", 3) == 0
	       || (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z')));
}

/* Return 1 if S is all decimal digits (and not empty). */
static int
all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/*
** Return 1 if S is the name of a local the kernel declares: the loop
** counters i0, i1, ..., the temporaries t0, t1, ..., and for each operand
** x (and out) its pointers x_0, x_1, ... and its value x_v.
*/
static int
local_name(const char *s, const struct desc *d)
{
	if ((s[0] == 'i' || s[0] == 't') && all_digits(s + 1))
		return 1;
	for (int i = 0; i <= d->nops; i++) {
		const char *p = i < d->nops ? d->operand[i].name : "out";
		size_t n = strlen(p);

		if (strncmp(s, p, n) == 0 && s[n] == '_'
		    && (strcmp(s + n + 1, "v") == 0 || all_digits(s + n + 1)))
			return 1;
	}
	return 0;
}

/*
** Check the names of kernel K: its own (FROM_OUTPUT: taken from -o) and
** its operands'. Return 0, or -1 with the message in ERR.
*/
int
names_check(const struct kernel *k, int from_output, struct strbuf *err)
{
	const struct desc *d = k->desc;

	if (!c_identifier(k->name) && d->source == FROM_SPEC) {
		sb_add(err, "the name is not a C identifier");
		return -1;
	}
	if (!c_identifier(k->name)) {
		sb_printf(err, "kernel name '%s' is not a C identifier%s", k->name,
		          from_output ? " (it comes from -o; set it with --name)" : "");
		return -1;
	}
	if (reserved_name(k->name) || local_name(k->name, d) || k->name[0] == '_') {
		sb_printf(err, "kernel name '%s' is reserved: choose another with --name",
		          k->name);
		return -1;
	}
	for (int i = 0; i < d->nops; i++) {
		const char *name = d->operand[i].name;

		if (reserved_name(name)) {
			sb_printf(err, "operand name '%s' is reserved in kernels (a keyword, a "
			          "type, 'out', or bc_...)", name);
			return -1;
		}
		if (local_name(name, d)) {
			sb_printf(err, "operand name '%s' clashes with a local of the kernel (i0, "
			          "i1, ..., t0, t1, ..., and x_0, x_1, ..., x_v for each operand "
			          "x)", name);
			return -1;
		}
		if (strcmp(name, k->name) == 0) {
			sb_printf(err, "operand '%s' has the kernel's name", k->name);
			return -1;
		}
	}
	return 0;
}
