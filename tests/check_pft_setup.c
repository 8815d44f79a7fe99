// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_pft_setup.c - pft's mapping of its options onto the library's
 * attr: when a setter refuses a value, the user learns which option and
 * which value, with the exit status of its cause (2 for a value the
 * library finds invalid or out of range, 1 for a failure such as running
 * out of memory), whatever the setter.
 *
 * The library's setters are wrapped (-Wl,--wrap) so that one of them
 * (or faultgen_attr_set_value for one setting's name) returns the error
 * under test; pft's own sources are linked in, and each
 * case runs pft's parsing, which sets the attr option by option, in a
 * child whose exit status and stderr are checked.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include "check-util.h"

#include <fcntl.h>

#include "../pft/pft.h"

static const char *fail_setter; /* the setter that fails, by name */
static int fail_code;

/*
 * The wrappers are global (the linker's --wrap binds to them by name), so
 * each is declared before its definition.
 */
#define WRAP(name, ...)                                                       \
	int __real_faultgen_attr_set_##name(__VA_ARGS__);                     \
	int __wrap_faultgen_attr_set_##name(__VA_ARGS__);                     \
	int __wrap_faultgen_attr_set_##name(__VA_ARGS__)
#define FAIL_OR_CALL(name, ...)                                               \
	do {                                                                  \
		if (fail_setter && strcmp(fail_setter, #name) == 0)           \
			return fail_code;                                     \
		return __real_faultgen_attr_set_##name(__VA_ARGS__);          \
	} while (0)

WRAP(size, struct faultgen_attr *a, uint64_t v)
{
	FAIL_OR_CALL(size, a, v);
}
WRAP(workers, struct faultgen_attr *a, unsigned int n,
     enum faultgen_workers k)
{
	FAIL_OR_CALL(workers, a, n, k);
}
WRAP(pattern, struct faultgen_attr *a, enum faultgen_pattern v)
{
	FAIL_OR_CALL(pattern, a, v);
}
WRAP(backing, struct faultgen_attr *a, enum faultgen_backing v)
{
	FAIL_OR_CALL(backing, a, v);
}
WRAP(shm_lock, struct faultgen_attr *a, int v)
{
	FAIL_OR_CALL(shm_lock, a, v);
}
WRAP(touch, struct faultgen_attr *a, enum faultgen_touch v)
{
	FAIL_OR_CALL(touch, a, v);
}
WRAP(cachelines, struct faultgen_attr *a, unsigned int v)
{
	FAIL_OR_CALL(cachelines, a, v);
}
WRAP(numa, struct faultgen_attr *a, enum faultgen_numa v)
{
	FAIL_OR_CALL(numa, a, v);
}
WRAP(cpus, struct faultgen_attr *a, const char *v)
{
	FAIL_OR_CALL(cpus, a, v);
}
WRAP(cpuset, struct faultgen_attr *a, const char *v)
{
	FAIL_OR_CALL(cpuset, a, v);
}
WRAP(pin, struct faultgen_attr *a, int v)
{
	FAIL_OR_CALL(pin, a, v);
}
WRAP(sched_fifo, struct faultgen_attr *a, int v)
{
	FAIL_OR_CALL(sched_fifo, a, v);
}
WRAP(oversubscribe, struct faultgen_attr *a, int v)
{
	FAIL_OR_CALL(oversubscribe, a, v);
}
WRAP(caller_worker, struct faultgen_attr *a, int v)
{
	FAIL_OR_CALL(caller_worker, a, v);
}
WRAP(rounds, struct faultgen_attr *a, unsigned int r, enum faultgen_zap z)
{
	FAIL_OR_CALL(rounds, a, r, z);
}
WRAP(duration, struct faultgen_attr *a, double s, enum faultgen_zap z)
{
	FAIL_OR_CALL(duration, a, s, z);
}
WRAP(warmup, struct faultgen_attr *a, unsigned int v)
{
	FAIL_OR_CALL(warmup, a, v);
}

/* Options of the library's own settings set them by name: "thp" stands
 * for faultgen_attr_set_value(attr, "thp", ...). */
int __real_faultgen_attr_set_value(struct faultgen_attr *a, const char *name,
				   const struct faultgen_value *v);
int __wrap_faultgen_attr_set_value(struct faultgen_attr *a, const char *name,
				   const struct faultgen_value *v);
int __wrap_faultgen_attr_set_value(struct faultgen_attr *a, const char *name,
				   const struct faultgen_value *v)
{
	if (fail_setter && strcmp(fail_setter, name) == 0)
		return fail_code;
	return __real_faultgen_attr_set_value(a, name, v);
}

/* One setter failing under one command line: what stderr must begin with
 * (after "pft: ") when the setter says EINVAL. */
struct setter_case {
	const char *setter;
	const char *args[4];
	const char *names; /* the option and value, as typed */
};

static const struct setter_case cases[] = {
	{ "size", { "-m", "4M" }, "-m '4M': " },
	{ "size", { "--size=8M" }, "--size '8M': " },
	{ "workers", { "-t", "2" }, "-t '2': " },
	{ "workers", { "--processes=2" }, "--processes '2': " },
	{ "pattern", { "--pattern=per-thread-vma" },
	  "--pattern 'per-thread-vma': " },
	{ "pattern", { "-M" }, "-M: " },
	{ "backing", { "-S" }, "-S: " },
	{ "backing", { "-Z" }, "-Z: " },
	{ "shm_lock", { "-L" }, "-L: " },
	{ "touch", { "-z" }, "-z: " },
	{ "touch", { "--touch=read" }, "--touch 'read': " },
	{ "cachelines", { "-c", "2" }, "-c '2': " },
	{ "numa", { "-p" }, "-p: " },
	{ "thp", { "--thp=never" }, "--thp 'never': " },
	{ "cpus", { "--cpus=0" }, "--cpus '0': " },
	{ "cpuset", { "--cpuset=somewhere" }, "--cpuset 'somewhere': " },
	{ "pin", { "-a" }, "-a: " },
	{ "sched_fifo", { "-f" }, "-f: " },
	{ "oversubscribe", { "--oversubscribe" }, "--oversubscribe: " },
	{ "duration", { "--duration=0.5" }, "--duration '0.5': " },
	{ "rounds", { "--rounds=3" }, "--rounds '3': " },
	{ "warmup", { "--rounds=3", "--warmup=1" }, "--warmup '1': " },
	{ "protect", { "--pattern=ro-collapse", "--protect=fork" },
	  "--protect 'fork': " },
	{ "collapse", { "--pattern=ro-collapse", "--collapse=khugepaged" },
	  "--collapse 'khugepaged': " },
	{ "timeout", { "--pattern=ro-collapse", "--timeout=5" },
	  "--timeout '5': " },
	{ "pretouch", { "--pattern=pretouch", "--pretouch=store" },
	  "--pretouch 'store': " },
	{ "chunk-size", { "--pattern=pretouch", "--chunk-size=1M" },
	  "--chunk-size '1M': " },
	{ "jdk", { "--pattern=pretouch", "--jdk=17" }, "--jdk '17': " },
	{ "gc", { "--pattern=pretouch", "--gc=g1" }, "--gc 'g1': " },
};
#define NR_CASES ((int)(sizeof(cases) / sizeof(cases[0])))

/*
 * Parses case c's command line and builds the attr in a child with setter
 * c->setter failing with `code`; returns the child's exit status and its
 * stderr in err.
 */
static int build_failing(const struct setter_case *c, int code, char *err,
			 size_t len)
{
	int fds[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *argv[6] = { "pft" };
		struct pft_opts o;
		int argc = 1;

		dup2(fds[1], 2);
		for (int i = 0; i < 4 && c->args[i]; i++)
			argv[argc++] = (char *)c->args[i];
		fail_setter = c->setter;
		fail_code = code;
		st = pft_opts_init(&o);
		if (!st)
			st = pft_parse_args(&o, argc, argv);
		pft_opts_release(&o);
		_exit(pft_exit_status(st));
	}
	close(fds[1]);
	while ((n = read(fds[0], err + got, len - 1 - (size_t)got)) > 0)
		got += n;
	err[got] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void expect(const struct setter_case *c, int code, int status,
		   const char *then)
{
	char err[4096], want[256];
	int got = build_failing(c, code, err, sizeof(err));

	snprintf(want, sizeof(want), "pft: %s", c->names);
	ck_assert_msg(got == status, "%s failing with %d: exit %d, not %d: %s",
		      c->setter, code, got, status, err);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
		      "%s failing with %d: '%s' does not begin with '%s'",
		      c->setter, code, err, want);
	ck_assert_msg(strstr(err, then), "%s failing with %d: '%s' lacks '%s'",
		      c->setter, code, err, then);
	ck_assert_msg(!strstr(err, "does not match pft"),
		      "%s: blamed on a version mismatch: %s", c->setter, err);
}

START_TEST(invalid_value_is_usage_error_naming_option)
{
	expect(&cases[_i], -EINVAL, PFT_EXIT_USAGE, "Try 'pft --help'");
}
END_TEST

START_TEST(out_of_range_value_is_usage_error_naming_option)
{
	expect(&cases[_i], -ERANGE, PFT_EXIT_USAGE, "Try 'pft --help'");
}
END_TEST

START_TEST(out_of_memory_is_runtime_error_naming_option)
{
	expect(&cases[_i], -ENOMEM, PFT_EXIT_FAIL, "not enough memory");
}
END_TEST

START_TEST(other_error_is_runtime_error_with_its_cause)
{
	expect(&cases[_i], -EPERM, PFT_EXIT_FAIL, "operation not permitted");
}
END_TEST

/* The calling worker is no option: its failure is a runtime error. */
START_TEST(caller_worker_failure_is_runtime_error)
{
	static const struct setter_case c = { "caller_worker", { "-t", "2" },
					      "the calling worker: " };

	expect(&c, -ENOMEM, PFT_EXIT_FAIL, "not enough memory");
}
END_TEST

/* Nothing failing: the attr holds what the options asked. */
START_TEST(options_reach_the_attr)
{
	static char *argv[] = { "pft", "-n", "3", "-m", "8M", "-c", "2" };
	struct pft_opts o;

	fail_setter = NULL;
	ck_assert_int_eq(pft_opts_init(&o), 0);
	ck_assert_int_eq(pft_parse_args(&o, 7, argv), 0);
	ck_assert_uint_eq(faultgen_attr_get_workers(o.attr), 3);
	ck_assert_uint_eq(faultgen_attr_get_size(o.attr), 8u << 20);
	ck_assert_uint_eq(faultgen_attr_get_cachelines(o.attr), 2);
	pft_opts_release(&o);
}
END_TEST

/*
 * Parses argv in this process, with stderr sent to /dev/null; returns
 * what pft_parse_args returned.  The parser never exits: only pft's
 * main() does.
 */
static int parse_here(int argc, char **argv)
{
	struct pft_opts o;
	int saved = dup(2), null = open("/dev/null", O_WRONLY), ret;

	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(null, 0);
	dup2(null, 2);
	close(null);
	optind = 0; /* getopt starts afresh */
	ret = pft_opts_init(&o);
	if (!ret)
		ret = pft_parse_args(&o, argc, argv);
	pft_opts_release(&o);
	dup2(saved, 2);
	close(saved);
	return ret;
}

/* A bad option, a refused setter, --help: the parser returns the status,
 * and the process goes on. */
START_TEST(parser_returns_its_status)
{
	static char *bad_count[] = { "pft", "-t", "many" };
	static char *unknown[] = { "pft", "--no-such-option" };
	static char *conflict[] = { "pft", "--zap=dontneed" };
	static char *refused[] = { "pft", "-m", "8M" };
	static char *help[] = { "pft", "--list-patterns" };
	static char *good[] = { "pft", "-t", "2", "-m", "8M" };
	int out = dup(1), null = open("/dev/null", O_WRONLY);

	fail_setter = NULL;
	ck_assert_int_eq(parse_here(3, bad_count), PFT_EXIT_USAGE);
	ck_assert_int_eq(parse_here(2, unknown), PFT_EXIT_USAGE);
	ck_assert_int_eq(parse_here(2, conflict), PFT_EXIT_USAGE);
	fail_setter = "size";
	fail_code = -ENOMEM;
	ck_assert_int_eq(parse_here(3, refused), PFT_EXIT_FAIL);
	fail_setter = NULL;
	ck_assert_int_ge(out, 0);
	ck_assert_int_ge(null, 0);
	dup2(null, 1);
	ck_assert_int_eq(parse_here(2, help), PFT_DONE);
	fflush(stdout);
	dup2(out, 1);
	close(out);
	close(null);
	ck_assert_int_eq(pft_exit_status(PFT_DONE), PFT_EXIT_OK);
	ck_assert_int_eq(parse_here(5, good), 0);
}
END_TEST

/* pft sets no setting the user did not give: without --pattern or -M,
 * the pattern setter is never called, so its failure cannot stop pft. */
START_TEST(untyped_pattern_is_not_set)
{
	static char *argv[] = { "pft", "-t", "2", "-m", "8M" };
	struct pft_opts o;

	fail_setter = "pattern";
	fail_code = -EINVAL;
	optind = 0;
	ck_assert_int_eq(pft_opts_init(&o), 0);
	ck_assert_int_eq(pft_parse_args(&o, 5, argv), 0);
	ck_assert_int_eq(faultgen_attr_get_pattern(o.attr),
			 FAULTGEN_SHARED_VMA);
	pft_opts_release(&o);
	fail_setter = NULL;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pft_setup");
	TCase *tc = tcase_create("setters");

	tcase_add_loop_test(tc, invalid_value_is_usage_error_naming_option, 0,
			    NR_CASES);
	tcase_add_loop_test(tc, out_of_range_value_is_usage_error_naming_option,
			    0, NR_CASES);
	tcase_add_loop_test(tc, out_of_memory_is_runtime_error_naming_option, 0,
			    NR_CASES);
	tcase_add_loop_test(tc, other_error_is_runtime_error_with_its_cause, 0,
			    NR_CASES);
	tcase_add_test(tc, caller_worker_failure_is_runtime_error);
	tcase_add_test(tc, options_reach_the_attr);
	tcase_add_test(tc, parser_returns_its_status);
	tcase_add_test(tc, untyped_pattern_is_not_set);
	suite_add_tcase(s, tc);
	return fgc_main(s);
}
