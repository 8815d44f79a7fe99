// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usage.c - what -h and -V print.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pft.h"

/* No empty line: a harness may merge this into what it parses. */
static const char usage_head[] =
"Usage: pft [OPTION]... [TAG]\n"
"Fault anonymous (or SysV, or /dev/zero) memory from several workers and\n"
"report faults per CPU second and per wall second, as pft 0.12x did.\n";

static const char usage_tail[] =
"Result line: Gb, workers, cachelines, user, system and wall seconds,\n"
"pages per CPU second and per wall second.  Exit status: 0 success,\n"
"1 the run failed, 2 bad usage, 128+N stopped by signal N.\n"
"See pft(1).\n";

/* The column where the help of an option starts. */
#define HELP_COLUMN 25

/* Lines separated by '\n', each after `indent` spaces but the first. */
static void print_lines(const char *text, int indent)
{
	for (const char *line = text; line;) {
		const char *nl = strchr(line, '\n');

		if (line != text)
			printf("%*s", indent, "");
		printf("%.*s\n", (int)(nl ? nl - line : (long)strlen(line)),
		       line);
		line = nl ? nl + 1 : NULL;
	}
}

/* "  -m, --size=SIZE        memory in all..." */
static void print_option(const struct pft_option_doc *d)
{
	char lead[128];
	int len;

	if (d->lead)
		len = snprintf(lead, sizeof(lead), "%s", d->lead);
	else if (d->short_name && !d->long_name)
		len = snprintf(lead, sizeof(lead), "-%c", d->short_name);
	else
		len = snprintf(lead, sizeof(lead), "%s%s%s%s%s%s",
			       d->short_name ? "-x, " :
			       d->section == PFT_SEC_LEGACY ? "    " : "",
			       "--", d->long_name,
			       !d->arg_name ? "" : d->optional_arg ? "[=" : "=",
			       d->arg_name ? d->arg_name : "",
			       d->optional_arg ? "]" : "");
	if (d->short_name && d->long_name && !d->lead)
		lead[1] = d->short_name;
	if (len <= HELP_COLUMN - 3)
		printf("  %-*s", HELP_COLUMN - 2, lead);
	else
		printf("  %s\n%*s", lead, HELP_COLUMN, "");
	print_lines(d->help, HELP_COLUMN);
}

/* "  --pattern=P" and the library's patterns, wrapped as the rest is. */
static void print_patterns_option(void)
{
	static const char head[] = "  --pattern=P            ";
	size_t col = sizeof(head) - 1;
	char list[1024], *word;

	pft_pattern_list(list, sizeof(list), " (default)");
	fputs(head, stdout);
	col = sizeof(head) - 1;
	for (word = strtok(list, " "); word; word = strtok(NULL, " ")) {
		size_t len = strlen(word);

		if (col > sizeof(head) - 1 && col + 1 + len > 79) {
			printf("\n%*s", (int)sizeof(head) - 1, "");
			col = sizeof(head) - 1;
		} else if (col > sizeof(head) - 1) {
			putchar(' ');
			col++;
		}
		fputs(word, stdout);
		col += len;
	}
	putchar('\n');
}

/* A reader gone (pft -h | head) is said as for a result: one line, exit
 * 1 (SIGPIPE is ignored from the start).  errno is the first write's
 * error: the printers clear it before they write. */
static int flushed(const char *what)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return PFT_DONE;
	return pft_fail("cannot write %s on standard output: %s", what,
			errno ? strerror(errno) : "write error");
}

/* The options of a section, in their order. */
static void print_section(const struct pft_option_doc *const *docs, size_t n,
			  enum pft_section section, const char *heading)
{
	puts(heading);
	for (size_t i = 0; i < n; i++) {
		if (docs[i]->section != section)
			continue;
		if (docs[i]->help)
			print_option(docs[i]);
		else /* --pattern: the library's patterns */
			print_patterns_option();
	}
}

/* Each pattern's own settings, under a heading of the pattern's. */
static void print_pattern_sections(const struct pft_option_doc *const *docs,
				   size_t n)
{
	for (int p = 0; p < faultgen_pattern_count(); p++) {
		struct faultgen_pattern_info info = { .size = sizeof(info) };
		bool heading = false;

		if (faultgen_pattern_info(p, &info))
			continue;
		for (size_t i = 0; i < n; i++) {
			if (docs[i]->section != PFT_SEC_PATTERN ||
			    docs[i]->pattern != p)
				continue;
			if (!heading) {
				printf("%s (--pattern=%s%s", info.title,
				       info.name, info.note ? "; " : "");
				if (info.note)
					fputs(info.note, stdout);
				puts("):");
				heading = true;
			}
			print_option(docs[i]);
		}
	}
}

int pft_print_help(const struct pft_option_doc *const *docs, size_t n)
{
	errno = 0;
	fputs(usage_head, stdout);
	print_section(docs, n, PFT_SEC_LEGACY, "0.12x options:");
	print_section(docs, n, PFT_SEC_WORKLOAD, "Workload:");
	print_section(docs, n, PFT_SEC_POLICY,
		      "Memory policy (NODES: 0, 0-3, 1,3 or all):");
	print_pattern_sections(docs, n);
	print_section(docs, n, PFT_SEC_OUTPUT, "Output:");
	fputs(usage_tail, stdout);
	return flushed("the help");
}

int pft_print_version(void)
{
	fprintf(stderr,
		"pft 0.12x-compatible, libfaultgen %s, libcpuset %s\n",
		faultgen_version(),
		faultgen_has_libcpuset() ? "built in" : "not built in");
	return PFT_DONE;
}

/* The names of bit set in mask, of names[] (n of them), as a JSON
 * array. */
static void json_bits(struct pft_json *j, const char *key, unsigned int mask,
		      const char *const *names, unsigned int n)
{
	pj_arr(j, key);
	for (unsigned int b = 0; b < n; b++)
		if (mask & (1u << b))
			pj_str(j, NULL, names[b]);
	pj_arr_end(j);
}

/* A setting of the library's, as its table says. */
static void json_setting(struct pft_json *j,
			 const struct faultgen_setting_info *in)
{
	static const char *const types[] = { "bool", "uint", "size",
					     "seconds", "keyword", "text" };

	pj_obj(j, NULL);
	pj_str(j, "name", in->name);
	pj_str(j, "type", (unsigned int)in->type < 6 ? types[in->type] : "");
	if (in->keywords) {
		pj_arr(j, "keywords");
		for (int k = 0; in->keywords[k]; k++)
			pj_str(j, NULL, in->keywords[k]);
		pj_arr_end(j);
	}
	if (in->type == FAULTGEN_TYPE_UINT || in->type == FAULTGEN_TYPE_SIZE) {
		pj_u64(j, "min", in->flags & FAULTGEN_SETTING_ZERO ? 0 : in->min);
		pj_u64(j, "max", in->max);
	}
	if (in->type == FAULTGEN_TYPE_SECONDS)
		pj_dbl(j, "max", in->max_seconds);
	pj_value(j, "default", &in->default_value);
	pj_str(j, "default_text", in->default_text);
	pj_bool(j, "page_multiple", in->flags & FAULTGEN_SETTING_PAGES);
	pj_str_or_null(j, "value_name", in->value_name);
	pj_str(j, "help", in->help);
	pj_str_or_null(j, "alias", in->alias);
	pj_obj_end(j);
}

/* The settings of every pattern that pattern p's runs read, by name
 * (faultgen_pattern_reads), as the library's table lists them. */
static void json_reads(struct pft_json *j, int p)
{
	struct faultgen_setting_info in = { .size = sizeof(in) };

	pj_arr(j, "reads");
	for (int i = 0; faultgen_setting_info((unsigned int)i, &in) == 0; i++)
		if (in.pattern < 0 && in.setting != FAULTGEN_SETTING_NONE &&
		    faultgen_pattern_reads(p, in.setting) == 1)
			pj_str(j, NULL, in.name);
	pj_arr_end(j);
}

/* One pattern and its own settings. */
static void json_pattern(int p)
{
	static const char *const backings[] = { "anon", "dev-zero", "sysv",
						"memfd", "file", "hugetlb" };
	static const char *const kinds[] = { "threads", "processes" };
	struct faultgen_pattern_info info = { .size = sizeof(info) };
	struct faultgen_setting_info in = { .size = sizeof(in) };
	struct pft_json j;

	if (faultgen_pattern_info(p, &info))
		return;
	pj_begin(&j, stdout);
	pj_str(&j, "schema", "pft-patterns/1");
	pj_str(&j, "pattern", info.name);
	pj_str(&j, "title", info.title);
	pj_bool(&j, "runs_once", info.flags & FAULTGEN_PATTERN_ONCE);
	pj_bool(&j, "own_mappings", info.flags & FAULTGEN_PATTERN_OWN_MAPPINGS);
	pj_bool(&j, "unbound_workers", info.flags & FAULTGEN_PATTERN_UNBOUND);
	pj_bool(&j, "own_memory", info.flags & FAULTGEN_PATTERN_OWN_MEMORY);
	json_bits(&j, "backings", info.backings, backings, 6);
	json_bits(&j, "worker_kinds", info.worker_kinds, kinds, 2);
	pj_arr(&j, "settings");
	for (int i = 0; faultgen_setting_info((unsigned int)i, &in) == 0; i++)
		if (in.pattern == p)
			json_setting(&j, &in);
	pj_arr_end(&j);
	json_reads(&j, p);
	pj_end(&j);
}

/* The names --pattern takes, for scripts (pft-sweep); with --json, a
 * line of each pattern, what it runs on and its own settings. */
int pft_print_patterns(bool json)
{
	errno = 0;
	for (int i = 0; i < faultgen_pattern_count(); i++) {
		if (json)
			json_pattern(i);
		else
			puts(faultgen_pattern_name(i));
	}
	return flushed("the pattern names");
}
