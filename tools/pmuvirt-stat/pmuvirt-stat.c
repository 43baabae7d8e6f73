// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-stat: run a command and print its virtual counts per thread,
 * like "perf stat --per-thread", from pmuvirt.ko.
 *
 * The command's main thread is attached before exec with inheritance, so
 * every thread and process the command creates is counted on its own.
 * pmuvirt.ko reports each one when it exits; the file reads end of file
 * once the last of them has reported.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "libpmuvirt-user.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuvirt-stat [-e event,...] -- command [args]\n"
		"  events: instructions cycles branches branch-misses tsc rHEX, with :u or :k\n"
		"  default: -e instructions,cycles,tsc\n");
	exit(2);
}

/* Which counters this kernel and PMU accept, one at a time. */
static uint32_t probe_supported(int fd, const struct pmuvirt_control *ctl)
{
	struct pmuvirt_control one;
	struct pmuvirt_user u;
	uint32_t ok = 0;
	unsigned int i;

	for (i = 0; i < ctl->nr_counters; i++) {
		one = *ctl;
		one.nr_counters = 1;
		one.counter[0] = ctl->counter[i];
		if (!pmuvirt_user_attach(&u, fd, &one, 0, 0)) {
			ok |= 1u << i;
			pmuvirt_user_detach(&u, NULL);
		} else if (errno != ENODEV && errno != EOPNOTSUPP && errno != EBUSY) {
			fprintf(stderr, "pmuvirt-stat: counter %u: %s (see dmesg)\n", i,
				strerror(errno));
			exit(1);
		}
	}
	return ok;
}

static int by_pid_tid(const void *a, const void *b)
{
	const struct pmuvirt_report *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void print_count(uint64_t v)
{
	char digits[32], out[48];
	int n, i, j = 0;

	n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[j++] = ',';
		out[j++] = digits[i];
	}
	out[j] = 0;
	printf("%20s", out);
}

int main(int argc, char **argv)
{
	const char *events = "instructions,cycles,tsc";
	char evname[PMUVIRT_MAX_COUNTERS][64];
	struct pmuvirt_control ctl, use;
	uint32_t supported;
	struct pmuvirt_report *reps = NULL;
	unsigned int i, k, r, nreports = 0, cap = 0;
	int fd, opt, status, complete = 0;
	pid_t child;

	while ((opt = getopt(argc, argv, "+e:h")) != -1) {
		if (opt == 'e')
			events = optarg;
		else
			usage();
	}
	if (optind >= argc)
		usage();
	if (pmuvirt_user_parse_events(events, &ctl)) {
		fprintf(stderr, "pmuvirt-stat: bad event list '%s'\n", events);
		return 2;
	}
	{
		const char *p = events;

		for (i = 0; i < ctl.nr_counters; i++) {
			size_t len = strcspn(p, ",");

			snprintf(evname[i], sizeof(evname[i]), "%.*s", (int)len, p);
			p += len + (p[len] == ',');
		}
	}
	fd = pmuvirt_user_open(0);
	if (fd < 0) {
		perror("pmuvirt-stat: " PMUVIRT_DEVICE);
		return 1;
	}
	supported = probe_supported(fd, &ctl);
	use = ctl;
	use.nr_counters = 0;
	for (i = 0; i < ctl.nr_counters; i++)
		if (supported & (1u << i))
			use.counter[use.nr_counters++] = ctl.counter[i];

	child = fork();
	if (child < 0) {
		perror("pmuvirt-stat: fork");
		return 1;
	}
	if (!child) {
		struct pmuvirt_user u;

		if (pmuvirt_user_attach(&u, fd, &use,
					PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_INHERIT, 0)) {
			perror("pmuvirt-stat: attach");
			_exit(127);
		}
		close(fd);
		execvp(argv[optind], argv + optind);
		perror("pmuvirt-stat: exec");
		_exit(127);
	}
	if (waitpid(child, &status, 0) < 0) {
		perror("pmuvirt-stat: waitpid");
		return 1;
	}

	/*
	 * A thread's report is queued just after its last switch; threads
	 * the command left running (daemons) report when they end, so wait
	 * for them only a while.
	 */
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;

		if (poll(&pfd, 1, 5000) <= 0)
			break;
		if (nreports == cap) {
			cap = cap ? 2 * cap : 64;
			reps = realloc(reps, cap * sizeof(*reps));
			if (!reps) {
				perror("pmuvirt-stat");
				return 1;
			}
		}
		got = read(fd, &reps[nreports], sizeof(*reps));
		if (got == 0) {
			complete = 1;
			break;
		}
		if (got != (ssize_t)sizeof(*reps))
			break;
		nreports++;
	}
	if (nreports)
		qsort(reps, nreports, sizeof(*reps), by_pid_tid);

	printf("\n Performance counter stats for '");
	for (i = optind; i < (unsigned int)argc; i++)
		printf("%s%s", i > (unsigned int)optind ? " " : "", argv[i]);
	printf("' (per thread):\n\n");
	for (r = 0; r < nreports; r++) {
		const struct pmuvirt_report *rep = &reps[r];
		char who[40];

		snprintf(who, sizeof(who), "%.16s-%u", rep->comm, rep->tid);
		for (i = 0, k = 0; i < ctl.nr_counters; i++) {
			printf("%24s ", who);
			if (supported & (1u << i))
				print_count(rep->value[k++]);
			else
				printf("%20s", "<not supported>");
			printf("      %s%s\n", evname[i],
			       rep->flags & PMUVIRT_COUNTS_FAULTED ? " (faulted)" : "");
		}
	}
	if (nreports && !complete)
		fprintf(stderr, "pmuvirt-stat: threads of the command still run; their counts are not shown\n");
	if (!nreports)
		fprintf(stderr, "pmuvirt-stat: no report from the kernel\n");
	printf("\n");
	free(reps);
	close(fd);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
