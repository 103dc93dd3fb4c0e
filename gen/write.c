/*
** write.c: the write phase: a run's files, and the depfile if asked,
** all or none, never over one of the run's inputs.
*/
#include <stdlib.h>

#include "output.h"
#include "run.h"

/*
** Write R's files, and the depfile if asked, all or none: the outputs
** depend on the spec and the templates read from --templates DIR, and
** none of them may be one of those or another output. Exits 1 on any
** error.
*/
void
write_files(struct run *r)
{
	const char *targets[2];
	struct output_name out[3], *in;
	struct output o = {0};
	struct strbuf dep = {0};
	int nread, nout = 0, nin = 0;
	const char **read = lhost_files_read(r->L, &nread), **pre;

	in = xmalloc((size_t)(nread + 1) * sizeof *in);
	pre = xmalloc((size_t)(nread + 1) * sizeof *pre);
	out[nout++] = (struct output_name){r->cli.output, "output"};
	out[nout++] = (struct output_name){r->hpath.s, "output"};
	if (r->cli.depfile)
		out[nout++] = (struct output_name){r->cli.depfile, "depfile"};
	if (r->cli.spec)
		in[nin++] = (struct output_name){r->cli.spec, "spec"};
	for (int i = 0; i < nread; i++)
		in[nin++] = (struct output_name){read[i], "template"};
	for (int i = 0; i < nin; i++)
		pre[i] = in[i].path;
	if (output_check(out, nout, in, nin) != 0)
		goto fail;
	if (r->cli.depfile) {
		targets[0] = r->cli.dep_target ? r->cli.dep_target : r->cli.output;
		targets[1] = r->hpath.s;
		if (output_depfile(&dep, targets, r->cli.dep_target ? 1 : 2, pre, nin) != 0)
			goto fail;
	}
	if (output_add(&o, r->cli.output, &r->ctext) != 0
	    || output_add(&o, r->hpath.s, &r->htext) != 0
	    || (r->cli.depfile && output_add(&o, r->cli.depfile, &dep) != 0)
	    || output_commit(&o) != 0)
		goto fail;
	sb_free(&dep);
	free(read);
	free(in);
	free(pre);
	return;
fail:
	output_abort(&o);
	exit(EXIT_INPUT);
}
