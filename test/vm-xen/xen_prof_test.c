/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * System-wide profiling under Xen with pmuvirt's emulated PMU (two general
 * counters, one fixed counter counting instructions), in dom0.
 *
 * "xen_prof_test rules": the session's arguments and life (malformed starts,
 * unknown domains, commands without a session, a tail ahead of the head,
 * release while running or mapped, a second start), and the arbitration
 * both ways: a VCPU control on both general counters keeps a session that
 * samples cycles from starting (-EBUSY); with the VCPU on the fixed counter
 * they share the PMU, and then a VCPU control that wants both general
 * counters is refused (-EBUSY) while one that wants one is not; the VCPU's
 * own counts go on through the session's start and stop, and it sees its
 * own counters only.
 *
 * "xen_prof_test nopmu", on a PMU that is the TSC alone: no session can start
 * (-ENODEV), and none exists.
 *
 * "xen_prof_test hot ROUNDS": the profiled program: a thread alone on VCPU 0
 * (the highest real-time priority) runs hot_a (3/4 of its instructions) and
 * hot_b (1/4) in turns; prints the instructions of each, and its VCPU's time
 * over the loop, read from a TSC counter on its VCPU (which shares the PMU
 * with a running session): the work plus what Xen and interrupts cost it.
 *
 * "xen_prof_test check REPORT PERIOD WORK_A WORK_B [lossy | virq LOG]": reads
 * the report of pmuvirt-xenprof: dom0's user samples in hot_a and hot_b
 * split 3:1 (within 3%) and number the work over the period (within 10%);
 * the idle PCPU's samples resolve to Xen's symbols.  With "lossy": the
 * ring of dom0's VCPU 0 lost records, reported, and its records read plus
 * lost number the work over the period.  With "virq" (a recorder whose
 * timer never drained, its summary line in LOG): the VIRQ came and every
 * drain was its, no ring lost or skipped a record, and the ring of dom0's
 * VCPU 0 read the work over the period.  The 10% on the number of records
 * is room for what else ran on VCPU 0 during the session (the program's
 * start and exit, dom0's kernel) and for records that stand for more than
 * one period; a ring holds 32 records.
 *
 * "xen_prof_test domus REPORT A B": both passive domUs have kernel samples
 * resolved from their System.map and user samples.
 *
 * "xen_prof_test crng": waits until the kernel's CRNG is ready (before a split).
 *
 * "xen_prof_test split TICKS ROUNDS", in an HVM or PVH domU, on its VCPU 0:
 * rounds of TICKS of the TSC in the kernel (getrandom(), whose work is the
 * kernel's ChaCha20) and 3 * TICKS in user mode (split_user); prints the
 * ticks each phase took.
 *
 * "xen_prof_test splitcheck REPORT dN KERNEL_TICKS USER_TICKS": in the
 * per-VCPU report (--vcpu) of a session that named the domain, VCPU 0's
 * user samples in split_user and its kernel samples (resolved, at least
 * 90%) split as the ticks did, within 5%; no sample of its two VCPUs is
 * Xen's at SVM's VM-exit label (svm_stgi_label: where a guest that ran
 * was interrupted), and at most 2% are Xen's at all (its exits' work).
 *
 * "xen_prof_test activecheck REPORT dN KERNEL_TICKS USER_TICKS pv|pvh", in
 * an active domU, on the per-VCPU report (--vcpu) of its own records
 * (pmuvirt-xenprof active): every ring and every sample is domain N's,
 * every sample of Xen's mode has no IP; VCPU 0's user samples in
 * split_user and its kernel samples (resolved, at least 90%) split as the
 * ticks did, within 5%.  A PV domain's kernel samples include VCPU 0's of
 * Xen (a PV kernel's system calls pass through Xen); a PVH domain's
 * system calls do not, and its samples of Xen (an overflow in either
 * phase whose interrupt came while Xen ran) stay out of the ratio, at
 * most 2% of VCPU 0's, as in splitcheck.
 *
 * "xen_prof_test chainrun CPU N", in the PV domU with chain_probe.ko, on
 * its VCPU CPU: chain_probe.ko's loops, 3 * N iterations of its leaf
 * called from chain_probe_a, N from chain_probe_b, twice over.
 *
 * "xen_prof_test chaincheck FOLDED DUMP dN", on pmuvirt-xenprof's folded
 * stacks and dump of that domain's own records (a session with call
 * chains): the leaf's samples (at least 200) each with a caller,
 * chain_probe_a or chain_probe_b, whose weights split 3:1 within 3%; no
 * address of Xen's range among the IPs and frames of the dump; prints the
 * leaf's chain depths.
 *
 * "xen_prof_test devperm", in a PVH or HVM domU with pmuvirt.ko: who may
 * open /dev/pmuvirt-xenprof (root; not root without CAP_SYS_ADMIN, not
 * nobody).
 *
 * Prints PMUVIRT-XEN-PROF-* markers.
 */
#include "privcmd.h"
#include "own_time.h"
#include "../common/prof_start.h"
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL

static void expect(const char *what, long got, long want)
{
	expect_case("PMUVIRT-XEN-PROF-CASE", 56, what, got, want, 0);
}

static void start_op(struct pmuvirt_xen_prof_start *op, unsigned int event)
{
	prof_start_one(op, 2, event, U | K | PMUVIRT_CTR_SAMPLE, 1000000);
}

static long simple(unsigned int cmd, uint32_t reserved)
{
	struct pmuvirt_xen_prof_stop op;

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	op.reserved = reserved;
	return hc(cmd, &op);
}

/* This VCPU's own control: @n counters of @ev (a-mode, user and kernel but the TSC). */
static long set_own(unsigned int n, const unsigned int *ev)
{
	struct pmuvirt_xen_set_control sc;
	unsigned int i;

	memset(&sc, 0, sizeof(sc));
	hdr(&sc.hdr, sizeof(sc));
	sc.ctl.version = PMUVIRT_ABI_VERSION;
	sc.ctl.nr_counters = n;
	for (i = 0; i < n; i++) {
		sc.ctl.counter[i].event = ev[i];
		sc.ctl.counter[i].flags = ev[i] == PMUVIRT_EV_TSC ? 0 : U | K;
	}
	return hc(PMUVIRT_XEN_SET_CONTROL, &sc);
}

static long read_own(struct pmuvirt_xen_read *rd)
{
	memset(rd, 0, sizeof(*rd));
	hdr(&rd->hdr, sizeof(*rd));
	return hc(PMUVIRT_XEN_READ, rd);
}

static int rules(void)
{
	static const unsigned int two_gp[] = { PMUVIRT_EV_CYCLES, PMUVIRT_EV_BRANCHES };
	static const unsigned int fixed[] = { PMUVIRT_EV_INSTRUCTIONS };
	static const unsigned int one_gp[] = { PMUVIRT_EV_BRANCHES };
	struct pmuvirt_xen_prof_start op;
	struct pmuvirt_xen_prof_map map;
	struct pmuvirt_xen_prof_tail tail;
	struct pmuvirt_xen_prof_ring ring[8];
	struct pmuvirt_xen_read rd;
	uint64_t mfn[64];
	unsigned long frames[64];
	uint32_t tails[8];
	int ferr[64], vcpu;
	unsigned int i;
	uint64_t before;
	void *mem;

	expect("pin to VCPU 0", pin_to_vcpu(0, &vcpu), 0);
	/* Commands without a session. */
	expect("STOP without a session", simple(PMUVIRT_XEN_PROF_STOP, 0), -ENOENT);
	expect("RELEASE without a session", simple(PMUVIRT_XEN_PROF_RELEASE, 0), -ENOENT);
	memset(&map, 0, sizeof(map));
	hdr(&map.hdr, sizeof(map));
	expect("MAP without a session", hc(PMUVIRT_XEN_PROF_MAP, &map), -ENOENT);
	memset(&tail, 0, sizeof(tail));
	hdr(&tail.hdr, sizeof(tail));
	expect("TAIL without a session", hc(PMUVIRT_XEN_PROF_TAIL, &tail), -ENOENT);
	expect("UNMAP from a PV domain", simple(PMUVIRT_XEN_PROF_UNMAP, 0), -EOPNOTSUPP);

	/* Malformed starts change nothing (a valid one works afterwards). */
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.ctl.counter[0].period = 0;
	expect("START with an a-mode counter", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	expect("  names the counter", op.err_counter, 0);
	start_op(&op, PMUVIRT_EV_TSC);
	expect("START sampling the TSC", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.ring_pages = 3;
	expect("START with 3 pages a ring", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.high_water_pct = 101;
	expect("START with a high-water mark of 101%", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT | PMUVIRT_SAMPLE_FMT_CHAIN;
	expect("START with call chains in its records", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.sample_format = PMUVIRT_SAMPLE_FMT_ALL + 1;
	expect("START with an unknown record field", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.nr_domains = 2;
	expect("START naming domain 0 twice", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	op.domains[1] = 1000;
	expect("START naming domain 1000", hc(PMUVIRT_XEN_PROF_START, &op), -ESRCH);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.ctl.counter[0].flags |= 0x400;
	expect("START with an unknown counter flag", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.active = 0x2;
	expect("START with an active bit past its one domain", hc(PMUVIRT_XEN_PROF_START, &op),
	       -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.chain_depth = 1;
	expect("START with a chain depth but no call chains", hc(PMUVIRT_XEN_PROF_START, &op),
	       -EINVAL);
	start_op(&op, PMUVIRT_EV_CYCLES);
	op.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT | PMUVIRT_SAMPLE_FMT_CHAIN;
	op.chain_depth = PMUVIRT_CHAIN_MAX + 1;
	expect("START with call chains 128 deep", hc(PMUVIRT_XEN_PROF_START, &op), -EINVAL);
	expect("START at a bad address", hypercall(PMUVIRT_XEN_PROF_START, 0x10), -EFAULT);

	/* Arbitration: the VCPU first, on both general counters. */
	expect("VCPU control: cycles, branches", set_own(2, two_gp), 0);
	start_op(&op, PMUVIRT_EV_CYCLES);
	expect("START sampling cycles: no general counter left",
	       hc(PMUVIRT_XEN_PROF_START, &op), -EBUSY);
	expect("  no session", simple(PMUVIRT_XEN_PROF_STOP, 0), -ENOENT);
	expect("VCPU control: instructions (fixed)", set_own(1, fixed), 0);
	expect("read it", read_own(&rd), 0);
	before = rd.value[0];
	expect("START sampling cycles: both fit", hc(PMUVIRT_XEN_PROF_START, &op), 0);
	expect("  rings: a PCPU's and dom0's two VCPUs'", op.nr_rings, 3);
	expect("  records per 2-page ring", op.nr_records, 32);
	expect("the VCPU reads its own counter only", read_own(&rd), 0);
	expect("  one counter", rd.nr_counters, 1);
	expect("  its count went on", rd.value[0] > before, 1);
	/* ... and the session first. */
	expect("VCPU control: cycles, branches: busy", set_own(2, two_gp), -EBUSY);
	expect("  the old control stays", read_own(&rd), 0);
	expect("  one counter", rd.nr_counters, 1);
	expect("VCPU control: branches: fits", set_own(1, one_gp), 0);
	expect("a second START", hc(PMUVIRT_XEN_PROF_START, &op), -EBUSY);

	/* Its rings, mapped; the tails checked. */
	memset(&map, 0, sizeof(map));
	hdr(&map.hdr, sizeof(map));
	map.nr_rings = 1;
	map.nr_frames = 64;
	map.rings = (uint64_t)(uintptr_t)ring;
	map.frames = (uint64_t)(uintptr_t)mfn;
	expect("MAP into too small an array", hc(PMUVIRT_XEN_PROF_MAP, &map), -ENOSPC);
	expect("  says how many", map.nr_rings, 3);
	map.nr_rings = 8;
	map.nr_frames = 64;
	expect("MAP", hc(PMUVIRT_XEN_PROF_MAP, &map), 0);
	expect("  frames", map.nr_frames, 6);
	expect("  ring 0: PCPU 0", ring[0].flags == PMUVIRT_XEN_PROF_RING_PCPU && !ring[0].id, 1);
	expect("  ring 2: dom0 VCPU 1", !ring[2].domain && ring[2].id == 1 && !ring[2].flags, 1);
	for (i = 0; i < map.nr_frames; i++)
		frames[i] = (unsigned long)mfn[i];
	mem = xen_map_own_frames(privcmd, frames, map.nr_frames, ferr);
	expect("map them read-only", mem == MAP_FAILED ? -errno : 0, 0);
	memset(&tail, 0, sizeof(tail));
	hdr(&tail.hdr, sizeof(tail));
	tail.nr_rings = 2;
	tail.tails = (uint64_t)(uintptr_t)tails;
	memset(tails, 0, sizeof(tails));
	expect("TAIL of 2 rings of 3", hc(PMUVIRT_XEN_PROF_TAIL, &tail), -EINVAL);
	tail.nr_rings = 3;
	if (mem != MAP_FAILED)
		tails[1] = ((const volatile struct pmuvirt_sample_ring *)
			    ((char *)mem + ring[1].frame * 4096))->head + 1;
	expect("TAIL ahead of a ring's head", hc(PMUVIRT_XEN_PROF_TAIL, &tail), -EINVAL);
	tails[1] -= 1;
	expect("TAIL at the heads", hc(PMUVIRT_XEN_PROF_TAIL, &tail), 0);
	tail.tails = 0;
	expect("TAIL from a bad address", hc(PMUVIRT_XEN_PROF_TAIL, &tail), -EFAULT);
	expect("RELEASE while running", simple(PMUVIRT_XEN_PROF_RELEASE, 0), -EBUSY);
	expect("STOP with a reserved field", simple(PMUVIRT_XEN_PROF_STOP, 1), -EINVAL);
	expect("read before the stop", read_own(&rd), 0);
	before = rd.value[0];
	expect("STOP", simple(PMUVIRT_XEN_PROF_STOP, 0), 0);
	expect("  the VCPU's count went on", read_own(&rd) == 0 && rd.value[0] > before, 1);
	expect("STOP again", simple(PMUVIRT_XEN_PROF_STOP, 0), -ENOENT);
	expect("START before the release", hc(PMUVIRT_XEN_PROF_START, &op), -EBUSY);
	expect("RELEASE while mapped", simple(PMUVIRT_XEN_PROF_RELEASE, 0), -EBUSY);
	if (mem != MAP_FAILED)
		munmap(mem, (size_t)map.nr_frames * 4096);
	expect("RELEASE after the unmap", simple(PMUVIRT_XEN_PROF_RELEASE, 0), 0);
	expect("RELEASE again", simple(PMUVIRT_XEN_PROF_RELEASE, 0), -ENOENT);
	expect("VCPU control: cycles, branches: free again", set_own(2, two_gp), 0);
	expect("VCPU control: none", set_own(0, NULL), 0);
	printf("PMUVIRT-XEN-PROF-RULES-%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}

/* The hot functions: 2 instructions per iteration, nothing else inside. */
__attribute__((noinline)) void hot_a(uint64_t n)
{
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

__attribute__((noinline)) void hot_b(uint64_t n)
{
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

#define HOT_B	100003ull	/* iterations of hot_b a round; hot_a three times that */

static uint64_t rounds, vcpu_time;
static long hot_rc;

static void *hot_thread(void *arg)
{
	static const unsigned int tsc[] = { PMUVIRT_EV_TSC };
	struct pmuvirt_xen_read before, after;
	int vcpu;
	uint64_t r;

	(void)arg;
	hot_rc = pin_to_vcpu(0, &vcpu);
	if (!hot_rc)
		hot_rc = set_own(1, tsc);
	if (!hot_rc)
		hot_rc = run_alone();
	if (!hot_rc)
		hot_rc = read_own(&before);
	if (hot_rc)
		return NULL;
	for (r = 0; r < rounds; r++) {
		hot_a(3 * HOT_B);
		hot_b(HOT_B);
	}
	hot_rc = read_own(&after);
	vcpu_time = after.value[0] - before.value[0];
	if (!hot_rc)
		hot_rc = set_own(0, NULL);
	return NULL;
}

static int hot(void)
{
	double work = (double)(rounds * 8 * HOT_B);
	pthread_t t;

	pthread_create(&t, NULL, hot_thread, NULL);
	pthread_join(t, NULL);
	printf("PMUVIRT-XEN-PROF-HOT rc=%ld work_a=%llu work_b=%llu vcpu_time=%llu (%+.3f%%)\n",
	       hot_rc, (unsigned long long)(rounds * 6 * HOT_B),
	       (unsigned long long)(rounds * 2 * HOT_B), (unsigned long long)vcpu_time,
	       100.0 * ((double)vcpu_time - work) / work);
	return hot_rc ? 1 : 0;
}

static inline uint64_t split_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Where the phases' TSC ticks went besides their own work, printed for
 * whoever reads a split that missed: in the user phase, steps between two
 * of the loop's reads (tens of ticks) longer than SPLIT_GAP_TICKS, under
 * own_time.h's OWN_AWAY_TICKS (split_gaps[0]: a sample's PMI in Xen, about
 * 10,000 ticks each, or an interrupt in the guest) and longer
 * (split_gaps[1]: another VCPU or domain ran); in the kernel phase,
 * getrandom() calls of OWN_AWAY_TICKS or more (split_gaps[2]; one takes
 * tens of thousands).
 * Time in Xen and in other VCPUs falls into both phases in proportion and
 * leaves the split as it is; the guest kernel's own interrupts in the user
 * phase make its kernel share look larger, by about 1%.
 */
#define SPLIT_GAP_TICKS		2000
static uint64_t split_gaps[3], split_nr_gaps[3];

/* The user-mode phase: nothing but the loop and the clock. */
__attribute__((noinline)) uint64_t split_user(uint64_t until)
{
	uint64_t now, prev = split_rdtsc();

	while ((now = split_rdtsc()) < until) {
		if (now - prev > SPLIT_GAP_TICKS) {
			int away = now - prev >= OWN_AWAY_TICKS;

			split_gaps[away] += now - prev;
			split_nr_gaps[away]++;
		}
		prev = now;
	}
	return now;
}

/* The kernel phase: 4 KiB of getrandom() (GRND_INSECURE: never waits) a call. */
__attribute__((noinline)) static uint64_t split_kernel(uint64_t until)
{
	static char buf[4096];
	uint64_t now, prev = split_rdtsc();

	while ((now = split_rdtsc()) < until) {
		if (now - prev >= OWN_AWAY_TICKS) {
			split_gaps[2] += now - prev;
			split_nr_gaps[2]++;
		}
		if (syscall(SYS_getrandom, buf, sizeof(buf), 4) != (long)sizeof(buf))
			return 0;
		prev = now;
	}
	return now;
}

/*
 * The kernel's CRNG ready before the split: the moment it becomes ready
 * the kernel patches its code (a static key), which makes every CPU
 * answer an IPI, tens of millions of cycles of smp_call_function_many_cond
 * on a guest's VCPU.  A blocking getrandom() waits for it; the patch runs
 * in a work item after.
 */
static int crng(void)
{
	char seed;

	if (syscall(SYS_getrandom, &seed, 1, 0) != 1) {
		printf("PMUVIRT-XEN-SPLIT-FAILED getrandom: %s\n", strerror(errno));
		return 1;
	}
	sleep(1);
	return 0;
}

static int split(uint64_t ticks, uint64_t nr)
{
	uint64_t k = 0, u = 0, t0, t1, t2, r;
	cpu_set_t cpus;

	/* on VCPU 0: the report's samples of that VCPU are the split's */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		printf("PMUVIRT-XEN-SPLIT-FAILED pin to VCPU 0: %s\n", strerror(errno));
		return 1;
	}
	for (r = 0; r < nr; r++) {
		t0 = split_rdtsc();
		t1 = split_kernel(t0 + ticks);
		if (!t1) {
			printf("PMUVIRT-XEN-SPLIT-FAILED getrandom: %s\n", strerror(errno));
			return 1;
		}
		t2 = split_user(t1 + 3 * ticks);
		k += t1 - t0;
		u += t2 - t1;
	}
	printf("PMUVIRT-XEN-SPLIT kernel %llu user %llu ratio %.4f\n", (unsigned long long)k,
	       (unsigned long long)u, (double)u / (double)k);
	printf("PMUVIRT-XEN-SPLIT-GAPS kernel phase: %llu ticks in %llu calls of 0.5 ms or more; "
	       "user phase: %llu in %llu gaps under 0.5 ms, %llu in %llu longer\n",
	       (unsigned long long)split_gaps[2], (unsigned long long)split_nr_gaps[2],
	       (unsigned long long)split_gaps[0], (unsigned long long)split_nr_gaps[0],
	       (unsigned long long)split_gaps[1], (unsigned long long)split_nr_gaps[1]);
	return 0;
}

/* One line of the report's symbol table: weight, domain, mode, symbol. */
struct line {
	unsigned long long weight;
	char domain[16], mode[8], symbol[128];
};

static int parse(const char *text, struct line *l)
{
	double share;

	return sscanf(text, " %lf%% %llu %15s %7s %127s", &share, &l->weight, l->domain, l->mode,
		      l->symbol) == 5;
}

/* Sum of the weights of report lines matching domain, mode and symbol (NULL: any). */
static unsigned long long sum(const char *path, const char *dom, const char *mode,
			      const char *sym, int unresolved_only)
{
	char text[512];
	unsigned long long s = 0;
	FILE *f = fopen(path, "r");
	struct line l;

	if (!f)
		return 0;
	while (fgets(text, sizeof(text), f)) {
		if (text[0] == '#' || !parse(text, &l))
			continue;
		if ((dom && strcmp(l.domain, dom)) || (mode && strcmp(l.mode, mode)) ||
		    (sym && strcmp(l.symbol, sym)))
			continue;
		if (unresolved_only && strcmp(l.symbol, "[unknown]"))
			continue;
		s += l.weight;
	}
	fclose(f);
	return s;
}

/* The last of the first @lines lines of @path that holds @key, into @text; 0 if none does. */
static int find_line(const char *path, unsigned int lines, const char *key, char *text,
		     size_t len)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return 0;
	for (; lines && fgets(line, sizeof(line), f); lines--)
		if (strstr(line, key)) {
			snprintf(text, len, "%s", line);
			found = 1;
		}
	fclose(f);
	return found;
}

/* "ring N (d0 vcpu 0): R read, L lost, S skipped" */
static int ring_line(const char *path, unsigned long long *read, unsigned long long *lost)
{
	char text[512];

	return find_line(path, ~0u, " (d0 vcpu 0): ", text, sizeof(text)) &&
	       sscanf(text, "#   ring %*u (d0 vcpu 0): %llu read, %llu lost", read, lost) == 2;
}

/* The report's first line: "... from R rings of N, L lost, S skipped". */
static int report_losses(const char *path, unsigned long long *lost, unsigned long long *skipped)
{
	char text[512];

	return find_line(path, 1, " rings of ", text, sizeof(text)) &&
	       sscanf(strstr(text, " rings of "), " rings of %*u, %llu lost, %llu skipped", lost,
		      skipped) == 2;
}

/* The recorder's summary: "... (D drains, V VIRQs), ..." */
static int recorder_virqs(const char *path, unsigned int *drains, unsigned int *virqs)
{
	char text[512];
	const char *p;

	if (!find_line(path, ~0u, " drains, ", text, sizeof(text)))
		return 0;
	for (p = strstr(text, " drains, "); p > text && p[-1] != '('; p--)
		;
	return sscanf(p, "%u drains, %u VIRQs)", drains, virqs) == 2;
}

static int check_virq(const char *path, const char *log, double want)
{
	unsigned long long read = 0, lost = 0, all_lost = ~0ull, skipped = ~0ull;
	unsigned int drains = 0, virqs = 0;
	double got;
	int bad = 0;

	if (!ring_line(path, &read, &lost) || !report_losses(path, &all_lost, &skipped) ||
	    !recorder_virqs(log, &drains, &virqs))
		bad++;
	got = (double)(read + lost);
	printf("PMUVIRT-XEN-PROF-VIRQ d0 vcpu 0: read %llu lost %llu, expected about %.0f "
	       "(%+.1f%%); %u VIRQs, %u drains; all rings: %llu lost, %llu skipped\n", read, lost,
	       want, 100.0 * (got - want) / want, virqs, drains, all_lost, skipped);
	if (!virqs || drains != virqs || all_lost || skipped || got < 0.9 * want ||
	    got > 1.1 * want)
		bad++;
	printf("PMUVIRT-XEN-PROF-VIRQ-%s\n", bad ? "FAILED" : "PASSED");
	return bad ? 1 : 0;
}

static int check(const char *path, double period, double work_a, double work_b, int lossy)
{
	unsigned long long a = sum(path, "d0", "user", "hot_a", 0);
	unsigned long long b = sum(path, "d0", "user", "hot_b", 0);
	unsigned long long idle = sum(path, "idle", NULL, NULL, 0);
	unsigned long long idle_unknown = sum(path, "idle", NULL, NULL, 1);
	double want = (work_a + work_b) / period, share = a + b ? (double)a / (double)(a + b) : 0;
	double got = (double)(a + b);
	unsigned long long read = 0, lost = 0;
	int bad = 0;

	if (lossy) {
		if (!ring_line(path, &read, &lost))
			bad++;
		got = (double)(read + lost);
		printf("PMUVIRT-XEN-PROF-LOSSY d0 vcpu 0: read %llu lost %llu, expected about %.0f "
		       "(%+.1f%%)\n", read, lost, want, 100.0 * (got - want) / want);
		if (!lost || got < 0.9 * want || got > 1.1 * want)
			bad++;
	} else {
		printf("PMUVIRT-XEN-PROF-SHARE hot_a %llu hot_b %llu share %.4f (want 0.75), "
		       "samples %.0f expected about %.0f (%+.1f%%); idle %llu, %llu unresolved\n",
		       a, b, share, got, want, 100.0 * (got - want) / want, idle, idle_unknown);
		if (share < 0.72 || share > 0.78 || got < 0.9 * want || got > 1.1 * want)
			bad++;
		/* Xen's own samples resolve from xen-syms */
		if (!idle || idle_unknown * 10 > idle)
			bad++;
	}
	printf("PMUVIRT-XEN-PROF-%s-%s\n", lossy ? "LOSSY" : "SHARE", bad ? "FAILED" : "PASSED");
	return bad ? 1 : 0;
}

/* Each passive domU: kernel samples from its System.map, user samples too. */
static int domus(const char *path, const char *a, const char *b)
{
	const char *d[2] = { a, b };
	int bad = 0, i;

	for (i = 0; i < 2; i++) {
		unsigned long long k = sum(path, d[i], "kernel", NULL, 0);
		unsigned long long ku = sum(path, d[i], "kernel", NULL, 1);
		unsigned long long u = sum(path, d[i], "user", NULL, 0);
		unsigned long long x = sum(path, d[i], "xen", NULL, 0);

		printf("PMUVIRT-XEN-PROF-DOMU %s: kernel %llu (%llu unresolved), user %llu, xen %llu\n",
		       d[i], k, ku, u, x);
		if (k < 20 || ku * 10 > k || !u)
			bad++;
	}
	printf("PMUVIRT-XEN-PROF-DOMUS-%s\n", bad ? "FAILED" : "PASSED");
	return bad ? 1 : 0;
}

/* An HVM or PVH domU's split: its guest IPs, in its own symbols, none taken as Xen's. */
static int splitcheck(const char *path, const char *d, double kticks, double uticks)
{
	char v0[24], v1[24];
	unsigned long long u, uall, k, ku, x, xexit, other;
	double want = uticks / kticks, got, all;
	int bad = 0;

	/* the report is per VCPU (--vcpu): the split ran on VCPU 0 */
	snprintf(v0, sizeof(v0), "%sv0", d);
	snprintf(v1, sizeof(v1), "%sv1", d);
	u = sum(path, v0, "user", "split_user", 0);
	uall = sum(path, v0, "user", NULL, 0);
	k = sum(path, v0, "kernel", NULL, 0);
	ku = sum(path, v0, "kernel", NULL, 1);
	x = sum(path, v0, "xen", NULL, 0) + sum(path, v1, "xen", NULL, 0);
	xexit = sum(path, v0, "xen", "svm_stgi_label", 0) +
		sum(path, v1, "xen", "svm_stgi_label", 0);
	other = sum(path, v1, "kernel", NULL, 0) + sum(path, v1, "user", NULL, 0);
	got = k ? (double)u / (double)k : 0;
	all = (double)(uall + k + other + x);
	printf("PMUVIRT-XEN-SPLIT-CHECK %s: VCPU 0: split_user %llu (user %llu), kernel %llu (%llu "
	       "unresolved), ratio %.4f want %.4f (%+.2f%%); VCPU 1: %llu guest; xen %llu "
	       "(%.2f%%), %llu at the exit label\n", d, u, uall, k, ku, got, want,
	       100.0 * (got - want) / want, other, x, all ? 100.0 * (double)x / all : 0.0, xexit);
	if (u + k < 500 || got < 0.95 * want || got > 1.05 * want)
		bad++;
	if (ku * 10 > k || xexit || (double)x > 0.02 * all)
		bad++;
	printf("PMUVIRT-XEN-SPLIT-CHECK-%s %s\n", bad ? "FAILED" : "PASSED", d);
	return bad ? 1 : 0;
}

/* The domain part of a report's domain column: "d2v0" -> "d2". */
static void domain_of(const char *col, char *out, size_t len)
{
	size_t n = strcspn(col, "v");

	snprintf(out, len, "%.*s", (int)n, col);
}

/* An active domain's own report: nothing of another domain's, no address of Xen's. */
static int activecheck(const char *path, const char *d, double kticks, double uticks, int pv)
{
	unsigned long long u, k, ku, x, kx, all, foreign = 0, xen_ip = 0, rings = 0, foreign_rings = 0;
	double want = uticks / kticks, got;
	char text[512], v0[24], dom[24], ringdom[24];
	struct line l;
	FILE *f = fopen(path, "r");
	int bad = 0;

	if (!f) {
		printf("PMUVIRT-XEN-ACTIVE-CHECK-FAILED %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(text, sizeof(text), f)) {
		unsigned int i;

		if (sscanf(text, "#   ring %u (%23s", &i, ringdom) == 2) {
			rings++;
			foreign_rings += strcmp(ringdom, d) != 0;
			continue;
		}
		if (text[0] == '#' || !parse(text, &l))
			continue;
		domain_of(l.domain, dom, sizeof(dom));
		if (strcmp(dom, d))
			foreign += l.weight;
		if (!strcmp(l.mode, "xen") && strcmp(l.symbol, "[xen:"))
			xen_ip += l.weight;
	}
	fclose(f);
	snprintf(v0, sizeof(v0), "%sv0", d);
	u = sum(path, v0, "user", "split_user", 0);
	k = sum(path, v0, "kernel", NULL, 0);
	ku = sum(path, v0, "kernel", NULL, 1);
	x = sum(path, v0, "xen", NULL, 0);
	all = sum(path, v0, NULL, NULL, 0);
	kx = pv ? k + x : k;
	got = kx ? (double)u / (double)kx : 0;
	printf("PMUVIRT-XEN-ACTIVE-CHECK %s: %llu rings (%llu of another domain), %llu samples of "
	       "another domain, %llu of Xen with an IP; VCPU 0: split_user %llu, kernel %llu (%llu "
	       "unresolved)%s xen %llu of %llu, ratio %.4f want %.4f (%+.2f%%)\n", d, rings,
	       foreign_rings, foreign, xen_ip, u, k, ku, pv ? " +" : ", left out:", x, all, got,
	       want, 100.0 * (got - want) / want);
	if (!rings || foreign_rings || foreign || xen_ip)
		bad++;
	if (!pv && (double)x > 0.02 * (double)all)
		bad++;
	if (u + k < 500 || ku * 10 > k || got < 0.95 * want || got > 1.05 * want)
		bad++;
	printf("PMUVIRT-XEN-ACTIVE-CHECK-%s %s\n", bad ? "FAILED" : "PASSED", d);
	return bad ? 1 : 0;
}


/* "chainrun CPU N": chain_probe.ko's loops on VCPU CPU, in this process's context. */
static int chainrun(int cpu, const char *n)
{
	cpu_set_t cpus;
	uint64_t t0, t1;
	ssize_t w;
	int fd;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		printf("PMUVIRT-XEN-CHAIN-RUN-FAILED cpu %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	fd = open("/proc/pmuvirt_chain_probe", O_WRONLY);
	if (fd < 0) {
		printf("PMUVIRT-XEN-CHAIN-RUN-FAILED /proc/pmuvirt_chain_probe: %s\n", strerror(errno));
		return 1;
	}
	t0 = split_rdtsc();
	w = write(fd, n, strlen(n));
	t1 = split_rdtsc();
	close(fd);
	printf("PMUVIRT-XEN-CHAIN-RUN cpu %d iterations %s ticks %llu: %s\n", cpu, n,
	       (unsigned long long)(t1 - t0), w == (ssize_t)strlen(n) ? "ok" : strerror(errno));
	return w == (ssize_t)strlen(n) ? 0 : 1;
}

/* An address in Xen's part of a 64-bit PV guest's address space. */
static int xen_addr(unsigned long long a)
{
	return a >= 0xffff800000000000ull && a < 0xffff880000000000ull;
}

/* "chaincheck FOLDED DUMP dN": the leaf's callers 3:1, each sample with one; no Xen address. */
static int chaincheck(const char *folded, const char *dump, const char *d)
{
	static const char leaf[] = "chain_probe_leaf_[k]";
	unsigned long long a = 0, b = 0, other = 0, xen = 0, recs = 0, nleaf = 0, depth_sum = 0;
	unsigned int depth_min = ~0u, depth_max = 0;
	char text[8192];
	double ratio;
	size_t dl = strlen(d);
	FILE *f = fopen(folded, "r");
	int bad = 0;

	if (!f) {
		printf("PMUVIRT-XEN-CHAIN-CHECK-FAILED %s: %s\n", folded, strerror(errno));
		return 1;
	}
	while (fgets(text, sizeof(text), f)) {
		char *sp = strrchr(text, ' '), *last, *prev;
		unsigned long long w;

		if (!sp || strncmp(text, d, dl) || text[dl] != ';')
			continue;
		*sp = 0;
		w = strtoull(sp + 1, NULL, 10);
		last = strrchr(text, ';');
		if (strcmp(last + 1, leaf))
			continue;
		*last = 0;
		prev = strrchr(text, ';');
		if (prev && prev != text + dl && !strcmp(prev + 1, "chain_probe_a_[k]"))
			a += w;
		else if (prev && prev != text + dl && !strcmp(prev + 1, "chain_probe_b_[k]"))
			b += w;
		else
			other += w;
	}
	fclose(f);
	f = fopen(dump, "r");
	if (!f) {
		printf("PMUVIRT-XEN-CHAIN-CHECK-FAILED %s: %s\n", dump, strerror(errno));
		return 1;
	}
	while (fgets(text, sizeof(text), f)) {
		char *ip = strstr(text, " ip 0x"), *ch = strstr(text, " chain "), *tok;
		unsigned int n = 0;

		if (!ip)
			continue;
		recs++;
		xen += xen_addr(strtoull(ip + 4, NULL, 16));
		for (tok = ch ? strtok(ch + 7, " \n") : NULL; tok; tok = strtok(NULL, " \n"))
			if (!strncmp(tok, "0x", 2)) {
				xen += xen_addr(strtoull(tok, NULL, 16));
				n++;
			}
		if (strncmp(text, d, dl) || text[dl] != ' ' || !strstr(text, leaf))
			continue;
		if (strstr(text, leaf) > (ch ? ch : text + strlen(text)))
			continue;	/* the leaf as a caller only */
		nleaf++;
		depth_sum += n;
		depth_min = n < depth_min ? n : depth_min;
		depth_max = n > depth_max ? n : depth_max;
	}
	fclose(f);
	ratio = b ? (double)a / (double)b : 0;
	printf("PMUVIRT-XEN-CHAIN-CHECK %s: leaf weight %llu: from chain_probe_a %llu, from "
	       "chain_probe_b %llu, no caller of the two %llu; ratio %.4f want 3 (%+.2f%%); %llu "
	       "leaf records, chain depth min %u mean %.2f max %u; %llu records, %llu Xen addresses\n",
	       d, a + b + other, a, b, other, ratio, 100.0 * (ratio - 3) / 3, nleaf,
	       nleaf ? depth_min : 0, nleaf ? (double)depth_sum / (double)nleaf : 0.0, depth_max,
	       recs, xen);
	if (a + b < 200 || other || xen || ratio < 3 * 0.97 || ratio > 3 * 1.03)
		bad++;
	printf("PMUVIRT-XEN-CHAIN-CHECK-%s %s\n", bad ? "FAILED" : "PASSED", d);
	return bad ? 1 : 0;
}

/* An open of /dev/pmuvirt-xenprof in a child without @cap (or as nobody): its errno. */
static int devopen_without(int cap, int as_nobody)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	pid_t pid = fork();
	int st, fd;

	if (pid < 0)
		return -1;
	if (!pid) {
		if (as_nobody && setuid(65534))
			_exit(255);
		if (!as_nobody) {
			if (syscall(SYS_capget, &h, d))
				_exit(255);
			d[cap / 32].effective &= ~(1u << (cap % 32));
			if (syscall(SYS_capset, &h, d))
				_exit(255);
		}
		fd = open("/dev/pmuvirt-xenprof", O_RDWR);
		_exit(fd < 0 ? (errno & 0xff) : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * "xen_prof_test devperm" in a PVH or HVM domU with pmuvirt.ko: root opens
 * /dev/pmuvirt-xenprof; root without CAP_SYS_ADMIN gets EPERM (the
 * module's check), nobody gets EACCES (the node's mode) or EPERM.
 */
static int devperm(void)
{
	int fd = open("/dev/pmuvirt-xenprof", O_RDWR), e, bad = 0;

	printf("devperm: root: %s\n", fd < 0 ? strerror(errno) : "opened");
	if (fd < 0)
		bad++;
	else
		close(fd);
	e = devopen_without(CAP_SYS_ADMIN, 0);
	printf("devperm: root without CAP_SYS_ADMIN: %s\n", e > 0 && e < 255 ? strerror(e) :
	       e ? "no result" : "opened");
	if (e != EPERM)
		bad++;
	e = devopen_without(0, 1);
	printf("devperm: nobody: %s\n", e > 0 && e < 255 ? strerror(e) : e ? "no result" : "opened");
	if (e != EACCES && e != EPERM)
		bad++;
	printf("PMUVIRT-XEN-DEVPERM-%s\n", bad ? "FAILED" : "PASSED");
	return bad ? 1 : 0;
}

static int nopmu(void)
{
	struct pmuvirt_xen_prof_start op;

	start_op(&op, PMUVIRT_EV_CYCLES);
	expect("START on the TSC alone", hc(PMUVIRT_XEN_PROF_START, &op), -ENODEV);
	expect("  no session", simple(PMUVIRT_XEN_PROF_STOP, 0), -ENOENT);
	printf("PMUVIRT-XEN-PROF-NOPMU-%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "nopmu")) {
		if (open_privcmd() < 0)
			return 1;
		return nopmu();
	}
	if (argc == 2 && !strcmp(argv[1], "rules")) {
		if (open_privcmd() < 0) {
			printf("PMUVIRT-XEN-PROF-FAIL no privcmd: %s\n", strerror(errno));
			return 1;
		}
		return rules();
	}
	if (argc == 3 && !strcmp(argv[1], "hot")) {
		rounds = strtoull(argv[2], NULL, 0);
		if (open_privcmd() < 0)
			return 1;
		return hot();
	}
	if (argc == 8 && !strcmp(argv[1], "check") && !strcmp(argv[6], "virq"))
		return check_virq(argv[2], argv[7],
				  (strtod(argv[4], NULL) + strtod(argv[5], NULL)) / strtod(argv[3], NULL));
	if ((argc == 6 || (argc == 7 && !strcmp(argv[6], "lossy"))) && !strcmp(argv[1], "check"))
		return check(argv[2], strtod(argv[3], NULL), strtod(argv[4], NULL),
			     strtod(argv[5], NULL), argc == 7);
	if (argc == 5 && !strcmp(argv[1], "domus"))
		return domus(argv[2], argv[3], argv[4]);
	if (argc == 2 && !strcmp(argv[1], "crng"))
		return crng();
	if (argc == 4 && !strcmp(argv[1], "split"))
		return split(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	if (argc == 6 && !strcmp(argv[1], "splitcheck"))
		return splitcheck(argv[2], argv[3], strtod(argv[4], NULL), strtod(argv[5], NULL));
	if (argc == 2 && !strcmp(argv[1], "devperm"))
		return devperm();
	if (argc == 4 && !strcmp(argv[1], "chainrun"))
		return chainrun(atoi(argv[2]), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "chaincheck"))
		return chaincheck(argv[2], argv[3], argv[4]);
	if (argc == 7 && !strcmp(argv[1], "activecheck") &&
	    (!strcmp(argv[6], "pv") || !strcmp(argv[6], "pvh")))
		return activecheck(argv[2], argv[3], strtod(argv[4], NULL), strtod(argv[5], NULL),
				   !strcmp(argv[6], "pv"));
	fprintf(stderr, "usage: xen_prof_test rules | nopmu | hot ROUNDS | check REPORT PERIOD WORK_A "
		"WORK_B [lossy | virq LOG] | domus REPORT DOMA DOMB | crng | split TICKS ROUNDS | "
		"splitcheck REPORT dN KERNEL_TICKS USER_TICKS | "
		"activecheck REPORT dN KERNEL_TICKS USER_TICKS pv|pvh | devperm | chainrun CPU N | "
		"chaincheck FOLDED DUMP dN\n");
	return 2;
}
