/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Runs in dom0 under Xen with pmuvirt: drives the pmuvirt hypercall through
 * /dev/xen/privcmd.
 *
 * Part 1: QUERY works; malformed arguments (versions, sizes, reserved
 * fields, counter numbers, addresses) get the documented errors, and Xen
 * keeps answering.
 * Part 2: two threads pinned to VCPU 0 and 1 run loops of known length
 * while Xen time-slices both VCPUs on one PCPU.  Each reads its VCPU's
 * virtual TSC from the shared record (rdtsc, no hypercall) and compares it
 * with its own work: 2 instructions per iteration, and under QEMU's
 * -icount shift=0 one instruction is one TSC tick.
 *
 * "pmuvirt_xen_test empty", run after pmuvirt.ko was unloaded, checks that
 * no VCPU record still holds a counter.
 *
 * Prints PMUVIRT-XEN-* markers; the boot script judges by them.
 */
#include "privcmd.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#define NR_THREADS	2
#define TOLERANCE	0.02
#define ROUNDS		3


static void tsc_control(struct pmuvirt_xen_set_control *op)
{
	memset(op, 0, sizeof(*op));
	hdr(&op->hdr, sizeof(*op));
	op->ctl.version = PMUVIRT_ABI_VERSION;
	op->ctl.nr_counters = 1;
	op->ctl.counter[0].event = PMUVIRT_EV_TSC;
}

/* One malformed call: @want is the exact error, or 1 for "any error". */
static void expect(const char *what, long got, long want)
{
	expect_case("PMUVIRT-XEN-CASE", 44, what, got, want, 1);
}

static struct pmuvirt_xen_query query;

static int part1(void)
{
	union {
		struct pmuvirt_xen_query q;
		struct pmuvirt_xen_set_control sc;
		struct pmuvirt_xen_arm arm;
		struct pmuvirt_xen_map_shared ms;
		struct pmuvirt_xen_read rd;
		struct pmuvirt_xen_take_overflows to;
	} u;
	const uint64_t xen_va = 0xffff830000000000ull;	/* Xen's direct map */
	char *hole;
	long rc;
	unsigned int i;

	memset(&query, 0, sizeof(query));
	hdr(&query.hdr, sizeof(query));
	rc = hc(PMUVIRT_XEN_QUERY, &query);
	if (rc) {
		printf("PMUVIRT-XEN-FAIL query rc=%ld (%s)\n", rc, strerror((int)-rc));
		return -1;
	}
	printf("PMUVIRT-XEN-QUERY-OK pmu=\"%s\" arch=%u model=%u gp=%u fixed=%u slots=%u "
	       "virq=%u records=%u record_size=%u frames=%u vcpu=%u\n",
	       query.name, query.arch, query.model, query.nr_gp, query.nr_fixed, query.nr_slots,
	       query.virq, query.nr_records, query.record_size, query.nr_frames, query.vcpu_id);
	for (i = 0; i < query.nr_slots && i < PMUVIRT_MAX_COUNTERS; i++)
		printf("PMUVIRT-XEN-SLOT %u cls=%u index=%u width=%u events=%#x user_index=%#x\n", i,
		       query.slot[i].cls, query.slot[i].index, query.slot[i].width,
		       query.slot[i].events, query.slot[i].user_index);

	/* A page with nothing mapped behind it. */
	hole = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		return -1;
	munmap(hole + 4096, 4096);

	expect("unknown command 0", hc(0, &u), -EOPNOTSUPP);
	expect("unknown command 999", hc(999, &u), -EOPNOTSUPP);
	expect("unknown command 0xffffffff", hc(0xffffffffu, &u), -EOPNOTSUPP);
	expect("query: NULL argument", hypercall(PMUVIRT_XEN_QUERY, 0), -EFAULT);
	expect("query: Xen address", hypercall(PMUVIRT_XEN_QUERY, xen_va), -EFAULT);
	expect("query: non-canonical address", hypercall(PMUVIRT_XEN_QUERY, 1ull << 63), -EFAULT);
	expect("query: unmapped page", hc(PMUVIRT_XEN_QUERY, hole + 4096), -EFAULT);
	/* Header readable, body crosses into the hole. */
	hdr((struct pmuvirt_xen_hdr *)(hole + 4096 - 8), sizeof(struct pmuvirt_xen_query));
	expect("query: body runs into unmapped page", hc(PMUVIRT_XEN_QUERY, hole + 4096 - 8),
	       -EFAULT);

	memset(&u, 0, sizeof(u));
	hdr(&u.q.hdr, sizeof(u.q));
	u.q.hdr.version = 0;
	expect("query: version 0", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	u.q.hdr.version = PMUVIRT_XEN_VERSION + 1;
	expect("query: version 2", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	u.q.hdr.version = 0xffffffffu;
	expect("query: version 0xffffffff", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	hdr(&u.q.hdr, 0);
	expect("query: size 0", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	hdr(&u.q.hdr, sizeof(u.q) - 1);
	expect("query: size - 1", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	hdr(&u.q.hdr, sizeof(u.q) + 8);
	expect("query: size + 8", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	hdr(&u.q.hdr, 0xffffffffu);
	expect("query: size 0xffffffff", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);
	hdr(&u.q.hdr, sizeof(u.sc));
	expect("query: size of another command", hc(PMUVIRT_XEN_QUERY, &u), -EINVAL);

	tsc_control(&u.sc);
	u.sc.reserved = 1;
	expect("control: op reserved field", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.version = 0;
	expect("control: control version 0", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.version = 0x7fffffff;
	expect("control: control version huge", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.flags = 1;
	expect("control: control flags", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.reserved = 0x80000000u;
	expect("control: control reserved", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.nr_counters = PMUVIRT_MAX_COUNTERS + 1;
	expect("control: 17 counters", hc(PMUVIRT_XEN_SET_CONTROL, &u), 1);
	tsc_control(&u.sc);
	u.sc.ctl.nr_counters = 0xffffffffu;
	expect("control: 0xffffffff counters", hc(PMUVIRT_XEN_SET_CONTROL, &u), 1);
	tsc_control(&u.sc);
	u.sc.ctl.counter[0].reserved = 1;
	expect("control: counter reserved", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.counter[0].flags = 0x80000000u;
	expect("control: unknown counter flag", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.counter[0].event = 1ull << 62;
	expect("control: huge event number", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.counter[0].period = 1000;
	expect("control: i-mode TSC", hc(PMUVIRT_XEN_SET_CONTROL, &u), -EINVAL);
	tsc_control(&u.sc);
	u.sc.ctl.counter[0].event = ~0ull;
	u.sc.ctl.counter[0].flags = PMUVIRT_CTR_RAW | PMUVIRT_CTR_USER;
	expect("control: raw event ~0", hc(PMUVIRT_XEN_SET_CONTROL, &u), 1);
	tsc_control(&u.sc);
	u.sc.ctl.nr_counters = 2;
	u.sc.ctl.counter[1].event = PMUVIRT_EV_TSC;
	expect("control: two TSC counters", hc(PMUVIRT_XEN_SET_CONTROL, &u), 1);
	if (query.nr_gp + query.nr_fixed == 0) {
		tsc_control(&u.sc);
		u.sc.ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
		u.sc.ctl.counter[0].flags = PMUVIRT_CTR_USER;
		expect("control: instructions without a PMU", hc(PMUVIRT_XEN_SET_CONTROL, &u), 1);
	}
	tsc_control(&u.sc);
	expect("control: control at Xen address",
	       hypercall(PMUVIRT_XEN_SET_CONTROL, xen_va), -EFAULT);

	/* A valid a-mode TSC control, then ARM of counters it does not have. */
	tsc_control(&u.sc);
	expect("control: valid TSC control", hc(PMUVIRT_XEN_SET_CONTROL, &u), 0);
	memset(&u, 0, sizeof(u));
	hdr(&u.arm.hdr, sizeof(u.arm));
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++)
		u.arm.remaining[i] = u.arm.period[i] = 1000;
	expect("arm: empty mask", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);
	u.arm.mask = 0xffffffffu;
	expect("arm: all 32 counters", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);
	u.arm.mask = 1u << 31;
	expect("arm: counter 31", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);
	u.arm.mask = 1u << PMUVIRT_MAX_COUNTERS;
	expect("arm: counter 16", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);
	u.arm.mask = 1;
	expect("arm: a-mode counter", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);
	u.arm.mask = 2;
	expect("arm: counter the control lacks", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);
	u.arm.reserved = 1;
	expect("arm: reserved field", hc(PMUVIRT_XEN_ARM, &u), -EINVAL);

	memset(&u, 0, sizeof(u));
	hdr(&u.ms.hdr, sizeof(u.ms));
	expect("map: no room for frames", hc(PMUVIRT_XEN_MAP_SHARED, &u), -ENOSPC);
	if (u.ms.nr_frames != query.nr_frames) {
		printf("PMUVIRT-XEN-CASE map: needed frames %u, query said %u WRONG\n",
		       u.ms.nr_frames, query.nr_frames);
		failures++;
	}
	u.ms.nr_frames = 1u << 30;
	u.ms.frames = 0;
	expect("map: frames at NULL", hc(PMUVIRT_XEN_MAP_SHARED, &u), -EFAULT);
	u.ms.nr_frames = 1u << 30;
	u.ms.frames = xen_va;
	expect("map: frames at Xen address", hc(PMUVIRT_XEN_MAP_SHARED, &u), -EFAULT);
	u.ms.nr_frames = 1u << 30;
	u.ms.frames = (uint64_t)(uintptr_t)(hole + 4096);
	expect("map: frames in unmapped page", hc(PMUVIRT_XEN_MAP_SHARED, &u), -EFAULT);

	memset(&u, 0, sizeof(u));
	hdr(&u.rd.hdr, sizeof(u.rd));
	u.rd.reserved = 1;
	expect("read: reserved field", hc(PMUVIRT_XEN_READ, &u), -EINVAL);
	u.rd.reserved = 0;
	expect("read: valid", hc(PMUVIRT_XEN_READ, &u), 0);
	if (u.rd.nr_counters != 1) {
		printf("PMUVIRT-XEN-CASE read: %u counters WRONG\n", u.rd.nr_counters);
		failures++;
	}
	memset(&u, 0, sizeof(u));
	hdr(&u.to.hdr, sizeof(u.to));
	u.to.reserved = 2;
	expect("overflows: reserved field", hc(PMUVIRT_XEN_TAKE_OVERFLOWS, &u), -EINVAL);
	u.to.reserved = 0;
	expect("overflows: valid, none pending", hc(PMUVIRT_XEN_TAKE_OVERFLOWS, &u), 0);

	/* Xen is still up and answering. */
	memset(&u, 0, sizeof(u));
	hdr(&u.q.hdr, sizeof(u.q));
	expect("query again after the bad calls", hc(PMUVIRT_XEN_QUERY, &u), 0);
	munmap(hole, 4096);

	if (failures) {
		printf("PMUVIRT-XEN-FAIL %d argument checks wrong\n", failures);
		return -1;
	}
	printf("PMUVIRT-XEN-BADARGS-OK\n");
	return 0;
}

/* Part 2: virtual TSC of each VCPU from the shared records. */

static const volatile struct pmuvirt_shared_ctx *records[64];
static pthread_barrier_t start_line;
static uint64_t iterations;

struct result {
	int cpu;
	int vcpu;
	long rc, preempted;
	unsigned int retries;
	uint64_t vtsc;
	uint64_t raw;
};

static struct result results[NR_THREADS];

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Counter 0 of VCPU record @rec: count + (TSC - start) while it runs. */
static uint64_t read_vtsc(const volatile struct pmuvirt_shared_ctx *rec, unsigned int *retries)
{
	uint32_t seq, index, width;
	uint64_t count, start, now, mask;

	for (;;) {
		seq = rec->seq;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq & 1) {
			++*retries;
			continue;
		}
		count = rec->counter[0].count;
		start = rec->counter[0].start;
		index = rec->counter[0].index;
		width = rec->counter[0].width;
		now = rdtsc();
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (rec->seq == seq)
			break;
		++*retries;
	}
	if (!(index & PMUVIRT_SHARED_TSC))
		return count;
	mask = width >= 64 ? ~0ull : (1ull << width) - 1;
	return count + ((now - start) & mask);
}

static void *worker(void *arg)
{
	struct result *r = arg;
	struct pmuvirt_xen_set_control sc;
	uint64_t v0, v1, t0, t1, n = iterations;

	/* The control acts on the calling VCPU: this thread's. */
	tsc_control(&sc);
	r->rc = start_on_vcpu(&sc, r->cpu, &r->vcpu);
	pthread_barrier_wait(&start_line);
	if (r->rc)
		return NULL;

	r->preempted = preemptions();
	v0 = read_vtsc(records[r->vcpu], &r->retries);
	t0 = rdtsc();
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
	t1 = rdtsc();
	v1 = read_vtsc(records[r->vcpu], &r->retries);
	r->preempted = preemptions() - r->preempted;
	r->vtsc = v1 - v0;
	r->raw = t1 - t0;
	return NULL;
}

static int measure(int round);

static struct pmuvirt_xen_map_shared ms;

/* Map the domain's records read-only into records[]. */
static int map_records(void)
{
	static unsigned long mfn[64];
	static int err[64];
	unsigned int i;
	char *map;
	long rc;

	memset(&ms, 0, sizeof(ms));
	hdr(&ms.hdr, sizeof(ms));
	ms.nr_frames = 64;
	ms.frames = (uint64_t)(uintptr_t)mfn;
	rc = hc(PMUVIRT_XEN_MAP_SHARED, &ms);
	if (rc || ms.nr_records < NR_THREADS || ms.per_frame == 0) {
		printf("PMUVIRT-XEN-FAIL map_shared rc=%ld records=%u\n", rc, ms.nr_records);
		return -1;
	}
	map = xen_map_own_frames(privcmd, mfn, ms.nr_frames, err);
	if (map == MAP_FAILED) {
		printf("PMUVIRT-XEN-FAIL mapping the records: %s (frame error %d)\n",
		       strerror(errno), err[0]);
		return -1;
	}
	for (i = 0; i < ms.nr_records && i < 64; i++)
		records[i] = (const volatile struct pmuvirt_shared_ctx *)
			(map + (i / ms.per_frame) * 4096ul + (i % ms.per_frame) * ms.record_size);
	printf("PMUVIRT-XEN-MAP-OK frames=%u records=%u per_frame=%u mfn0=%#lx "
	       "rec0: version=%u nr_counters=%u below=%#x\n", ms.nr_frames, ms.nr_records,
	       ms.per_frame, mfn[0], records[0]->version, records[0]->nr_counters,
	       records[0]->below);
	return 0;
}

static int part2(void)
{
	unsigned int i;
	int bad = 0;

	if (map_records())
		return -1;
	for (i = 0; i < ROUNDS; i++)
		if (measure((int)i))
			bad++;
	if (bad) {
		printf("PMUVIRT-XEN-FAIL virtual TSC\n");
		return -1;
	}
	printf("PMUVIRT-XEN-VTSC-OK\n");
	return 0;
}

static int measure(int round)
{
	pthread_t tid[NR_THREADS];
	unsigned int i;
	double work, e;
	int bad = 0;

	memset(results, 0, sizeof(results));
	/* what we printed goes out before the loops, not during them */
	fflush(stdout);
	tcdrain(STDOUT_FILENO);

	pthread_barrier_init(&start_line, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		results[i].cpu = (int)i;
		pthread_create(&tid[i], NULL, worker, &results[i]);
	}
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);

	work = 2.0 * (double)iterations;	/* dec + jnz per iteration */
	for (i = 0; i < NR_THREADS; i++) {
		struct result *r = &results[i];

		if (r->rc) {
			printf("PMUVIRT-XEN-FAIL thread %u: rc=%ld vcpu=%d\n", i, r->rc, r->vcpu);
			bad++;
			continue;
		}
		e = ((double)r->vtsc - work) / work;
		printf("PMUVIRT-XEN-VTSC round=%d vcpu=%d work=%.0f vtsc=%llu raw=%llu err=%+.3f%% "
		       "raw/work=%.2f retries=%u preempted=%ld\n", round, r->vcpu, work,
		       (unsigned long long)r->vtsc, (unsigned long long)r->raw, 100.0 * e,
		       (double)r->raw / work, r->retries, r->preempted);
		if (e > TOLERANCE || e < -TOLERANCE)
			bad++;
		/* the premise: nothing but this thread (and interrupts) ran on the VCPU */
		if (r->preempted)
			bad++;
	}
	/* The raw deltas must hold the other VCPU's time too. */
	for (i = 0; i < NR_THREADS && !bad; i++)
		if ((double)results[i].raw < 1.3 * work) {
			printf("PMUVIRT-XEN-FAIL raw TSC of VCPU %d does not hold the other VCPU\n",
			       results[i].vcpu);
			bad++;
		}
	pthread_barrier_destroy(&start_line);
	return bad;
}

/*
 * "empty" mode, after pmuvirt.ko was unloaded: no VCPU may still count for
 * it (the module empties each VCPU's control at unload).
 */
static int check_empty(void)
{
	unsigned int i;
	int bad = 0;

	if (map_records())
		return 1;
	for (i = 0; i < ms.nr_records && i < 64; i++) {
		printf("PMUVIRT-XEN-EMPTY vcpu=%u nr_counters=%u\n", i, records[i]->nr_counters);
		if (records[i]->nr_counters)
			bad++;
	}
	printf("PMUVIRT-XEN-EMPTY-%s\n", bad ? "FAILED" : "OK");
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int empty = argc > 1 && !strcmp(argv[1], "empty");
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	iterations = argc > 1 && !empty ? strtoull(argv[1], NULL, 0) : 100000000ull;
	/* Xen copies from our memory: keep it resident. */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	if (open_privcmd() < 0) {
		printf("PMUVIRT-XEN-FAIL no privcmd: %s\n", strerror(errno));
		return 1;
	}
	if (empty)
		return check_empty();
	ret = part1();
	if (!ret)
		ret = part2();
	printf("PMUVIRT-XEN-%s\n", ret ? "FAILED" : "PASSED");
	return ret ? 1 : 0;
}
