// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-pft-args.c - libFuzzer harness for pft's whole option parsing: the
 * input, split at newlines, is pft's argv; parsing, the attr built from
 * it and the CPU resolution run, and nothing is mapped or faulted.  pft
 * exits on bad usage: exit() is wrapped (-Wl,--wrap=exit) to jump back
 * here, so every input must end in a return or an exit, never a crash.
 * pft's messages are not the subject: run.sh runs it with
 * -close_fd_mask=3.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len);
void __wrap_exit(int status);
void __real_exit(int status);

static jmp_buf back;
static int exited;
static volatile int armed; /* inside pft's parsing: exit comes back */

void __wrap_exit(int status)
{
	if (!armed)
		__real_exit(status); /* libFuzzer's own exit */
	armed = 0;
	exited = status;
	longjmp(back, 1);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	static char *argv[MAX_ARGS + 2];
	static struct pft_opts o;
	char *buf = malloc(len + 1);
	int argc = 1;

	if (!buf)
		return 0;
	memcpy(buf, data, len);
	buf[len] = '\0';
	argv[0] = "pft";
	for (char *p = buf; argc <= MAX_ARGS;) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;
	optind = 0; /* glibc: a full reset of getopt's state */
	if (setjmp(back) == 0) {
		armed = 1;
		pft_opts_init(&o);
		pft_parse_args(&o, argc, argv);
		pft_resolve_cpus(&o);
		armed = 0;
	} else if (exited != PFT_EXIT_OK && exited != PFT_EXIT_FAIL &&
		   exited != PFT_EXIT_USAGE) {
		abort();
	}
	pft_opts_release(&o);
	free(buf);
	return 0;
}
