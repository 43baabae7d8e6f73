// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* vmtest: contexts across fork, threads, exec and exit, and between processes. */
#include "vmtest.h"

/* ---- fork: the child starts clean; its own context reports on exit ---- */

void t_fork(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	struct pmuvirt_report rep;
	struct pollfd pfd;
	uint64_t v;
	pid_t pid;
	int fd = pmuvirt_user_open(0), status;

	work_control(&ctl);
	CHECK(fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0), "attach: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		struct pmuvirt_user cu;
		int ret = pmuvirt_user_read_ioctl(&u, &v);

		/* the mapping of the parent's record is not inherited either */
		if (ret == 0 || errno != ESRCH)
			_exit(10);
		if (pmuvirt_user_attach(&cu, fd, &ctl, PMUVIRT_ATTACH_REPORT, 0))
			_exit(11);
		spin(LOOPS);
		_exit(0);	/* exits attached */
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	pfd.fd = fd;
	pfd.events = POLLIN;
	memset(&rep, 0, sizeof(rep));
	CHECK(poll(&pfd, 1, 5000) == 1, "no exit report");
	CHECK(read(fd, &rep, sizeof(rep)) == sizeof(rep), "report read: %s", strerror(errno));
	if (by_schedstat)
		printf("vm: fork: child %d reported tid %u how %u: virtual TSC %llu\n", pid,
		       rep.tid, rep.how, (unsigned long long)rep.value[0]);
	else
		printf("vm: fork: child %d reported tid %u how %u: virtual TSC %llu for %llu of own work (error %.3f%%)\n",
		       pid, rep.tid, rep.how, (unsigned long long)rep.value[0],
		       (unsigned long long)(2 * LOOPS),
		       100.0 * rel_err((double)rep.value[0], 2.0 * LOOPS));
	CHECK(rep.tid == (uint32_t)pid && rep.how == PMUVIRT_REPORT_EXIT, "wrong report");
	/* the child's count also includes its exit path up to its first switch-out */
	CHECK(by_schedstat ? rep.value[0] > 2 * LOOPS / 2 :
			     rel_err((double)rep.value[0], 2.0 * LOOPS) < MAX_ERR, "child count off");
	CHECK(!pmuvirt_user_read(&u, &v) && v > 0, "parent lost its context");
	CHECK(!pmuvirt_user_detach(&u, NULL), "parent detach: %s", strerror(errno));
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- inherit: new threads and processes get contexts of their own ---- */

static void *no_ctx_fn(void *arg)
{
	struct pmuvirt_user u;
	int fd = *(int *)arg;

	/* 0: the thread has no context, as it should */
	return (void *)(long)(pmuvirt_user_adopt(&u, fd) == 0 || errno != ESRCH);
}

/* The TSC just before the last fork() of this process's parent. */
static uint64_t fork_tsc;

/* A child process that counts its own work and forks a grandchild. */
static int inherit_child(int fd, int depth)
{
	struct pmuvirt_user u;
	uint64_t v0, v1;
	pid_t pid = -1;
	int status = 0;

	if (pmuvirt_user_adopt(&u, fd) || pmuvirt_user_read(&u, &v0))
		return 40;
	/*
	 * From zero, not from the parent's count: at most the time since the
	 * fork (under any load), and little of it under icount.
	 */
	if (v0 > rd_tsc() - fork_tsc || (!by_schedstat && v0 > LOOPS / 10))
		return 41;
	if (depth < 2) {
		fork_tsc = rd_tsc();
		pid = fork();
		if (!pid)
			_exit(inherit_child(fd, depth + 1));
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 42;
		if (pmuvirt_user_read(&u, &v0))
			return 43;
	}
	spin(LOOPS / 2);
	if (pmuvirt_user_read(&u, &v1))
		return 44;
	/* the grandchild's work is not in the child's count */
	if (!by_schedstat && rel_err((double)(v1 - v0), (double)LOOPS) > MAX_ERR)
		return 45;
	return 0;		/* exits attached: reports to the parent's file */
}

void t_inherit(void)
{
	struct pmuvirt_report reps[16];
	struct worker w[NR_THREADS];
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	unsigned int nrep = 0, j;
	pthread_t th;
	void *ret;
	pid_t pid;
	int fd = pmuvirt_user_open(0), status, i, seen_child = 0;
	ssize_t got = -1;

	work_control(&ctl);
	/* without the flag a new thread has no context */
	CHECK(fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0), "attach: %s", strerror(errno));
	pthread_create(&th, NULL, no_ctx_fn, &fd);
	pthread_join(th, &ret);
	CHECK(!ret, "a thread of a non-inheriting thread has a context");
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));

	CHECK(!pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_INHERIT, 0),
	      "attach with inherit: %s", strerror(errno));
	memset(w, 0, sizeof(w));
	for (i = 0; i < NR_THREADS; i++) {
		w[i].cpu_a = w[i].cpu_b = 0;
		w[i].loops = LOOPS / 2;
		w[i].inherited = 1;
	}
	run_threads(worker_fn, w, sizeof(w[0]), NR_THREADS);
	for (i = 0; i < NR_THREADS; i++)
		report("inherit", i, &w[i], NR_THREADS);
	smp_disjoint("inherit", w, NR_THREADS);

	/* the parent's own count grows past what the child may show */
	spin(LOOPS / 2);
	fork_tsc = rd_tsc();
	pid = fork();
	if (!pid)
		_exit(inherit_child(fd, 1));
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));

	/* reports: three threads, child, grandchild, the parent's detach; then EOF */
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 5000) != 1 || nrep == 16)
			break;
		got = read(fd, &reps[nrep], sizeof(reps[0]));
		if (got != (ssize_t)sizeof(reps[0]))
			break;
		nrep++;
	}
	CHECK(got == 0, "no end of file after %u reports (read gave %zd)", nrep, got);
	CHECK(nrep == NR_THREADS + 3, "%u reports, want %d", nrep, NR_THREADS + 3);
	for (j = 0; j < nrep; j++) {
		const struct pmuvirt_report *r = &reps[j];
		int known = r->tid == (uint32_t)getpid() && r->how == PMUVIRT_REPORT_DETACH;

		for (i = 0; i < NR_THREADS; i++)
			if (r->tid == w[i].tid) {
				known = r->how == PMUVIRT_REPORT_EXIT && r->value[0] >= w[i].virt;
				CHECK(by_schedstat ||
				      rel_err((double)r->value[0], (double)LOOPS) < MAX_ERR,
				      "thread %u reported %llu", r->tid,
				      (unsigned long long)r->value[0]);
			}
		if (r->pid != (uint32_t)getpid()) {
			/* the child and the grandchild: both did LOOPS of own work */
			known = r->how == PMUVIRT_REPORT_EXIT;
			seen_child += r->tid == (uint32_t)pid;
			CHECK(by_schedstat || rel_err((double)r->value[0], (double)LOOPS) < MAX_ERR,
			      "process %u reported %llu", r->pid, (unsigned long long)r->value[0]);
		}
		printf("vm: inherit: report tid %u pid %u how %u: virtual TSC %llu\n", r->tid,
		       r->pid, r->how, (unsigned long long)r->value[0]);
		CHECK(known, "unexpected report tid %u how %u", r->tid, r->how);
	}
	CHECK(seen_child == 1, "no report of the child process");
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- sum: summed inheritance (PMUVIRT_ATTACH_SUM) ---- */

/*
 * A process that counts for a summing attacher: at depth 1 it forks a
 * child of its own and waits for it; then LOOPS of its own work.  The
 * deepest one detaches itself (its count is summed at the detach), the
 * other exits attached (summed at its exit).  Each writes its last own
 * count to @out; its final count is at least that.
 */
static int sum_child(int fd, int out, int depth)
{
	struct pmuvirt_user u;
	uint64_t v;
	pid_t pid;
	int status;

	if (pmuvirt_user_adopt(&u, fd))
		return 50;
	if (depth < 2) {
		pid = fork();
		if (!pid)
			_exit(sum_child(fd, out, depth + 1));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 51;
	}
	spin(LOOPS / 2);
	if (depth == 2 ? pmuvirt_user_detach(&u, &v) : pmuvirt_user_read(&u, &v))
		return 52;
	if (write(out, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 53;
	return 0;
}

/*
 * Attach with @flags, run a child and a grandchild (LOOPS of work each),
 * wait for the child and read at once.  Returns the read ioctl's value less
 * the thread's own count (its mapped record); @ended: the sum of the two
 * processes' last own counts.
 */
static uint64_t sum_round(int fd, uint32_t flags, uint64_t *ended)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t own = 0, total = 0, fin = 0, v;
	int p[2], status, n = 0;
	pid_t pid;

	*ended = 0;
	work_control(&ctl);
	if (pmuvirt_user_attach(&u, fd, &ctl, flags, 0)) {
		CHECK(0, "attach %#x: %s", flags, strerror(errno));
		return 0;
	}
	CHECK(!pipe(p), "pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		close(p[0]);
		_exit(sum_child(fd, p[1], 1));
	}
	close(p[1]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "child status %#x", status);
	/* right after the wait: no sleep, no retry */
	CHECK(!pmuvirt_user_read(&u, &own), "read: %s", strerror(errno));
	CHECK(!pmuvirt_user_read_ioctl(&u, &total), "read ioctl: %s", strerror(errno));
	while (read(p[0], &v, sizeof(v)) == (ssize_t)sizeof(v)) {
		*ended += v;
		n++;
	}
	close(p[0]);
	CHECK(n == 2, "%d processes reported their counts", n);
	CHECK(!pmuvirt_user_detach(&u, &fin), "detach: %s", strerror(errno));
	CHECK(fin >= total, "detach %llu below the last read %llu", (unsigned long long)fin,
	      (unsigned long long)total);
	printf("vm: sum: flags %#x: own %llu, read ioctl %llu, detach %llu, the processes' last own counts %llu\n",
	       flags, (unsigned long long)own, (unsigned long long)total, (unsigned long long)fin,
	       (unsigned long long)*ended);
	return total - own;
}

void t_sum(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t ended, sum;
	int fd = pmuvirt_user_open(0);

	CHECK(fd >= 0, "open %s: %s", PMUVIRT_DEVICE, strerror(errno));
	work_control(&ctl);
	/* nothing to sum without inheritance */
	errno = 0;
	CHECK(pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_SUM, 0) && errno == EINVAL,
	      "PMUVIRT_ATTACH_SUM without PMUVIRT_ATTACH_INHERIT: %s", strerror(errno));

	sum = sum_round(fd, PMUVIRT_ATTACH_INHERIT | PMUVIRT_ATTACH_SUM, &ended);
	/* each final count is at least the last one the process read, under any load */
	CHECK(sum >= ended, "sum %llu below the processes' own counts %llu",
	      (unsigned long long)sum, (unsigned long long)ended);
	CHECK(by_schedstat || rel_err((double)sum, 2.0 * LOOPS) < MAX_ERR,
	      "sum %llu for two processes of %llu each", (unsigned long long)sum,
	      (unsigned long long)LOOPS);

	/* inheritance alone: each count is its own, the attacher's holds none of theirs */
	sum = sum_round(fd, PMUVIRT_ATTACH_INHERIT, &ended);
	CHECK(by_schedstat ? sum < ended : sum < LOOPS / 10,
	      "without PMUVIRT_ATTACH_SUM the attacher's read has %llu more than its record",
	      (unsigned long long)sum);
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/*
 * ---- isolation (emulated PMU): another process's events never show ----
 *
 * The observer reads its own record in a loop while something else shares
 * CPU 0.  At each switch-out the record's count grows by raw_out - start,
 * so raw_out = start_prev + (count_new - count_prev); at the next switch-in
 * start = the raw value then.  raw_in - raw_out would be the events of
 * whatever ran in between.  After another process ran, the counters must
 * have been re-based to half a range below the threshold (x86: 0), so
 * raw_in is that constant; after a thread of the same process, nothing is
 * written and raw_in - raw_out is the sibling's work.  When nothing else
 * counted in between (idle, an unattached kernel thread), raw_in - raw_out
 * is the observer's own switch-in path between re-enabling the counters and
 * sampling them: a few thousand events, where any other spinner's slice is
 * at least a scheduler tick (a million events under icount).
 */
#define ISO_OWN_PATH	100000ull

struct iso_result {
	unsigned int switches, rebased, own, carried;
	uint64_t own_max, carried_max;
};

static void iso_observe(const struct pmuvirt_user *u, uint64_t iterations, struct iso_result *r)
{
	const volatile struct pmuvirt_shared_ctx *rec = u->rec;
	const uint64_t width = rec->counter[0].width;
	const uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
	const uint64_t rebase = (0 - (1ull << (width - 1))) & mask;
	uint64_t count_p = 0, start_p = 0, n;
	int have = 0;

	memset(r, 0, sizeof(*r));
	for (n = 0; n < iterations; n++) {
		uint32_t seq = rec->seq;
		uint64_t count, start, raw_out;

		__sync_synchronize();
		count = rec->counter[0].count;
		start = rec->counter[0].start;
		__sync_synchronize();
		if ((seq & 1) || rec->seq != seq)
			continue;
		if (have && (count != count_p || start != start_p)) {
			raw_out = (start_p + (count - count_p)) & mask;
			r->switches++;
			uint64_t moved = (start - raw_out) & mask;

			if (start == rebase) {
				r->rebased++;
			} else if (moved < ISO_OWN_PATH) {
				r->own++;
				r->own_max = moved > r->own_max ? moved : r->own_max;
			} else {
				r->carried++;
				r->carried_max = moved > r->carried_max ? moved : r->carried_max;
			}
		}
		count_p = count;
		start_p = start;
		have = 1;
	}
}

/* The observer's and its neighbours' counter: instructions, user and kernel. */
static void iso_control(struct pmuvirt_control *ctl)
{
	work_control(ctl);
	ctl->counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl->counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
}

static void *iso_sibling_fn(void *arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int fd = pmuvirt_user_open(1);

	pin(0);
	iso_control(&ctl);
	if (fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0)) {
		spin(*(uint64_t *)arg);
		pmuvirt_user_detach(&u, NULL);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

void t_isolation(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	struct iso_result other, same;
	uint64_t work = 4 * LOOPS;
	pthread_t th;
	pid_t pid;
	int fd = pmuvirt_user_open(1), status;

	pin(0);
	iso_control(&ctl);
	CHECK(fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0), "attach: %s", strerror(errno));
	if (failed)
		return;

	/* another process with the same control spins on CPU 0 */
	pid = fork();
	if (!pid) {
		iso_sibling_fn(&work);
		_exit(0);
	}
	iso_observe(&u, LOOPS / 2, &other);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	/* a thread of this process does the same */
	pthread_create(&th, NULL, iso_sibling_fn, &work);
	iso_observe(&u, LOOPS / 2, &same);
	pthread_join(th, NULL);

	printf("vm: isolation: next to another process: %u switch-ins, %u re-based, %u after no other count (own path up to %llu events), %u carried other events (up to %llu)\n",
	       other.switches, other.rebased, other.own, (unsigned long long)other.own_max,
	       other.carried, (unsigned long long)other.carried_max);
	printf("vm: isolation: next to a thread of the same process: %u switch-ins, %u re-based, %u after no other count, %u carried its sibling's events (up to %llu)\n",
	       same.switches, same.rebased, same.own, same.carried,
	       (unsigned long long)same.carried_max);
	CHECK(other.rebased >= 3, "the counters were not re-based after another process ran");
	CHECK(other.carried == 0, "%u switch-ins showed another process's events", other.carried);
	CHECK(same.carried >= 3 && same.rebased == 0,
	      "threads of one process: the switch wrote the counters");
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- exec: the context stays with the thread across exec ---- */

void t_exec(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	pid_t pid;
	int status;

	pid = fork();
	if (!pid) {
		int fd = pmuvirt_user_open(1);

		work_control(&ctl);
		if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, 0))
			_exit(20);
		spin(LOOPS / 4);
		execl(self, self, "exec-child", (char *)NULL);
		_exit(21);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exec child status %#x", status);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

int exec_child(void)
{
	struct pmuvirt_user u;
	uint64_t v0 = 0, v1 = 0;
	int fd = pmuvirt_user_open(1);

	memset(&u, 0, sizeof(u));
	u.fd = fd;
	u.nr_counters = 1;
	if (fd < 0 || pmuvirt_user_read_ioctl(&u, &v0))
		return 30;
	u.rec = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (u.rec == MAP_FAILED)
		return 31;
	u.caps = WORK_CAPS;
	spin(LOOPS / 4);
	if (pmuvirt_user_read(&u, &v1) || !u.direct_reads)
		return 32;
	printf("vm: exec: count before exec's own work %llu, after %llu more (want about %llu)\n",
	       (unsigned long long)v0, (unsigned long long)(v1 - v0),
	       (unsigned long long)(LOOPS / 2));
	if (v0 < LOOPS / 2 || rel_err((double)(v1 - v0), LOOPS / 2.0) > MAX_ERR)
		return 33;
	return pmuvirt_user_detach(&u, NULL) ? 34 : 0;
}

/* ---- hold: threads stay attached until killed (for the unload check) ---- */

static void *hold_fn(void *arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int fd = pmuvirt_user_open(1);

	work_control(&ctl);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, 0))
		printf("vm: hold: attach failed: %s\n", strerror(errno));
	for (;;)
		usleep(1000 + (unsigned int)(long)arg);
	return NULL;
}

void t_hold(void)
{
	pthread_t th[2];

	pthread_create(&th[0], NULL, hold_fn, (void *)1L);
	pthread_create(&th[1], NULL, hold_fn, (void *)2L);
	hold_fn((void *)3L);
}

/*
 * ---- reap: once wait() has returned for every process that used the
 * module, nothing holds it: an rmmod right then succeeds ----
 */

#define REAP_ROUNDS	40

static int module_refcnt(void)
{
	return (int)read_number("/sys/module/pmuvirt/refcnt");
}

static void *reap_fn(void *arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;

	work_control(&ctl);
	if (pmuvirt_user_attach(&u, *(int *)arg, &ctl, 0, 0))
		return (void *)1L;
	spin(100000);
	return NULL;	/* exits attached */
}

/* A process whose three threads attach and exit attached, two of them before it. */
static int reap_child(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	pthread_t th[2];
	void *r[2] = { (void *)1L, (void *)1L };
	int fd = pmuvirt_user_open(1), i;

	work_control(&ctl);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_REPORT, 0))
		return 20;
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, reap_fn, &fd))
			return 21;
	spin(100000);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], &r[i]);
	return r[0] || r[1] ? 22 : 0;
}

void t_reap(void)
{
	int base = module_refcnt(), held = 0, most = 0, status, i, n;
	pid_t pid;

	CHECK(base >= 0, "no /sys/module/pmuvirt/refcnt");
	for (i = 0; i < REAP_ROUNDS; i++) {
		pid = fork();
		if (!pid)
			_exit(reap_child());
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0, "round %d: child status %#x", i, status);
		n = module_refcnt();	/* at once: no sleep, no retry */
		if (n != base) {
			held++;
			most = n - base > most ? n - base : most;
		}
	}
	printf("vm: reap: %d rounds of a process with three attached threads; module references left right after wait(): %d rounds (at most %d)\n",
	       REAP_ROUNDS, held, most);
	CHECK(!held, "the module was still referenced after wait() in %d of %d rounds", held,
	      REAP_ROUNDS);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}
