/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* vmtest: call chains of per-thread sampling on POWER (the back chain). */
#include "vmtest.h"

#ifdef __powerpc64__
/*
 * chain_top(k) calls chain_via_a(3k), then chain_via_b(k); both call
 * chain_leaf(n), a loop of 2n instructions.  Each function saves LR in its
 * caller's frame and then makes its own, as compiled code does, so a leaf
 * record's chain is: chain_via_a or chain_via_b, chain_top, its C caller.
 * The IP alone cannot tell the two callers' shares apart: it is the
 * leaf's.  256-byte aligned: the whole block lies within one page.
 */
__asm__(".text\n.p2align 8\n"
	".globl chain_leaf\n.type chain_leaf, @function\nchain_leaf:\n"
	"\tmflr 0\n\tstd 0,16(1)\n\tstdu 1,-32(1)\n"
	"1:\taddic. 3,3,-1\n\tbne 1b\n"
	"\taddi 1,1,32\n\tld 0,16(1)\n\tmtlr 0\n\tblr\n"
	".size chain_leaf, . - chain_leaf\n"
	".globl chain_via_a\n.type chain_via_a, @function\nchain_via_a:\n"
	"\tmflr 0\n\tstd 0,16(1)\n\tstdu 1,-32(1)\n\tbl chain_leaf\n"
	"\taddi 1,1,32\n\tld 0,16(1)\n\tmtlr 0\n\tblr\n"
	".size chain_via_a, . - chain_via_a\n"
	".globl chain_via_b\n.type chain_via_b, @function\nchain_via_b:\n"
	"\tmflr 0\n\tstd 0,16(1)\n\tstdu 1,-32(1)\n\tbl chain_leaf\n"
	"\taddi 1,1,32\n\tld 0,16(1)\n\tmtlr 0\n\tblr\n"
	".size chain_via_b, . - chain_via_b\n"
	".globl chain_top\n.type chain_top, @function\nchain_top:\n"
	"\tmflr 0\n\tstd 0,16(1)\n\tstdu 1,-48(1)\n\tstd 31,40(1)\n\tmr 31,3\n"
	"\tsldi 3,31,1\n\tadd 3,3,31\n\tbl chain_via_a\n"
	"\tmr 3,31\n\tbl chain_via_b\n"
	"\tld 31,40(1)\n\taddi 1,1,48\n\tld 0,16(1)\n\tmtlr 0\n\tblr\n"
	".size chain_top, . - chain_top\n"
	".globl chain_end\nchain_end:\n");
extern void chain_leaf(uint64_t), chain_via_a(uint64_t), chain_via_b(uint64_t), chain_top(uint64_t);
extern const char chain_end[];
#define ADDR(f)		((uint64_t)(uintptr_t)(f))

#define CHAIN_PERIOD	20000	/* 50000 PMIs per second under icount: below max_pmi_rate */
#define CHAIN_K		500000ull	/* chain_via_b's iterations per round; chain_via_a's 3 * K */
#define CHAIN_ROUNDS	20
#define CHAIN_DEPTH	32
#define CHAIN_PAGES	8
#define CHAIN_READS	16	/* preads of CHAIN_FILE per round: work in the kernel */
#define CHAIN_FILE_SIZE	(256 * 1024)
#define CHAIN_FILE	"/chain.data"
#define KERNEL_BASE	0xc000000000000000ull	/* Linux on 64-bit POWER: kernel addresses */

struct chain_stats {
	uint64_t records, lost, wrong_mode;
	uint64_t leaf, leaf_weight, via[2], no_caller, not_top, unchained, other;
	uint64_t user_kframes;		/* user-mode records with kernel frames */
	uint64_t kernel, kdepth[3];	/* kernel-mode records by kernel frames: 0, 1, 2+ */
	uint64_t kbad, no_entry;	/* kernel frames outside the kernel, no user entry frame */
	uint64_t entry_repeat;		/* the entry frame twice (scv leaves it in LR too) */
	unsigned int max_kernel;
	uint64_t deepest[CHAIN_DEPTH + 1];	/* the IP and chain of the first record that deep */
	unsigned int nr_deepest;
};

static int in_range(uint64_t a, uint64_t lo, uint64_t hi)
{
	return a >= lo && a < hi;
}

static void chain_account(struct chain_stats *st, const struct pmuvirt_sample *s,
			  const struct pmuvirt_sample_chain *c)
{
	const uint64_t *uf = c->frame + s->nr_kernel;
	unsigned int i;

	st->records++;
	if (!(s->flags & PMUVIRT_SAMPLE_USER) != (s->ip >= KERNEL_BASE))
		st->wrong_mode++;
	if (s->flags & PMUVIRT_SAMPLE_USER) {
		if (s->nr_kernel)
			st->user_kframes++;
		if (!in_range(s->ip, ADDR(chain_leaf), ADDR(chain_via_a))) {
			st->other++;
			return;
		}
		st->leaf++;
		st->leaf_weight += s->weight;
		if (!s->nr_user) {
			/* no walk: a PMI handled for a thread a switch brings in */
			st->unchained++;
			return;
		}
		if (in_range(uf[0], ADDR(chain_via_a), ADDR(chain_via_b)))
			st->via[0]++;
		else if (in_range(uf[0], ADDR(chain_via_b), ADDR(chain_top)))
			st->via[1]++;
		else
			st->no_caller++;
		/* the leaf's saved LR repeats LR: dropped, chain_top comes next */
		if (s->nr_user < 2 || !in_range(uf[1], ADDR(chain_top), ADDR(chain_end)))
			st->not_top++;
		return;
	}
	st->kernel++;
	st->kdepth[s->nr_kernel >= 2 ? 2 : s->nr_kernel]++;
	if (s->nr_kernel > st->max_kernel) {
		st->max_kernel = s->nr_kernel;
		st->deepest[0] = s->ip;
		st->nr_deepest = 1 + s->nr_kernel + s->nr_user;
		if (st->nr_deepest > CHAIN_DEPTH + 1)
			st->nr_deepest = CHAIN_DEPTH + 1;
		memcpy(&st->deepest[1], c->frame, (st->nr_deepest - 1) * sizeof(c->frame[0]));
	}
	for (i = 0; i < s->nr_kernel; i++)
		if (c->frame[i] < KERNEL_BASE)
			st->kbad++;
	/* where the thread entered the kernel: a user address */
	if (!s->nr_user || !uf[0] || uf[0] >= KERNEL_BASE)
		st->no_entry++;
	else if (s->nr_user >= 2 && uf[1] == uf[0])
		st->entry_repeat++;
}

static int chain_drain(struct chain_stats *st, struct pmuvirt_sample_reader *r, int fd,
		       int publish)
{
	static struct pmuvirt_sample out[64];
	static struct pmuvirt_sample_chain chains[64];
	int n, i;

	while ((n = pmuvirt_sample_read_chain(r, out, chains, 64)) > 0)
		for (i = 0; i < n; i++)
			chain_account(st, &out[i], &chains[i]);
	if (n < 0)
		return n;
	if (!publish)
		return 0;
	return pmuvirt_user_sample_tail(fd, r) ? -errno : 0;
}

/*
 * Attach the thread with a ring of call chains, its one counter sampling
 * instructions (with @kernel, in kernel mode too), and run @rounds of
 * chain_top(K) and preads; the records in @st.
 */
static void chain_run(struct chain_stats *st, int kernel, int rounds)
{
	size_t len = (size_t)CHAIN_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	static char buf[CHAIN_FILE_SIZE];
	struct pmuvirt_sample_reader r;
	struct pmuvirt_attach a;
	struct pmuvirt_counts c;
	int fd, file, round, i, ret;
	void *ring;

	memset(st, 0, sizeof(*st));
	file = open(CHAIN_FILE, O_RDONLY);
	CHECK(file >= 0, "open %s: %s", CHAIN_FILE, strerror(errno));
	fd = pmuvirt_user_open(1);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	if (fd < 0 || file < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.version = PMUVIRT_LINUX_VERSION;
	a.sample_pages = CHAIN_PAGES;
	a.sample_format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE | PMUVIRT_SAMPLE_FMT_CHAIN;
	a.chain_depth = CHAIN_DEPTH;
	a.control.version = PMUVIRT_ABI_VERSION;
	a.control.nr_counters = 1;
	a.control.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	a.control.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_SAMPLE |
				     (kernel ? PMUVIRT_CTR_KERNEL : 0);
	a.control.counter[0].period = CHAIN_PERIOD;
	if (ioctl(fd, PMUVIRT_IOC_ATTACH, &a)) {
		CHECK(0, "attach with call chains: %s", strerror(errno));
		close(fd);
		close(file);
		return;
	}
	ring = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * sysconf(_SC_PAGESIZE));
	CHECK(ring != MAP_FAILED, "ring mapping: %s", strerror(errno));
	ret = ring == MAP_FAILED ? -1 : pmuvirt_sample_reader_init(&r, ring, len);
	CHECK(!ret, "ring header");
	for (round = 0; !ret && round < rounds; round++) {
		chain_top(CHAIN_K);
		for (i = 0; i < CHAIN_READS; i++)
			CHECK(pread(file, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf), "pread: %s",
			      strerror(errno));
		ret = chain_drain(st, &r, fd, 1);
		CHECK(!ret, "drain: %s", strerror(-ret));
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	CHECK(!ioctl(fd, PMUVIRT_IOC_DETACH, &c), "detach: %s", strerror(errno));
	if (!ret && chain_drain(st, &r, fd, 0) == 0)
		st->lost = pmuvirt_sample_lost(&r);
	if (ring != MAP_FAILED)
		munmap(ring, len);
	close(fd);
	close(file);
}

void t_callchain(void)
{
	static char zero[CHAIN_FILE_SIZE];
	struct chain_stats st, su;
	double ratio;
	int fd;

	/* the overflow signal (SIGIO, once until a resume) is not what this is about */
	signal(SIGIO, SIG_IGN);
	pin(0);
	/* a file in the initramfs (RAM): its preads are work in the kernel, nested calls deep */
	fd = open(CHAIN_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, zero, sizeof(zero)) == (ssize_t)sizeof(zero), "%s: %s",
	      CHAIN_FILE, strerror(errno));
	if (fd >= 0)
		close(fd);

	chain_run(&st, 1, CHAIN_ROUNDS);
	ratio = st.via[1] ? (double)st.via[0] / (double)st.via[1] : 0;
	printf("vm: callchain: %llu records, leaf %llu: via_a %llu, via_b %llu, ratio %.4f (error %.2f%% of 3:1), no caller %llu, chain_top not next %llu, no chain %llu; elsewhere in user mode %llu; lost %llu\n",
	       (unsigned long long)st.records, (unsigned long long)st.leaf,
	       (unsigned long long)st.via[0], (unsigned long long)st.via[1], ratio,
	       100.0 * rel_err(ratio, 3.0), (unsigned long long)st.no_caller,
	       (unsigned long long)st.not_top, (unsigned long long)st.unchained,
	       (unsigned long long)st.other, (unsigned long long)st.lost);
	printf("vm: callchain: %llu records in the kernel: kernel frames 0: %llu, 1: %llu, 2 or more: %llu (deepest %u); frames outside the kernel %llu, without the user entry frame %llu, with it twice %llu; user records with kernel frames %llu\n",
	       (unsigned long long)st.kernel, (unsigned long long)st.kdepth[0],
	       (unsigned long long)st.kdepth[1], (unsigned long long)st.kdepth[2], st.max_kernel,
	       (unsigned long long)st.kbad, (unsigned long long)st.no_entry,
	       (unsigned long long)st.entry_repeat, (unsigned long long)st.user_kframes);
	if (st.nr_deepest) {
		unsigned int i;

		printf("vm: callchain: the deepest kernel chain: ip %#llx, %u kernel frames:",
		       (unsigned long long)st.deepest[0], st.max_kernel);
		for (i = 1; i < st.nr_deepest; i++)
			printf("%s %#llx", i == st.max_kernel + 1 ? " | user" : "",
			       (unsigned long long)st.deepest[i]);
		printf("\n");
	}
	CHECK(rel_err(ratio, 3.0) < 0.03, "callers of the leaf: ratio %.4f not within 3%% of 3", ratio);
	/* rounds * 8K instructions in the leaf: nearly all its periods end there */
	CHECK(st.leaf_weight >= CHAIN_ROUNDS * 8 * CHAIN_K / CHAIN_PERIOD * 95 / 100,
	      "leaf records of weight %llu for %llu periods", (unsigned long long)st.leaf_weight,
	      CHAIN_ROUNDS * 8 * CHAIN_K / CHAIN_PERIOD);
	CHECK(!st.no_caller && !st.not_top && !st.unchained,
	      "leaf records: %llu without a caller, %llu without chain_top next, %llu without a chain",
	      (unsigned long long)st.no_caller, (unsigned long long)st.not_top,
	      (unsigned long long)st.unchained);
	CHECK(!st.wrong_mode, "%llu records with the wrong mode for their IP",
	      (unsigned long long)st.wrong_mode);
	CHECK(st.kdepth[2] > 0, "no record in the kernel with 2 or more kernel frames");
	CHECK(!st.kbad && !st.no_entry && !st.entry_repeat && !st.user_kframes,
	      "%llu kernel frames outside the kernel, %llu kernel records without a user entry frame, %llu with it twice, %llu user records with kernel frames",
	      (unsigned long long)st.kbad, (unsigned long long)st.no_entry,
	      (unsigned long long)st.entry_repeat, (unsigned long long)st.user_kframes);
	CHECK(!st.lost, "%llu records lost", (unsigned long long)st.lost);

	/*
	 * User mode only: QEMU applies no freeze by privilege (docs/power.md),
	 * so this counter's PMIs land in the kernel too, and those records
	 * must carry no kernel frames.
	 */
	chain_run(&su, 0, 4);
	printf("vm: callchain user mode only: %llu records, %llu in the kernel, %llu of them with kernel frames; leaf %llu (via_a %llu, via_b %llu)\n",
	       (unsigned long long)su.records, (unsigned long long)su.kernel,
	       (unsigned long long)(su.kdepth[1] + su.kdepth[2]), (unsigned long long)su.leaf,
	       (unsigned long long)su.via[0], (unsigned long long)su.via[1]);
	CHECK(su.kernel > 0, "no user-mode-only record in the kernel: the gating is not exercised");
	CHECK(!su.kdepth[1] && !su.kdepth[2] && !su.user_kframes,
	      "kernel frames in records of a user-mode counter");
	CHECK(!su.no_caller && !su.not_top && !su.lost, "user mode only: leaf records without callers (%llu, %llu), %llu lost",
	      (unsigned long long)su.no_caller, (unsigned long long)su.not_top,
	      (unsigned long long)su.lost);
	unlink(CHAIN_FILE);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}
#endif
