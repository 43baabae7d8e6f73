// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* vmtest: IP sampling into per-thread rings (x86, emulated PMU). */
#include "vmtest.h"

#ifdef __x86_64__
/* ---- sample (emulated PMU): IP sampling per thread, a known 3:1 split ---- */

/*
 * Four spin loops, each its own code range: thread 0 spends 3/4 of its
 * instructions in A and 1/4 in B, thread 1 likewise in C and D.
 */
#define SPIN_FN(name)								\
	__asm__(".text\n.globl " #name "\n.type " #name ", @function\n"		\
		#name ":\n1: dec %rdi\n\tjnz 1b\n\tret\n"			\
		".globl " #name "_end\n" #name "_end:\n.size " #name ", . - " #name "\n")
SPIN_FN(spin_a);
SPIN_FN(spin_b);
SPIN_FN(spin_c);
SPIN_FN(spin_d);
extern void spin_a(uint64_t), spin_b(uint64_t), spin_c(uint64_t), spin_d(uint64_t);
extern const char spin_a_end[], spin_b_end[], spin_c_end[], spin_d_end[];

#define SAMPLE_PERIOD	20000	/* 50000 PMIs per second under icount: below max_pmi_rate */
#define SAMPLE_PAGES	64
#define SAMPLE_ROUNDS	50
#define SAMPLE_K	1000000ull	/* B's iterations per round; A's are 3 * K */

#define SKIDS		65536

struct sample_worker {
	pthread_t th;
	int idx;
	uint32_t tid;
	uint64_t hits[2], hit_weight, other, foreign, wrong_tid, kernel, wrong_mode, records, lost,
		 weight, late;
	uint64_t skid[SKIDS];	/* events past the first boundary crossed, at the PMI */
	unsigned int nr_skid;
	int err;
	const char *what;
};

static int in_fn(uint64_t ip, void (*fn)(uint64_t), const char *end)
{
	return ip >= (uint64_t)(uintptr_t)fn && ip < (uint64_t)(uintptr_t)end;
}

static void sample_account(struct sample_worker *w, const struct pmuvirt_sample *s)
{
	void (*mine[2])(uint64_t) = { w->idx ? spin_c : spin_a, w->idx ? spin_d : spin_b };
	const char *mine_end[2] = { w->idx ? spin_c_end : spin_a_end,
				    w->idx ? spin_d_end : spin_b_end };
	void (*theirs[2])(uint64_t) = { w->idx ? spin_a : spin_c, w->idx ? spin_b : spin_d };
	const char *theirs_end[2] = { w->idx ? spin_a_end : spin_c_end,
				      w->idx ? spin_b_end : spin_d_end };

	w->records++;
	w->weight += s->weight;
	if (s->weight > 1)
		w->late++;
	if ((s->flags & PMUVIRT_SAMPLE_VALUES) && s->nr_values && w->nr_skid < SKIDS)
		w->skid[w->nr_skid++] = s->value[0] % SAMPLE_PERIOD +
					(uint64_t)(s->weight - 1) * SAMPLE_PERIOD;
	if (s->tid != w->tid)
		w->wrong_tid++;
	if (!(s->flags & PMUVIRT_SAMPLE_USER))
		w->kernel++;
	/* x86-64: user addresses below 2^47, the kernel's from 0xffff8000'00000000 */
	if (!(s->flags & PMUVIRT_SAMPLE_USER) != (s->ip >= 0xffff800000000000ull))
		w->wrong_mode++;
	if (in_fn(s->ip, mine[0], mine_end[0]))
		w->hits[0]++;
	else if (in_fn(s->ip, mine[1], mine_end[1]))
		w->hits[1]++;
	if (in_fn(s->ip, mine[0], mine_end[0]) || in_fn(s->ip, mine[1], mine_end[1]))
		w->hit_weight += s->weight;
	else if (in_fn(s->ip, theirs[0], theirs_end[0]) || in_fn(s->ip, theirs[1], theirs_end[1]))
		w->foreign++;
	else
		w->other++;
}

/* Take every record there is and give the room back. */
static int sample_drain(struct sample_worker *w, struct pmuvirt_sample_reader *r, int fd,
			int publish)
{
	static __thread struct pmuvirt_sample out[64];
	int n, i;

	while ((n = pmuvirt_sample_read(r, out, 64)) > 0)
		for (i = 0; i < n; i++)
			sample_account(w, &out[i]);
	if (n < 0)
		return n;
	if (!publish)
		return 0;
	return pmuvirt_user_sample_tail(fd, r) ? -errno : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sample_control(struct pmuvirt_attach *a, uint32_t pages)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->version = PMUVIRT_LINUX_VERSION;
	a->sample_pages = pages;
	a->control.version = PMUVIRT_ABI_VERSION;
	a->control.nr_counters = 2;
	a->control.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	a->control.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_SAMPLE |
				      PMUVIRT_CTR_SAMPLE_VALUES;
	a->control.counter[0].period = SAMPLE_PERIOD;
	a->control.counter[1].event = PMUVIRT_EV_TSC;
}

static void *sample_fn(void *arg)
{
	struct sample_worker *w = arg;
	size_t len = (size_t)SAMPLE_PAGES * 4096;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_counts c;
	struct pmuvirt_attach a;
	void *ring;
	int fd, round, ret;

	pin(0);
	w->tid = (uint32_t)syscall(SYS_gettid);
	fd = pmuvirt_user_open(1);
	sample_control(&a, SAMPLE_PAGES);
	if (fd < 0 || ioctl(fd, PMUVIRT_IOC_ATTACH, &a)) {
		w->err = errno;
		w->what = "attach";
		pthread_barrier_wait(&start_barrier);
		return NULL;
	}
	ring = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	if (ring == MAP_FAILED || pmuvirt_sample_reader_init(&r, ring, len)) {
		w->err = ring == MAP_FAILED ? errno : EPROTO;
		w->what = "map";
	}
	pthread_barrier_wait(&start_barrier);
	for (round = 0; !w->err && round < SAMPLE_ROUNDS; round++) {
		if (w->idx) {
			spin_c(3 * SAMPLE_K);
			spin_d(SAMPLE_K);
		} else {
			spin_a(3 * SAMPLE_K);
			spin_b(SAMPLE_K);
		}
		ret = sample_drain(w, &r, fd, 1);
		if (ret) {
			w->err = -ret;
			w->what = "drain";
		}
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	if (ioctl(fd, PMUVIRT_IOC_DETACH, &c) && !w->err) {
		w->err = errno;
		w->what = "detach";
	}
	/* the mapping outlives the context: the last records are still there */
	if (!w->err && sample_drain(w, &r, fd, 0) == 0)
		w->lost = pmuvirt_sample_lost(&r);
	if (ring != MAP_FAILED)
		munmap(ring, len);
	close(fd);
	return NULL;
}

/*
 * A recorder's rings (PMUVIRT_ATTACH_SAMPLE_FILE): refused without REPORT,
 * with an overflow signal or without a sampling counter; the thread's own
 * ring comes out of the file once, as a descriptor that maps it read-only
 * and whole, takes its tail, and outlives the context.
 */
static void sample_file_checks(int fd)
{
	struct pmuvirt_sample_open o;
	struct pmuvirt_sample_tail t;
	struct pmuvirt_attach a;
	struct pmuvirt_counts c;
	void *p;

	sample_control(&a, 4);
	a.flags = PMUVIRT_ATTACH_SAMPLE_FILE;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE_FILE without REPORT");
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	a.signo = SIGUSR1;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE_FILE with a signal");
	sample_control(&a, 0);
	a.control.counter[0].flags &= ~PMUVIRT_CTR_SAMPLE;
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL,
	      "SAMPLE_FILE without a sampling counter");
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.version = PMUVIRT_LINUX_VERSION;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o) && errno == EAGAIN, "a ring out of an empty file");
	o.reserved[1] = 1;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o) && errno == EINVAL, "SAMPLE_OPEN reserved field");
	o.reserved[1] = 0;

	sample_control(&a, 4);
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	CHECK(!ioctl(fd, PMUVIRT_IOC_ATTACH, &a), "attach with SAMPLE_FILE: %s", strerror(errno));
	CHECK(!ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o), "SAMPLE_OPEN: %s", strerror(errno));
	CHECK(o.tid == (uint32_t)syscall(SYS_gettid) && o.pid == (uint32_t)getpid() && o.pages == 4 &&
	      o.fd >= 0 && !o.dropped, "SAMPLE_OPEN: tid %u pid %u pages %u fd %d dropped %u", o.tid,
	      o.pid, o.pages, o.fd, o.dropped);
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o) && errno == EAGAIN, "the ring came out twice");
	CHECK(fcntl(o.fd, F_GETFD) & FD_CLOEXEC, "ring descriptor without close-on-exec");
	/* a read-only descriptor: the kernel refuses a writable shared mapping itself */
	p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, o.fd, 0);
	CHECK(p == MAP_FAILED && errno == EACCES, "writable mapping of a ring descriptor");
	p = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, o.fd, 0);
	CHECK(p == MAP_FAILED && errno == EINVAL, "ring descriptor mapped in part");
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, o.fd, 4096);
	CHECK(p == MAP_FAILED && errno == EINVAL, "ring descriptor mapped at an offset");
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, o.fd, 0);
	CHECK(p != MAP_FAILED, "ring descriptor mapping: %s", strerror(errno));
	if (p != MAP_FAILED)
		CHECK(mprotect(p, 4096, PROT_READ | PROT_WRITE) && errno == EACCES,
		      "ring descriptor mapping made writable");
	CHECK(ioctl(o.fd, PMUVIRT_IOC_READ, &c) && errno == ENOTTY, "READ on a ring descriptor");
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.version = PMUVIRT_LINUX_VERSION;
	t.tail = (p != MAP_FAILED ? ((const struct pmuvirt_sample_ring *)p)->head : 0) + 0x10000;
	CHECK(ioctl(o.fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == EINVAL,
	      "ring descriptor: tail ahead of head");
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	CHECK(!ioctl(fd, PMUVIRT_IOC_DETACH, &c), "detach: %s", strerror(errno));
	/* the descriptor keeps the ring after its context is gone */
	t.tail = p != MAP_FAILED ? ((const struct pmuvirt_sample_ring *)p)->head : 0;
	CHECK(!ioctl(o.fd, PMUVIRT_IOC_SAMPLE_TAIL, &t), "ring descriptor after detach: %s",
	      strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, 4 * 4096);
	close(o.fd);
}

void t_sample(void)
{
	static struct sample_worker w[2];
	struct pmuvirt_sample_tail t;
	struct pmuvirt_attach a;
	struct pmuvirt_counts c;
	void *p;
	int fd, i;

	/* the overflow signal (SIGIO, once until a resume) is not what this is about */
	signal(SIGIO, SIG_IGN);
	/* refused: a sampling counter without a ring, a ring without one, a bad size */
	fd = pmuvirt_user_open(1);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	sample_control(&a, 0);
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE without sample_pages");
	sample_control(&a, 3);
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "sample_pages 3");
	sample_control(&a, 512);
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "sample_pages 512");
	sample_control(&a, 4);
	a.control.counter[0].flags &= ~PMUVIRT_CTR_SAMPLE;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "sample_pages without SAMPLE");
	sample_control(&a, 4);
	a.control.counter[0].period = 0;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE on an a-mode counter");
	/* a ring: mapped read-only, whole, and the tail checked */
	sample_control(&a, 4);
	CHECK(!ioctl(fd, PMUVIRT_IOC_ATTACH, &a), "attach with a ring: %s", strerror(errno));
	p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	CHECK(p == MAP_FAILED && errno == EPERM, "writable ring mapping");
	p = mmap(NULL, 8 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	CHECK(p == MAP_FAILED && errno == EINVAL, "ring mapping of the wrong size");
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	CHECK(p != MAP_FAILED, "ring mapping: %s", strerror(errno));
	if (p != MAP_FAILED) {
		CHECK(mprotect(p, 4096, PROT_READ | PROT_WRITE) && errno == EACCES,
		      "ring mapping made writable");
		const struct pmuvirt_sample_ring *h = p;

		/* the default format: IP, time, mode and a value slot per counter (2) */
		CHECK(h->format == PMUVIRT_SAMPLE_FMT_DEFAULT && h->nr_values == 2 &&
		      h->chain_depth == 0 && h->record_size == 56,
		      "the default record format: %#x, %u values, depth %u, %u bytes",
		      h->format, h->nr_values, h->chain_depth, h->record_size);
		CHECK(h->nr_records == 128, "a 4-page ring holds %u records of 56 bytes",
		      h->nr_records);
	}
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.version = PMUVIRT_LINUX_VERSION;
	/* far enough ahead that records written meanwhile cannot reach it */
	t.tail = (p != MAP_FAILED ? ((const struct pmuvirt_sample_ring *)p)->head : 0) + 0x10000;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == EINVAL, "tail ahead of head");
	t.tail -= 0x10000;
	t.reserved = 1;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == EINVAL, "reserved field");
	t.reserved = 0;
	CHECK(!ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t), "tail at head: %s", strerror(errno));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	CHECK(!ioctl(fd, PMUVIRT_IOC_DETACH, &c), "detach: %s", strerror(errno));
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == ESRCH, "tail without a context");
	if (p != MAP_FAILED)
		munmap(p, 4 * 4096);
	sample_file_checks(fd);
	close(fd);

	/* two threads on one CPU, each with its own ring */
	memset(w, 0, sizeof(w));
	for (i = 0; i < 2; i++)
		w[i].idx = i;
	run_threads(sample_fn, w, sizeof(w[0]), 2);
	for (i = 0; i < 2; i++) {
		double ratio = w[i].hits[1] ? (double)w[i].hits[0] / (double)w[i].hits[1] : 0;
		uint64_t want = SAMPLE_ROUNDS * 8 * SAMPLE_K / SAMPLE_PERIOD;

		printf("vm: sample thread %d: %llu records (weight %llu; the loops are %llu periods), %s %llu, %s %llu: ratio %.4f (error %.2f%% of 3:1), elsewhere %llu, other thread's code %llu, wrong tid %llu, kernel %llu, lost %llu\n",
		       i, (unsigned long long)w[i].records, (unsigned long long)w[i].weight,
		       (unsigned long long)want, i ? "C" : "A", (unsigned long long)w[i].hits[0],
		       i ? "D" : "B", (unsigned long long)w[i].hits[1], ratio,
		       100.0 * rel_err(ratio, 3.0), (unsigned long long)w[i].other,
		       (unsigned long long)w[i].foreign, (unsigned long long)w[i].wrong_tid,
		       (unsigned long long)w[i].kernel, (unsigned long long)w[i].lost);
		CHECK(!w[i].err, "thread %d: %s: %s", i, w[i].what, strerror(w[i].err));
		CHECK(rel_err(ratio, 3.0) < 0.03, "thread %d: ratio %.4f not within 3%% of 3", i,
		      ratio);
		CHECK(!w[i].foreign && !w[i].wrong_tid, "thread %d: records of the other thread", i);
		/* the drain's ioctls and interrupts: some PMIs come in the kernel, and say so */
		CHECK(w[i].kernel && !w[i].wrong_mode,
		      "thread %d: %llu kernel records, %llu with the wrong mode for their IP", i,
		      (unsigned long long)w[i].kernel, (unsigned long long)w[i].wrong_mode);
		CHECK(!w[i].lost, "thread %d: %llu records lost", i, (unsigned long long)w[i].lost);
		/*
		 * How far past the overflow the PMI read the counters: the
		 * sampling counter's value in the record, past the first
		 * period boundary the record stands for (docs/sampling.md).
		 */
		qsort(w[i].skid, w[i].nr_skid, sizeof(w[i].skid[0]), cmp_u64);
		if (w[i].nr_skid)
			printf("vm: sample thread %d: at the PMI, events past the overflow: median %llu, 90th percentile %llu, max %llu (%u records); %llu records of weight above 1\n",
			       i, (unsigned long long)w[i].skid[w[i].nr_skid / 2],
			       (unsigned long long)w[i].skid[w[i].nr_skid * 9 / 10],
			       (unsigned long long)w[i].skid[w[i].nr_skid - 1], w[i].nr_skid,
			       (unsigned long long)w[i].late);
		CHECK(w[i].nr_skid == w[i].records, "thread %d: %u of %llu records with values", i,
		      w[i].nr_skid, (unsigned long long)w[i].records);
		/* nearly all of the thread's periods end in its two loops */
		CHECK(w[i].hit_weight >= want * 95 / 100 && w[i].weight >= want,
		      "thread %d: records of weight %llu in the loops for %llu periods", i,
		      (unsigned long long)w[i].hit_weight, (unsigned long long)want);
	}
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/*
 * ---- profile: the command pmuvirt-record runs (it attaches, not us) ----
 * Two threads on CPU 0, "spin-ab" with 3/4 of its loop instructions in A
 * and 1/4 in B, "spin-cd" likewise in C and D; each prints its tid.
 */
static int profile_rounds;

static void *profile_fn(void *arg)
{
	int idx = *(const int *)arg, round;

	pin(0);
	pthread_setname_np(pthread_self(), idx ? "spin-cd" : "spin-ab");
	printf("vm: profile thread %d tid %ld\n", idx, (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_barrier_wait(&start_barrier);
	for (round = 0; round < profile_rounds; round++) {
		if (idx) {
			spin_c(3 * SAMPLE_K);
			spin_d(SAMPLE_K);
		} else {
			spin_a(3 * SAMPLE_K);
			spin_b(SAMPLE_K);
		}
	}
	return NULL;
}

void t_profile(int rounds)
{
	int idx[2] = { 0, 1 };

	profile_rounds = rounds;
	run_threads(profile_fn, idx, sizeof(idx[0]), 2);
}

/*
 * ---- chain: call chains for pmuvirt-record -g ----
 * One leaf, chain_leaf, reached from two callers: 3/4 of the loop work
 * through chain_via_a, 1/4 through chain_via_b.  All three keep frame
 * pointers (written here, whatever the compiler does), so only call
 * chains tell the callers' shares apart: every sample's IP is the leaf's.
 */
__asm__(".text\n.globl chain_leaf\n.type chain_leaf, @function\n"
	"chain_leaf:\n\tpush %rbp\n\tmov %rsp, %rbp\n1:\tdec %rdi\n\tjnz 1b\n"
	"\tpop %rbp\n\tret\n.size chain_leaf, . - chain_leaf\n"
	".globl chain_via_a\n.type chain_via_a, @function\n"
	"chain_via_a:\n\tpush %rbp\n\tmov %rsp, %rbp\n\tcall chain_leaf\n"
	"\tpop %rbp\n\tret\n.size chain_via_a, . - chain_via_a\n"
	".globl chain_via_b\n.type chain_via_b, @function\n"
	"chain_via_b:\n\tpush %rbp\n\tmov %rsp, %rbp\n\tcall chain_leaf\n"
	"\tpop %rbp\n\tret\n.size chain_via_b, . - chain_via_b\n");
extern void chain_via_a(uint64_t), chain_via_b(uint64_t);

void t_chain(int rounds)
{
	int round;

	pin(0);
	prctl(PR_SET_NAME, "chain");
	for (round = 0; round < rounds; round++) {
		chain_via_a(3 * SAMPLE_K);
		chain_via_b(SAMPLE_K);
	}
}
#endif
