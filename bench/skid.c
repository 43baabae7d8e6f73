// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * skid: how far the IP of pmuvirt.ko's sample records lies from the
 * instruction that made the sampling counter overflow (bench/skid.sh runs
 * it in the icount guests: x86 on the module's emulated PMU, POWER9 on
 * QEMU's PMU).
 *
 * The thread runs bursts of a loop of SKID_L instructions at known
 * addresses.  Each burst starts with an anchor that places every later
 * instruction of the burst in the counter's own count:
 *
 *  - x86 (emulated PMU, -icount shift=0): the emulated instructions counter
 *    counts TSC ticks, one per instruction, while the thread runs (until
 *    a PMI stops it for a while).  The burst reads the TSC with rdtsc; the
 *    loop's instruction at position p of iteration i executes
 *    3 + i * L + p ticks later.  Before the burst, one READ gives the
 *    counter and the thread's virtual TSC, read one after the other by
 *    the module; their difference says at which virtual TSC the counter
 *    reaches its next boundary.  The instructions between the two reads
 *    (the module's own) make the skid come out that much too high when
 *    the TSC is read first (tsc-first) and too low when it is read last
 *    (tsc-last): the two runs bound it.
 *  - POWER: PMC5 counts instructions and overflows when it reaches
 *    0x80000000.  The burst reads PMC5 (mfspr UPMC5, SPR 775) as the first
 *    instruction of a translation block, where QEMU's count holds every
 *    instruction before it; the overflow is then the
 *    (0x80000000 - PMC5)-th instruction from the read on.
 *
 * For each record whose IP is in the loop, the skid is the number of
 * instructions from the overflowing one to the IP in execution order:
 * 0 when the IP names the overflowing instruction, 1 when it names the
 * next one (where an interrupt taken right after it resumes).
 *
 * usage: skid [PERIOD [SAMPLES [tsc-first|tsc-last]]]   (default 20011, 10000, tsc-first)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pmuvirt/user.h>
#include "libpmuvirt-user.h"

#define RING_PAGES	256
#define DRAIN_EVERY	128		/* bursts between two drains of the ring */
#define MAX_RECORDS	(1u << 16)

#if defined(__x86_64__)
#define SKID_L		4096u		/* loop instructions: SKID_L - 2 nops, dec, jnz */
#define SKID_N		2u		/* iterations per burst */
#define SKID_FIRST	3u		/* the loop's first instruction, counted from rdtsc */
#define ARCH		"x86-64, emulated PMU"

extern const char skid_loop[], skid_dec[], skid_jnz[], skid_loop_end[];

/*
 * One burst: returns the TSC at the first rdtsc, SKID_FIRST instructions
 * before the loop, and in @end the TSC at the second, SKID_N * SKID_L + 1
 * instructions after the loop's first.
 */
static __attribute__((noinline)) uint64_t burst(uint64_t *end)
{
	uint64_t t, t2, n = SKID_N;

	__asm__ __volatile__("rdtsc\n\t"
			     "shl $32, %%rdx\n\t"
			     "or %%rdx, %%rax\n"
			     ".globl skid_loop\n"
			     "skid_loop:\n\t"
			     ".rept 4094\n\tnop\n\t.endr\n"
			     ".globl skid_dec\n"
			     "skid_dec:\n\t"
			     "dec %%rcx\n"
			     ".globl skid_jnz\n"
			     "skid_jnz:\n\t"
			     "jnz skid_loop\n"
			     ".globl skid_loop_end\n"
			     "skid_loop_end:\n\t"
			     "mov %%rax, %%rsi\n\t"
			     "rdtsc\n\t"
			     "shl $32, %%rdx\n\t"
			     "or %%rdx, %%rax\n\t"
			     "xchg %%rax, %%rsi\n"
			     : "=a"(t), "=S"(t2), "+c"(n) : : "rdx", "cc", "memory");
	*end = t2;
	return t;
}
#elif defined(__powerpc64__)
#define SKID_L		1016u		/* loop instructions: SKID_L - 1 nops, bdnz */
#define SKID_N		8u
#define SKID_FIRST	3u		/* mfspr is instruction 0, mtctr 1, b 2 */
#define ARCH		"POWER, QEMU's PMU"

extern const char skid_burst[], skid_loop[], skid_loop_end[], skid_burst_end[];

/*
 * One burst: returns PMC5 as the first mfspr found it, and in @end as the
 * second did, SKID_N * SKID_L + 1 instructions after the loop's first.
 * The branch before each ends a translation block, so the mfspr starts
 * one: QEMU adds a block's instructions to PMC5 when the block ends.  The
 * burst lies in one 4 KiB page: QEMU 10.0 leaves out of PMC5 the
 * instructions of a block that ends in a jump to another page.
 */
static __attribute__((noinline)) uint64_t burst(uint64_t *end)
{
	uint64_t pmc, pmc2, n = SKID_N;

	__asm__ __volatile__(".p2align 12\n"
			     ".globl skid_burst\n"
			     "skid_burst:\n\t"
			     "b 1f\n"
			     "1:\tmfspr %0, 775\n\t"
			     "mtctr %2\n\t"
			     "b skid_loop\n"
			     ".globl skid_loop\n"
			     "skid_loop:\n\t"
			     ".rept 1015\n\tnop\n\t.endr\n\t"
			     "bdnz skid_loop\n"
			     ".globl skid_loop_end\n"
			     "skid_loop_end:\n\t"
			     "b 2f\n"
			     "2:\tmfspr %1, 775\n"
			     ".globl skid_burst_end\n"
			     "skid_burst_end:\n"
			     : "=&r"(pmc), "=&r"(pmc2) : "r"(n) : "ctr", "memory");
	*end = pmc2;
	return pmc;
}
#else
#error "skid: x86-64 or ppc64 only"
#endif

/* What each burst's anchor says. */
struct burst_rec {
	uint64_t anchor;	/* x86: virtual TSC at rdtsc; POWER: 1 when the burst holds an overflow */
	uint32_t head;		/* the ring's head after the burst (POWER) */
	uint64_t read;		/* x86: the counter's value at the read before the burst */
	uint64_t offset;	/* x86: virtual TSC less the counter's value, at that read */
	uint32_t dist;		/* POWER: the overflowing instruction is number dist - 1 from the mfspr (0) */
};

struct rec {
	uint64_t ip;
	uint64_t value[3];
	uint32_t weight;
	uint16_t flags;
	uint8_t nr_values;
};

static struct burst_rec *bursts;
static size_t nr_bursts, max_bursts;
static struct rec recs[MAX_RECORDS];
static unsigned int nr_recs;
static uint64_t lost_reads;

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void drain(struct pmuvirt_sample_reader *r, int fd)
{
	struct pmuvirt_sample out[32];
	int n, i;

	while ((n = pmuvirt_sample_read(r, out, 32)) > 0)
		for (i = 0; i < n && nr_recs < MAX_RECORDS; i++) {
			struct rec *c = &recs[nr_recs++];
			unsigned int k;

			c->ip = out[i].ip;
			c->weight = out[i].weight;
			c->flags = out[i].flags;
			c->nr_values = out[i].nr_values < 3 ? out[i].nr_values : 3;
			for (k = 0; k < c->nr_values; k++)
				c->value[k] = out[i].value[k];
		}
	if (n < 0) {
		pmuvirt_sample_resync(r);
		lost_reads++;
	}
	pmuvirt_user_sample_tail(fd, r);
}

/* A counter's shared fields, consistent. */
static int shared_counter(const struct pmuvirt_shared_ctx *rec, unsigned int i,
			  uint64_t *count, uint64_t *start, uint32_t *index)
{
	const volatile struct pmuvirt_shared_ctx *r = rec;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		uint32_t seq = r->seq;

		if (seq & 1)
			continue;
		pmuvirt_user_rmb();
		*count = r->counter[i].count;
		*start = r->counter[i].start;
		*index = r->counter[i].index;
		pmuvirt_user_rmb();
		if (r->seq == seq)
			return 0;
	}
	return -1;
}

/* The loop position of @ip: 0 to SKID_L - 1, SKID_L after the loop, -1 elsewhere. */
static int64_t ip_pos(uint64_t ip)
{
	uint64_t loop = (uint64_t)(uintptr_t)skid_loop, end = (uint64_t)(uintptr_t)skid_loop_end;

#ifdef __x86_64__
	if (ip >= loop && ip < (uint64_t)(uintptr_t)skid_dec)
		return (int64_t)(ip - loop);
	if (ip == (uint64_t)(uintptr_t)skid_dec)
		return SKID_L - 2;
	if (ip == (uint64_t)(uintptr_t)skid_jnz)
		return SKID_L - 1;
	if (ip == end)
		return SKID_L;
#else
	if (ip >= loop && ip <= end && !((ip - loop) % 4))
		return (int64_t)((ip - loop) / 4);
#endif
	return -1;
}

/*
 * A delay of a pseudo-random length before each burst, so that the
 * overflows fall at every position of the loop (the PMI path's own
 * events would otherwise repeat the same few positions).
 */
static void delay(uint64_t *seed)
{
	uint64_t k;

	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	for (k = *seed >> 53; k; k--)
		__asm__ __volatile__("" : : : "memory");
}

static void pin0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

int main(int argc, char **argv)
{
	uint64_t period = argc > 1 ? strtoull(argv[1], NULL, 0) : 20011;
	unsigned int want = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 10000;
	size_t ring_len = (size_t)RING_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	uint64_t loop = (uint64_t)(uintptr_t)skid_loop, loop_end = (uint64_t)(uintptr_t)skid_loop_end;
	unsigned int out_loop = 0, late = 0, kernel = 0, unmatched = 0, nr_skid = 0, i;
	uint64_t bad_anchor = 0, exact = 0, seed = 1;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int tsc_last = argc > 3 && !strcmp(argv[3], "tsc-last");
	unsigned int icnt, nctr, tsc;
	int64_t *skid;
	void *ring;
	int fd;

#ifdef __x86_64__
	if ((uint64_t)(uintptr_t)skid_dec - loop != SKID_L - 2) {
#else
	if (loop_end - loop != 4 * SKID_L ||
	    (uintptr_t)skid_burst >> 12 != ((uintptr_t)skid_burst_end - 1) >> 12) {
#endif
		fprintf(stderr, "skid: the loop is %" PRIu64 " bytes\n", loop_end - loop);
		return 1;
	}
	signal(SIGIO, SIG_IGN);
	pin0();
	fd = pmuvirt_user_open(1);
	if (fd < 0) {
		perror("skid: open");
		return 1;
	}
	/*
	 * x86: instructions (sampling) and the TSC, in the order @tsc_last
	 * says: the PMI reads them in that order.  POWER: instructions alone
	 * (PMC5).
	 */
	memset(&ctl, 0, sizeof(ctl));
	ctl.version = PMUVIRT_ABI_VERSION;
#ifdef __x86_64__
	icnt = tsc_last ? 0 : 1;
	tsc = !icnt;
	nctr = 2;
	ctl.counter[tsc].event = PMUVIRT_EV_TSC;
#else
	(void)tsc_last;
	icnt = 0;
	tsc = 0;
	nctr = 1;
#endif
	ctl.nr_counters = nctr;
	ctl.counter[icnt].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[icnt].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_SAMPLE |
				  PMUVIRT_CTR_SAMPLE_VALUES;
	ctl.counter[icnt].period = period;
	if (pmuvirt_user_attach_ring(&u, fd, &ctl, 0, 0, RING_PAGES)) {
		perror("skid: attach");
		return 1;
	}
	if (!u.rec) {
		fprintf(stderr, "skid: no shared record\n");
		return 1;
	}
	ring = mmap(NULL, ring_len, PROT_READ, MAP_SHARED, fd,
		    (off_t)PMUVIRT_SAMPLE_PGOFF * sysconf(_SC_PAGESIZE));
	if (ring == MAP_FAILED || pmuvirt_sample_reader_init(&r, ring, ring_len)) {
		perror("skid: ring");
		return 1;
	}
	max_bursts = (size_t)want * period / (SKID_N * SKID_L) + 16;
	bursts = calloc(max_bursts, sizeof(*bursts));
	skid = calloc(MAX_RECORDS, sizeof(*skid));
	if (!bursts || !skid)
		return 1;

	for (nr_bursts = 0; nr_bursts < max_bursts && nr_recs < want; nr_bursts++) {
		struct burst_rec *b = &bursts[nr_bursts];
		uint64_t count, start, a, a_end;
#ifdef __x86_64__
		uint64_t vals[PMUVIRT_MAX_COUNTERS];
#endif
		uint32_t index;

		if (shared_counter(u.rec, tsc, &count, &start, &index)) {
			b->head = ((const volatile struct pmuvirt_sample_ring *)ring)->head;
			bad_anchor++;
			continue;
		}
		delay(&seed);
#ifdef __x86_64__
		/*
		 * Both counters, read one right after the other: the TSC less
		 * the counter holds until the next PMI stops the counter.
		 */
		if (pmuvirt_user_read_ioctl(&u, vals)) {
			perror("skid: read");
			return 1;
		}
#endif
		a = burst(&a_end);
		/* the anchor's check: an undisturbed burst is SKID_N * SKID_L + 4 instructions */
		if (a_end - a == SKID_N * SKID_L + 4)
			exact++;

#ifdef __x86_64__
		/* the TSC counter's virtual value at the rdtsc: count + (raw - start) */
		b->anchor = count + (a - start);
		b->read = vals[icnt];
		b->offset = vals[tsc] - vals[icnt];
#else
		{
			uint64_t pmc = a & 0xffffffffu, d = 0x80000000u - pmc;

			/*
			 * index: PMC5 is counter 4, plus one.  The overflow is
			 * instruction d - 1 from the mfspr (0); the loop's are
			 * SKID_FIRST to SKID_FIRST + SKID_N * SKID_L - 1.
			 */
			(void)count;
			(void)start;
			if (index != 5 || pmc >= 0x80000000u)
				bad_anchor++;
			else if (d > SKID_FIRST && d <= SKID_FIRST + SKID_N * SKID_L) {
				b->anchor = 1;
				b->dist = (uint32_t)d;
			}
			b->head = ((const volatile struct pmuvirt_sample_ring *)ring)->head;
		}
#endif
		if (nr_bursts % DRAIN_EVERY == DRAIN_EVERY - 1)
			drain(&r, fd);
	}
	drain(&r, fd);

	for (i = 0; i < nr_recs; i++) {
		const struct rec *c = &recs[i];
		int64_t pos = ip_pos(c->ip), s;
		uint64_t v, bnd;

		if (!(c->flags & PMUVIRT_SAMPLE_USER)) {
			kernel++;
			continue;
		}
		if (pos < 0) {
			out_loop++;
			continue;
		}
		if (c->weight != 1) {
			late++;
			continue;
		}
		if (c->nr_values < nctr) {
			unmatched++;
			continue;
		}
		v = c->value[icnt];
		bnd = v - v % period;
#if defined(__x86_64__)
		{
			uint64_t tb1 = c->value[tsc];
			uint64_t t_irq, first;
			size_t lo = 0, hi = nr_bursts;

			/* the last burst that began at or before the first TSC read */
			while (hi - lo > 1) {
				size_t mid = (lo + hi) / 2;

				if (bursts[mid].anchor <= tb1)
					lo = mid;
				else
					hi = mid;
			}
			first = bursts[lo].anchor + SKID_FIRST + (uint64_t)pos;
			if (bursts[lo].anchor > tb1 || first > tb1) {
				unmatched++;
				continue;
			}
			/*
			 * The IP's time: the latest execution of its position in
			 * that burst before the read (the PMI path from the
			 * interrupt to the read is shorter than the loop).
			 */
			t_irq = first + (tb1 - first) / SKID_L * SKID_L;
			if (pos < SKID_L ? (t_irq - first) / SKID_L >= SKID_N : t_irq != first) {
				unmatched++;
				continue;
			}
			/*
			 * The overflow: the virtual TSC at which the counter
			 * reached bnd, by the offset read before the burst, when
			 * no boundary came between that read and this one.
			 */
			if (bursts[lo].read >= bnd || bnd - bursts[lo].read > period) {
				unmatched++;
				continue;
			}
			s = (int64_t)(t_irq - (bnd + bursts[lo].offset));
		}
#else
		{
			uint64_t k_ovf, k_ip;
			size_t j;
			int found = 0;

			/*
			 * The burst that made record i: the first whose head
			 * after it passed i (records come in order, none lost).
			 */
			size_t lo = 0, hi = nr_bursts;

			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (bursts[mid].head > i)
					hi = mid;
				else
					lo = mid + 1;
			}
			j = lo;
			found = j < nr_bursts && bursts[j].anchor && !pmuvirt_sample_lost(&r);
			(void)bnd;
			if (!found) {
				unmatched++;
				continue;
			}
			/*
			 * The loop's instructions are numbers SKID_FIRST on.
			 * The IP's: the first execution of its position at or
			 * after it (a skid below the loop's length).
			 */
			k_ovf = bursts[j].dist - 1 - SKID_FIRST;
			if (pos == SKID_L)
				k_ip = (uint64_t)SKID_N * SKID_L;
			else
				k_ip = k_ovf + ((uint64_t)pos + SKID_L - k_ovf % SKID_L) % SKID_L;
			if (k_ip < k_ovf || k_ip > (uint64_t)SKID_N * SKID_L) {
				unmatched++;
				continue;
			}
			s = (int64_t)(k_ip - k_ovf);
		}
#endif
		skid[nr_skid++] = s;
	}
	qsort(skid, nr_skid, sizeof(*skid), cmp_i64);
	printf("skid: %s, period %" PRIu64 ", loop of %u instructions at %#" PRIx64 ", %zu bursts of %u\n",
	       ARCH, period, SKID_L, loop, nr_bursts, SKID_N);
	printf("skid: records %u: measured %u, IP outside the loop %u, kernel %u, late (weight > 1) %u, "
	       "no anchor %u; lost %u, ring resyncs %" PRIu64 ", bad anchors %" PRIu64 "\n",
	       nr_recs, nr_skid, out_loop, kernel, late, unmatched, pmuvirt_sample_lost(&r),
	       lost_reads, bad_anchor);
	printf("skid: anchor check: %" PRIu64 " of %zu bursts read exactly %u instructions between their two reads\n",
	       exact, nr_bursts, SKID_N * SKID_L + 4);
	if (!nr_skid) {
		printf("skid: nothing measured\n");
		return 1;
	}
	{
		unsigned int zero = 0, one = 0, neg = 0;

		for (i = 0; i < nr_skid; i++) {
			zero += skid[i] == 0;
			one += skid[i] == 1;
			neg += skid[i] < 0;
		}
		printf("skid: instructions from the overflowing one to the IP: min %" PRId64
		       " median %" PRId64 " p90 %" PRId64 " p99 %" PRId64 " max %" PRId64
		       "; zero %.1f%%, one %.1f%%, negative %.1f%%\n",
		       skid[0], skid[nr_skid / 2], skid[(size_t)nr_skid * 9 / 10],
		       skid[(size_t)nr_skid * 99 / 100], skid[nr_skid - 1],
		       100.0 * zero / nr_skid, 100.0 * one / nr_skid, 100.0 * neg / nr_skid);
#ifdef __x86_64__
		printf("skid: the PMI read the TSC %s the counter: these are %s bounds\n",
		       tsc_last ? "after" : "before", tsc_last ? "lower" : "upper");
#endif
	}
	{
		/* where the IPs fall in the loop */
		static unsigned int at[SKID_L + 1];
		unsigned int distinct = 0, top = 0, top_pos = 0;

		for (i = 0; i < nr_recs; i++)
			if ((recs[i].flags & PMUVIRT_SAMPLE_USER) && ip_pos(recs[i].ip) >= 0)
				at[ip_pos(recs[i].ip)]++;
		for (i = 0; i <= SKID_L; i++) {
			distinct += at[i] != 0;
			if (at[i] > top) {
				top = at[i];
				top_pos = i;
			}
		}
		printf("skid: IPs in the loop at %u of its %u positions; the most at position %u (%u records)\n",
		       distinct, SKID_L + 1, top_pos, top);
		for (i = 0; i <= SKID_L && distinct <= 16; i++)
			if (at[i])
				printf("skid:   position %u: %u records\n", i, at[i]);
	}
	printf("SKID-RESULT: %s%s median %" PRId64 " max %" PRId64 " n %u\n", ARCH,
#ifdef __x86_64__
	       tsc_last ? " (tsc-last)" : " (tsc-first)",
#else
	       "",
#endif
	       skid[nr_skid / 2],
	       skid[nr_skid - 1], nr_skid);
	return 0;
}
