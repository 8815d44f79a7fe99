// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * messages.c - every diagnostic pft writes: one line on stderr that
 * starts with "pft: ".
 *
 * Bad usage adds the hint line, and its caller returns PFT_EXIT_USAGE up
 * to main(); a failure before the run returns PFT_EXIT_FAIL.  Every such
 * line holds letters, so a harness that merges stderr into what it
 * parses never takes one for a result.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pft.h"

/* The analyzer takes the va_list parameter for uninitialized (its
 * callers va_start it). */
static void vmsg(const char *fmt, va_list ap)
{
	char line[2048];
	int n = vsnprintf(line, sizeof(line), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)

	/* One write of the whole line (stderr is unbuffered): another
	 * process's output into the same pipe can only come between. */
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	fprintf(stderr, "pft: %.*s\n", n, line);
}

void pft_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* Says what was wrong with the command line; returns PFT_EXIT_USAGE. */
int pft_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputs("Try 'pft --help' for more information.\n", stderr);
	return PFT_EXIT_USAGE;
}

/* Says why pft cannot run; returns PFT_EXIT_FAIL. */
int pft_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	return PFT_EXIT_FAIL;
}

/* What a path that is neither a directory nor a regular file is. */
static const char *kind_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return "a file";
	if (S_ISCHR(st.st_mode))
		return "a character device";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	return "a file";
}

/*
 * Why the library refused the path of --backing=file:PATH with err, in
 * buf; false for an error that is not the path's.  The same words when
 * the option is read and when a run finds the path changed since.
 */
bool pft_path_why(const char *path, int err, bool share, char *buf,
		  size_t len)
{
	struct stat st;
	bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);

	switch (err) {
	case -ENOENT:
		snprintf(buf, len, "no such file or directory");
		return true;
	case -ELOOP:
		snprintf(buf, len, "a symbolic link: pft never opens a file "
			 "through a link (give the path it names)");
		return true;
	case -EINVAL:
		snprintf(buf, len, "neither a directory nor a regular file "
			 "(%s)", kind_of(path));
		return true;
	case -EPERM:
		snprintf(buf, len, "an append-only or immutable directory "
			 "(lsattr -d): it would keep the file a run makes "
			 "there, which the run removes at once");
		return true;
	case -EACCES:
		snprintf(buf, len, "%s", dir ? "a directory pft cannot create "
			 "a file in" : share ? "a file pft cannot write" :
			 "a file pft cannot read");
		return true;
	case -EBUSY:
		if (!dir)
			return false;
		snprintf(buf, len, "the %u names the run tried there "
			 "(libfaultgen-%d-N) are all taken by other files",
			 PFT_FILE_NAME_TRIES, (int)getpid());
		return true;
	}
	return false;
}
