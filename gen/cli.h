/*
** cli.h: the command line: what to do, and the kernel it describes.
*/
#ifndef CLI_H
#define CLI_H

#include "desc.h"

#define CLI_WRAP 72		/* --wrap: the width of --explain's text */
#define CLI_WRAP_MIN 20		/* and the narrowest it takes, but 0 */
#define CLI_WRAP_MAX 1000
#define CLI_ELEMENTS_MAX 256	/* --elements: the largest result listed; a
				   longer list teaches nothing more */

/* --format: what --explain writes. */
enum explain_format {
	FORMAT_TEXT,
	FORMAT_SVG,
	FORMAT_HTML,
	NFORMATS
};

/* --explain's depth: how far it walks. */
enum explain_depth {
	DEPTH_RULE,		/* align, compare, the result shape */
	DEPTH_STRIDES,		/* and each operand's strides */
	DEPTH_KERNEL,		/* and the loops, reads, strategy and kernel */
	NDEPTHS
};

struct cli {
	int shape;		/* --shape */
	int explain;		/* --explain */
	const char *depth_given; /* --explain=DEPTH or --explain DEPTH, or NULL */
	enum explain_depth depth; /* and as read: kernel for text, rule for
				   a picture or page */
	const char *format;	/* --format as given, or NULL */
	enum explain_format as;	/* and as read: FORMAT_TEXT by default */
	int elements;		/* --elements: --explain lists every element */
	const char *values;	/* --values arange: each operand its element
				   numbers, and the result's values shown */
	const char *wrap_given;	/* --wrap N as given, or NULL */
	int wrap;		/* and as read: the text's width in columns,
				   CLI_WRAP by default; 0: one line a paragraph */
	const char *output;	/* -o FILE.c, or NULL */
	const char *depfile;	/* -M FILE, or NULL */
	const char *dep_target;	/* -MT TARGET, or NULL: the outputs */
	const char *tmpldir;	/* --templates DIR, or NULL */
	const char *dump_lua;	/* --dump-lua NAME, or NULL */
	const char *spec;	/* a spec file, or NULL */
	const char *name;	/* --name, or NULL */
	int timings;		/* --timings */
	const char *list;	/* --list WHAT, or NULL */
};

extern const char *const explain_depth_names[NDEPTHS];

void cli_read(int argc, char **argv, struct cli *c, struct desc *d);
const char *cli_base_name(const char *path);

#endif
