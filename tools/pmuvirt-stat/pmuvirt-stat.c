// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-stat: run a command and print its virtual counts per thread,
 * like "perf stat --per-thread", from pmuvirt.ko.
 *
 * The command's main thread is attached before exec; threads it creates
 * start without counters (pmuvirt.ko does not inherit contexts).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
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
	unsigned int i, k, nreports = 0;
	int fd, opt, status;
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

		if (pmuvirt_user_attach(&u, fd, &use, PMUVIRT_ATTACH_REPORT, 0)) {
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

	printf("\n Performance counter stats for '");
	for (i = optind; i < (unsigned int)argc; i++)
		printf("%s%s", i > (unsigned int)optind ? " " : "", argv[i]);
	printf("' (per thread):\n\n");
	/* a report is queued just after the thread's last switch */
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct pmuvirt_report rep;
		char who[40];

		if (poll(&pfd, 1, nreports ? 100 : 3000) <= 0)
			break;
		if (read(fd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			break;
		nreports++;
		snprintf(who, sizeof(who), "%.16s-%u", rep.comm, rep.tid);
		for (i = 0, k = 0; i < ctl.nr_counters; i++) {
			printf("%24s ", who);
			if (supported & (1u << i))
				print_count(rep.value[k++]);
			else
				printf("%20s", "<not supported>");
			printf("      %s\n", evname[i]);
		}
	}
	if (!nreports)
		fprintf(stderr, "pmuvirt-stat: no report from the kernel\n");
	printf("\n");
	close(fd);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
