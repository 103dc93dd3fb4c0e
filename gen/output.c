/*
** output.c: write a run's files all or none. What is guaranteed:
**
** - No output is an input or another output of the run. Files are
**   compared by path (symlinks followed, the directory resolved, so
**   "./k.h" and "k.h" are one file) and by device and inode (a hard
**   link); a clash is an error before anything is written.
** - A symlink is followed to the file it ends at, through a chain and
**   relative links; that file is written and the links stay. A dangling
**   link gets its target created (as the shell's '>' does).
** - A device, FIFO or socket is written in place, never replaced and
**   never read. A FIFO is opened as any writer opens it: bcastgen waits
**   for a reader. These are written first, and cannot be taken back.
** - A regular file is written to a temporary beside the file it
**   replaces (".NAME.bcastgen-PID-XXXXXX", in the same directory, so
**   that the rename is atomic), with the old file's mode, or 0666 &
**   ~umask for a new one. A file whose content would not change is not
**   touched, so its mtime stays.
** - Commit: with more than one file to rename, each existing one gets a
**   hard-link backup, and a journal ".NAME.c.bcastgen-commit" beside the
**   first output lists the renames; then the temporaries are renamed
**   into place. If a rename fails, the files already renamed are put
**   back (the backups renamed over them, new files removed): the old
**   files are all back. On success the journal and the backups go.
** - A process killed between two renames leaves the journal: the next
**   run that writes one of these files completes the interrupted commit
**   first (renames the temporaries left), so the files are all the new
**   ones, and then writes its own.
** - Killed anywhere, a run leaves no partial output: only temporaries,
**   named with its pid, which the next run writing the same file
**   removes once that pid is no longer a live process.
** - The depfile lists every file read, escaped for make; a path make
**   cannot read is an error, not a broken depfile.
** Not guaranteed: durability across a power failure (nothing is
** fsynced); a filesystem without hard links cannot commit more than one
** changed file (the backup fails, and nothing is changed).
*/
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

#define MAX_LINKS 40		/* symlinks followed, as Linux's ELOOP */
#define JOURNAL_MAGIC "bcastgen-commit "

/* Return 1 if the file PATH holds exactly TEXT. PATH must be a regular file. */
static int
same_content(const char *path, const struct strbuf *text)
{
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n, at = 0;
	int same = 1;

	if (!f)
		return 0;
	while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
		same = at + n <= text->len && memcmp(buf, text->s + at, n) == 0;
		at += n;
	}
	same = same && !ferror(f) && at == text->len;
	fclose(f);
	return same;
}

/* Read the symlink PATH's content into SB. Return 0, or -1 with errno set. */
static int
read_link(const char *path, struct strbuf *sb)
{
	size_t cap = 256;

	for (;;) {
		char *buf = xmalloc(cap);
		ssize_t n = readlink(path, buf, cap);

		if (n < 0) {
			free(buf);
			return -1;
		}
		if ((size_t)n < cap) {
			sb_addn(sb, buf, (size_t)n);
			free(buf);
			return 0;
		}
		free(buf);
		cap *= 2;
	}
}

/*
** Return PATH with its symlinks followed to the file they end at (which
** may not exist), as an absolute path whose directory is resolved: one
** file has one such name. Return NULL with errno set if a link loops or
** the directory does not exist.
*/
static char *
canonical_path(const char *path)
{
	struct strbuf cur = {0}, res = {0};
	const char *slash;
	char *dir;

	sb_add(&cur, path);
	for (int hops = 0;; hops++) {
		struct strbuf link = {0}, next = {0};
		struct stat st;

		if (lstat(cur.s, &st) != 0 || !S_ISLNK(st.st_mode))
			break;
		if (hops == MAX_LINKS || read_link(cur.s, &link) != 0 || !link.s) {
			if (hops == MAX_LINKS || !link.s)
				errno = hops == MAX_LINKS ? ELOOP : ENOENT;
			sb_free(&cur);
			sb_free(&link);
			return NULL;
		}
		/* a relative link is relative to the link's directory */
		slash = strrchr(cur.s, '/');
		if (link.s[0] != '/' && slash)
			sb_addn(&next, cur.s, (size_t)(slash - cur.s + 1));
		sb_add(&next, link.s);
		sb_free(&link);
		sb_free(&cur);
		cur = next;
	}
	slash = strrchr(cur.s, '/');
	if (!slash)
		dir = realpath(".", NULL);
	else if (slash == cur.s)
		dir = realpath("/", NULL);
	else {
		struct strbuf d = {0};

		sb_addn(&d, cur.s, (size_t)(slash - cur.s));
		dir = realpath(d.s, NULL);
		sb_free(&d);
	}
	if (!dir) {
		sb_free(&cur);
		return NULL;
	}
	sb_printf(&res, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", slash ? slash + 1 : cur.s);
	free(dir);
	sb_free(&cur);
	return res.s;
}

/* Return 1 if the process PID is alive, or may be: only ESRCH says it is not. */
static int
pid_alive(long pid)
{
	if (pid <= 0 || pid > INT_MAX)
		return 1;
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

/*
** Set SB to PATH's directory part, with its final '/'. PATH is from
** canonical_path().
*/
static void
dir_of(struct strbuf *sb, const char *path)
{
	sb_addn(sb, path, (size_t)(strrchr(path, '/') - path + 1));
}

/*
** Write LEN bytes of S to a new temporary beside the file TARGET (from
** canonical_path()), ".NAME.bcastgen-PID-XXXXXX", with MODE. Return its
** path, or NULL with errno set and nothing left behind.
*/
static char *
write_temp(const char *target, const char *s, size_t len, mode_t mode)
{
	struct strbuf tmp = {0};
	int fd, err;

	dir_of(&tmp, target);
	sb_printf(&tmp, ".%s.bcastgen-%ld-XXXXXX", strrchr(target, '/') + 1, (long)getpid());
	if ((fd = mkstemp(tmp.s)) < 0) {
		sb_free(&tmp);
		return NULL;
	}
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		s += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, mode) != 0 || close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	return tmp.s;
fail:
	err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(tmp.s);
	sb_free(&tmp);
	errno = err;
	return NULL;
}

/* Set SB to the journal's path of a commit whose first file is TARGET. */
static void
journal_path(struct strbuf *sb, const char *target)
{
	dir_of(sb, target);
	sb_printf(sb, ".%s.bcastgen-commit", strrchr(target, '/') + 1);
}

/*
** If a commit whose first file is TARGET was interrupted (its journal is
** there and its process is dead), complete it: rename the temporaries it
** left into place, then remove its backups and the journal. Return 0, or
** -1 with an error printed.
*/
static int
recover(const char *target)
{
	struct strbuf jpath = {0}, j = {0};
	const char *p, *end, *field[3];
	char *after;
	long pid;
	int status = -1;

	journal_path(&jpath, target);
	if (sb_read_file(&j, jpath.s) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			status = 0;	/* no journal; a bad directory is said later */
		else
			error("cannot read the journal '%s':", jpath.s);
		goto done;
	}
	if (j.len < sizeof JOURNAL_MAGIC || memcmp(j.s, JOURNAL_MAGIC, sizeof JOURNAL_MAGIC - 1)
	    || (pid = strtol(j.s + sizeof JOURNAL_MAGIC - 1, &after, 10)) <= 0 || *after != '\n') {
		error("'%s' is not a bcastgen journal: remove it", jpath.s);
		goto done;
	}
	if (pid != (long)getpid() && pid_alive(pid)) {
		error("'%s' is being written by bcastgen process %ld (if it is not, remove '%s')",
		      target, pid, jpath.s);
		goto done;
	}
	/* the temporaries still there were not renamed yet: rename them */
	end = j.s + j.len;
	for (int pass = 0; pass < 2; pass++)
		for (p = after + 1; p < end; ) {
			struct stat st;

			for (int k = 0; k < 3; k++) {
				field[k] = p < end ? p : "";
				p += p < end ? strlen(p) + 1 : 0;
			}
			if (pass == 0 && lstat(field[0], &st) == 0 && rename(field[0], field[1]) != 0) {
				error("cannot complete the interrupted write of '%s':", field[1]);
				goto done;
			}
			if (pass == 1 && field[2][0])
				unlink(field[2]);
		}
	if (unlink(jpath.s) != 0) {
		error("cannot remove the journal '%s':", jpath.s);
		goto done;
	}
	status = 0;
done:
	sb_free(&jpath);
	sb_free(&j);
	return status;
}

/*
** Remove the temporaries and backups beside TARGET that a process now
** dead left: ".NAME.bcastgen-PID-..." whose PID is not alive.
*/
static void
remove_stale(const char *target)
{
	struct strbuf dir = {0}, prefix = {0};
	struct dirent *e;
	DIR *d;

	dir_of(&dir, target);
	sb_printf(&prefix, ".%s.bcastgen-", strrchr(target, '/') + 1);
	if (!(d = opendir(dir.s)))
		goto done;
	while ((e = readdir(d)) != NULL) {
		const char *p = e->d_name + prefix.len;
		struct strbuf path = {0};
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix.s, prefix.len) != 0 || *p < '0' || *p > '9')
			continue;
		pid = strtol(p, &end, 10);
		if (*end != '-' || pid == (long)getpid() || pid_alive(pid))
			continue;
		sb_printf(&path, "%s%s", dir.s, e->d_name);
		unlink(path.s);
		sb_free(&path);
	}
	closedir(d);
done:
	sb_free(&dir);
	sb_free(&prefix);
}

/*
** Check that every file of OUT[0..NOUT) is distinct from the others and
** from each input IN[0..NIN): by the resolved path, or by device and
** inode. Return 0, or -1 with an error printed.
*/
int
output_check(const struct output_name *out, int nout, const struct output_name *in, int nin)
{
	int n = nout + nin, clash = 0;
	char **canon = xmalloc((size_t)n * sizeof *canon);
	struct stat *st = xmalloc((size_t)n * sizeof *st);
	int *known = xmalloc((size_t)n * sizeof *known);

	for (int i = 0; i < n; i++) {
		const char *path = i < nout ? out[i].path : in[i - nout].path;

		canon[i] = canonical_path(path);
		if (!canon[i])
			canon[i] = xstrdup(path);
		known[i] = stat(path, &st[i]) == 0;
	}
	for (int i = 0; i < nout && !clash; i++)
		for (int k = 0; k < i + nin && !clash; k++) {
			int j = k < i ? k : nout + k - i;

			if (strcmp(canon[i], canon[j]) != 0 && !(known[i] && known[j]
			    && st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino))
				continue;
			clash = 1;
			if (j < nout)
				error("the %s '%s' would overwrite an output: choose another path",
				      out[i].role, out[i].path);
			else
				error("the %s '%s' would overwrite the %s '%s': choose another path",
				      out[i].role, out[i].path, in[j - nout].role, in[j - nout].path);
		}
	for (int i = 0; i < n; i++)
		free(canon[i]);
	free(canon);
	free(st);
	free(known);
	return clash ? -1 : 0;
}

/*
** Stage TEXT for PATH: follow its symlinks; complete an interrupted
** commit there and remove stale temporaries; then, for a regular file
** whose content would change or a new one, write a temporary beside it;
** for a special file, keep TEXT to write at commit. Return 0, or -1
** with an error printed (output_abort then removes what was staged).
*/
int
output_add(struct output *o, const char *path, const struct strbuf *text)
{
	struct output_file *f;
	struct stat st;
	mode_t mode;

	if (o->n == OUTPUT_MAX)
		die("too many output files");
	f = &o->file[o->n++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	if (!(f->target = canonical_path(path))) {
		error("cannot create a temporary file for '%s':", path);
		return -1;
	}
	if (recover(f->target) != 0)
		return -1;
	remove_stale(f->target);
	if (stat(f->target, &st) != 0) {
		/* a new file: the usual 0666 & ~umask */
		mode = umask(0);
		umask(mode);
		mode = 0666 & ~mode;
	} else if (S_ISDIR(st.st_mode)) {
		error("cannot write '%s': it is a directory", path);
		return -1;
	} else if (!S_ISREG(st.st_mode)) {
		f->special = 1;
		sb_addn(&f->text, text->s ? text->s : "", text->len);
		return 0;
	} else {
		f->existed = 1;
		if (same_content(f->target, text))
			return 0;
		mode = st.st_mode & 07777;
	}
	f->tmp = write_temp(f->target, text->s ? text->s : "", text->len, mode);
	if (!f->tmp) {
		error("cannot create a temporary file for '%s':", path);
		return -1;
	}
	return 0;
}

/* Write the special file F's text in place. Return 0, or -1 with an error. */
static int
write_in_place(const struct output_file *f)
{
	const char *s = f->text.s ? f->text.s : "";
	size_t len = f->text.len;
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);	/* a FIFO's reader may go */
	int fd = open(f->target, O_WRONLY | O_NOCTTY);
	int status = 0;

	if (fd < 0) {
		error("cannot open '%s':", f->path);
		signal(SIGPIPE, old);
		return -1;
	}
	while (len > 0 && status == 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			status = -1;
		} else {
			s += n;
			len -= (size_t)n;
		}
	}
	if (status != 0 || close(fd) != 0) {
		error("cannot write '%s':", f->path);
		if (status == 0)
			fd = -1;
		status = -1;
	}
	signal(SIGPIPE, old);
	return status;
}

/*
** Write O's journal beside its first file: the pid, then for each file
** to rename its temporary, target and backup (or ""), each ending in a
** NUL. Created whole under its final name (a link), or not at all.
** Return 0, or -1 with an error printed.
*/
static int
write_journal(struct output *o)
{
	struct strbuf text = {0}, jpath = {0};
	char *tmp;
	int status = 0;

	sb_printf(&text, JOURNAL_MAGIC "%ld\n", (long)getpid());
	for (int i = 0; i < o->n; i++) {
		const struct output_file *f = &o->file[i];

		if (!f->tmp)
			continue;
		sb_addn(&text, f->tmp, strlen(f->tmp) + 1);
		sb_addn(&text, f->target, strlen(f->target) + 1);
		sb_addn(&text, f->backup ? f->backup : "", f->backup ? strlen(f->backup) + 1 : 1);
	}
	journal_path(&jpath, o->file[0].target);
	tmp = write_temp(o->file[0].target, text.s, text.len, 0600);
	if (!tmp || link(tmp, jpath.s) != 0) {
		error("cannot write the journal '%s':", jpath.s);
		status = -1;
		sb_free(&jpath);
	} else {
		o->journal = jpath.s;
	}
	if (tmp)
		unlink(tmp);
	free(tmp);
	sb_free(&text);
	return status;
}

/*
** Put back the files of O renamed before the UPTO-th: each backup
** renamed over its file, a new file removed. Print an error for each
** that cannot be, and leave its backup.
*/
static void
roll_back(struct output *o, int upto)
{
	for (int i = upto - 1; i >= 0; i--) {
		struct output_file *f = &o->file[i];

		if (!f->renamed)
			continue;
		if (!f->backup) {
			unlink(f->target);
		} else if (rename(f->backup, f->target) != 0) {
			error("cannot put back '%s'; its old content is in '%s':", f->path, f->backup);
			free(f->backup);
			f->backup = NULL;
		} else {
			free(f->backup);
			f->backup = NULL;
		}
	}
}

/*
** Commit every staged file of O: write the special files, back up the
** files to replace, write the journal, rename the temporaries into place,
** then remove the journal and the backups. If a rename fails, put back
** the files renamed before it. Return 0, or -1 with an error printed and
** the regular files as they were.
*/
int
output_commit(struct output *o)
{
	int nren = 0;

	for (int i = 0; i < o->n; i++)
		if (o->file[i].special && write_in_place(&o->file[i]) != 0)
			goto fail;
	for (int i = 0; i < o->n; i++)
		nren += o->file[i].tmp != NULL;
	/* one rename is atomic by itself; more need backups and a journal */
	for (int i = 0; nren > 1 && i < o->n; i++) {
		struct output_file *f = &o->file[i];
		struct strbuf backup = {0};

		if (!f->tmp || !f->existed)
			continue;
		sb_printf(&backup, "%s.old", f->tmp);
		if (link(f->target, backup.s) != 0) {
			error("cannot back up '%s' before replacing it:", f->path);
			sb_free(&backup);
			goto fail;
		}
		f->backup = backup.s;
	}
	if (nren > 1 && write_journal(o) != 0)
		goto fail;
	for (int i = 0; i < o->n; i++) {
		struct output_file *f = &o->file[i];

		if (!f->tmp)
			continue;
		if (rename(f->tmp, f->target) != 0) {
			error("cannot rename '%s' to '%s':", f->tmp, f->path);
			roll_back(o, i);
			goto fail;
		}
		free(f->tmp);
		f->tmp = NULL;
		f->renamed = 1;
	}
	/* the commit point: then the backups are not needed */
	if (o->journal && unlink(o->journal) != 0)
		error("cannot remove the journal '%s':", o->journal);
	free(o->journal);
	o->journal = NULL;
	output_abort(o);
	return 0;
fail:
	output_abort(o);
	return -1;
}

/* Remove the temporaries, backups and journal left, and forget the files. */
void
output_abort(struct output *o)
{
	for (int i = 0; i < o->n; i++) {
		struct output_file *f = &o->file[i];

		if (f->tmp)
			unlink(f->tmp);
		if (f->backup)
			unlink(f->backup);
		free(f->tmp);
		free(f->backup);
		free(f->path);
		free(f->target);
		sb_free(&f->text);
	}
	if (o->journal)
		unlink(o->journal);
	free(o->journal);
	o->journal = NULL;
	o->n = 0;
}

/*
** Append PATH to SB as Make reads it: ' ', '#' and ':' escaped with a
** backslash, '$' doubled, and in a TARGET '%' escaped. Return 0, or -1
** with an error printed if Make has no way to spell PATH: a control
** character (a newline, a tab), one of \\ * ? [ = ; ( ), or a leading '~'.
*/
static int
make_path(struct strbuf *sb, const char *path, int target)
{
	for (const char *p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f || strchr("\\*?[=;()", c) || (c == '~' && p == path)) {
			if (c == '\n')
				error("the depfile cannot list '%s': make has no way to read a "
				      "newline in a file name", path);
			else if (c < 0x20 || c == 0x7f)
				error("the depfile cannot list '%s': make has no way to read a "
				      "control character in a file name", path);
			else
				error("the depfile cannot list '%s': make has no way to read '%c' %s",
				      path, c, c == '~' ? "at the start of a file name" : "in a file name");
			return -1;
		}
		if (c == ' ' || c == '#' || c == ':' || (c == '%' && target))
			sb_add(sb, "\\");
		sb_addn(sb, p, 1);
		if (c == '$')
			sb_add(sb, "$");
	}
	return 0;
}

/*
** Append a Make depfile to SB: the N TARGETS depend on the NPRE
** PREREQUISITES, any number, and each prerequisite gets an empty rule,
** as gcc -MP writes, so that make does not fail when one is removed.
** Return 0, or -1 with an error printed if a path cannot be written.
*/
int
output_depfile(struct strbuf *sb, const char *const *targets, int n,
               const char *const *prerequisites, int npre)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_add(sb, " ");
		if (make_path(sb, targets[i], 1) != 0)
			return -1;
	}
	sb_add(sb, ":");
	for (int i = 0; i < npre; i++) {
		sb_add(sb, " ");
		if (make_path(sb, prerequisites[i], 0) != 0)
			return -1;
	}
	sb_add(sb, "\n");
	for (int i = 0; i < npre; i++) {
		sb_add(sb, "\n");
		make_path(sb, prerequisites[i], 1);
		sb_add(sb, ":\n");
	}
	return 0;
}
