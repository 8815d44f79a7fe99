// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfctl.c - perf's control channel (--perf-ctl): the descriptors are
 * opened before the run (a bad one is a usage error), and "enable" and
 * "disable" are written around each run's measured window, waiting for
 * perf's "ack" when asked.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pft.h"

/* "7" is a descriptor pft inherited; anything else a FIFO (or file). */
/* Opens CTL or ACK into *fd; or says why not. */
static int open_ctl(const char *what, const char *s, int flags, int *fd)
{
	bool number = *s != '\0';
	unsigned long n;
	int ret;

	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			number = false;
	if (number) {
		ret = pft_parse_count(what, s, 0, 1u << 20, &n);
		if (ret)
			return ret;
		*fd = (int)n;
		if (fcntl(*fd, F_GETFD) < 0)
			return pft_usage_error("%s %s: not an open file "
					       "descriptor", what, s);
		return 0;
	}
	/* O_NONBLOCK: a FIFO without a reader is an error, not a hang. */
	*fd = open(s, flags | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0 && errno == ENXIO)
		return pft_usage_error("%s '%s': nobody reads this FIFO (start "
				       "perf with --control first)", what, s);
	if (*fd < 0)
		return pft_usage_error("%s '%s': %s", what, s,
				       strerror(errno));
	fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

int pft_open_perf_ctl(struct pft_opts *o)
{
	char *ctl, *ack;
	int ret;

	if (!o->perf_ctl)
		return 0;
	ctl = strdup(o->perf_ctl);
	if (!ctl)
		return pft_fail("out of memory");
	ack = strchr(ctl, ',');
	if (ack)
		*ack++ = '\0';
	if (!*ctl || (ack && !*ack))
		ret = pft_usage_error("--perf-ctl '%s': expected CTL or "
				      "CTL,ACK", o->perf_ctl);
	else
		ret = open_ctl("--perf-ctl", ctl, O_WRONLY, &o->perf_fd);
	/* perf writes "ack" into a FIFO it opened for writing: reading
	 * it needs no writer yet, so open it read-write to never block. */
	if (!ret && ack)
		ret = open_ctl("--perf-ctl", ack, O_RDWR, &o->perf_ack_fd);
	free(ctl);
	return ret;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * perf answers each command with "ack\n" on the ack descriptor.  A stop
 * signal must end the wait even when it came just before it (the signals
 * stay blocked between the check and ppoll), and a perf that went away
 * must not hold pft forever.
 */
#define ACK_TIMEOUT_S 10

static int read_ack(int fd)
{
	struct timespec ts = { .tv_sec = ACK_TIMEOUT_S };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	sigset_t old;
	int ret = 0;
	char c;

	pft_block_stops(&old);
	for (;;) {
		ssize_t n;

		if (pft_stop_signal()) {
			ret = -EINTR;
			break;
		}
		n = ppoll(&pfd, 1, &ts, &old);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			ret = -ETIMEDOUT;
			break;
		}
		n = n < 0 ? -1 : read(fd, &c, 1);
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		if (c == '\n')
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

void pft_perf_command(struct pft_opts *o, const char *cmd)
{
	char line[32];
	int ret, n;

	if (o->perf_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s\n", cmd);
	ret = write_all(o->perf_fd, line, (size_t)n);
	if (!ret && o->perf_ack_fd >= 0)
		ret = read_ack(o->perf_ack_fd);
	if (ret && pft_stop_signal()) /* interrupted while waiting for perf */
		return;
	if (ret) {
		pft_msg("warning: --perf-ctl: cannot send '%s': %s; no more "
			"perf commands", cmd, strerror(-ret));
		o->perf_fd = -1;
	}
}

