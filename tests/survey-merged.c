// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * survey-merged - a fixture of cli-survey.sh: two buffers from malloc(3),
 * each large enough for glibc to map it on its own, which the kernel
 * merges into one VMA (adjacent anonymous mappings with the same flags),
 * then written by 3 threads: the first writes buffer A, the other two
 * a half of buffer B each.  What pft-survey must report is the one
 * VMA, not the two allocations.
 *
 *   survey-merged A-MIB B-MIB [PAUSE-MS]
 *
 * PAUSE-MS: a pause between the two mallocs, so that the survey's
 * snapshots see A alone before B merges into it (the kernel moves the
 * start of A's VMA down over B's pages: one VMA throughout).
 *
 * The buffers stay mapped for 200 ms after the writes, so that the
 * survey's snapshots of /proc/PID/maps see the merged VMA.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct part {
	char *p;
	size_t len;
};

static void *writer(void *arg)
{
	struct part *part = arg;

	memset(part->p, 1, part->len);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec hold = { 0, 200 * 1000 * 1000 };
	struct timespec pause = { 0, 0 };
	struct part parts[3];
	pthread_t t[3];
	size_t a, b;
	char *bufa, *bufb;
	int i;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: survey-merged A-MIB B-MIB [PAUSE-MS]\n");
		return 2;
	}
	a = strtoul(argv[1], NULL, 10) << 20;
	b = strtoul(argv[2], NULL, 10) << 20;
	if (argc == 4) {
		unsigned long ms = strtoul(argv[3], NULL, 10);

		pause.tv_sec = (time_t)(ms / 1000);
		pause.tv_nsec = (long)(ms % 1000) * 1000 * 1000;
	}
	bufa = malloc(a);
	nanosleep(&pause, NULL);
	bufb = malloc(b);
	if (!bufa || !bufb) {
		perror("survey-merged: malloc");
		free(bufb);
		free(bufa);
		return 1;
	}
	parts[0] = (struct part){ bufa, a };
	parts[1] = (struct part){ bufb, b / 2 };
	parts[2] = (struct part){ bufb + b / 2, b - b / 2 };
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, writer, &parts[i]) != 0) {
			fprintf(stderr, "survey-merged: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	nanosleep(&hold, NULL);
	printf("%p %p\n", (void *)bufa, (void *)bufb);
	free(bufb);
	free(bufa);
	return 0;
}
