/*
** posix.c: two calls of emscripten 3.1.6's libc that bcastgen's writing
** of its files (gen/output.c) cannot use as they are there. Linked in
** before libc, these replace libc's own.
**
** umask: emscripten's starts as 0777, so every new file would get mode
** 0 (0666 & ~0777), which the in-memory filesystem then refuses to open
** for reading. This one starts as 022, the usual umask on Debian.
**
** link: the in-memory filesystem (MEMFS) has no hard links: its link
** fails with EMLINK, and bcastgen's commit of more than one file (the
** journal created under its final name, the backups of replaced files)
** needs one. This link copies OLD to a new file NEW (failing with EEXIST
** when NEW exists, as link does): what the commit asks of a link (NEW
** names the content OLD has now; OLD is then renamed over, or removed)
** holds, though the two are not one inode.
*/
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

mode_t umask(mode_t mask);
int link(const char *old, const char *new);

static mode_t the_umask = 022;

mode_t
umask(mode_t mask)
{
	mode_t old = the_umask;

	the_umask = mask & 0777;
	return old;
}

int
link(const char *old, const char *new)
{
	char buf[4096];
	struct stat st;
	ssize_t n = 0;
	int in, out, err = 0;

	if ((in = open(old, O_RDONLY)) < 0)
		return -1;
	if (fstat(in, &st) != 0)
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EPERM;
	if (err != 0) {
		close(in);
		errno = err;
		return -1;
	}
	if ((out = open(new, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 07777)) < 0) {
		err = errno;
		close(in);
		errno = err;
		return -1;
	}
	while (err == 0 && (n = read(in, buf, sizeof buf)) > 0)
		for (char *p = buf; err == 0 && n > 0;) {
			ssize_t w = write(out, p, (size_t)n);

			if (w < 0)
				err = errno;
			else
				p += w, n -= w;
		}
	if (err == 0 && n < 0)
		err = errno;
	if (close(out) != 0 && err == 0)
		err = errno;
	close(in);
	if (err != 0) {
		unlink(new);
		errno = err;
		return -1;
	}
	return 0;
}
