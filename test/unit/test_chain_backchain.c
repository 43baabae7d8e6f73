/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt_chain_backchain(): the 64-bit POWER back-chain walk on a fake
 * stack: where the first caller comes from (LR, a leaf with or without a
 * frame, the LR repeat, an LR at the IP), and the bounds a corrupt or
 * hostile stack meets.
 */
#include <string.h>
#include "rig.h"

/* A fake stack: 64 doublewords at STACK_BASE; reads outside it fail. */
#define STACK_BASE	0x7ffd0000ull
#define STACK_END	(STACK_BASE + sizeof(stack_mem))
#define LIMIT		0x7ffffffff000ull
#define FRAME_WORDS	4	/* back chain, CR save, LR save, TOC save: 32 bytes */
#define NR_FRAMES	(64 / FRAME_WORDS)
#define IP		0x10000200ull	/* the interrupted IP */
#define LR		0x10000500ull	/* the interrupted LR */

static uint64_t stack_mem[64];
static unsigned int reads;
static uint64_t read_lo, read_hi;	/* lowest address read, highest end */

static int stack_read(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	(void)arg;
	reads++;
	if (addr < read_lo)
		read_lo = addr;
	if (addr + len > read_hi)
		read_hi = addr + len;
	if (addr < STACK_BASE || addr + len > STACK_END)
		return -EFAULT;
	memcpy(buf, (uint8_t *)stack_mem + (addr - STACK_BASE), len);
	return 0;
}

static uint64_t frame_addr(unsigned int i)
{
	return STACK_BASE + 8 * FRAME_WORDS * i;
}

static uint64_t *frame(unsigned int i)
{
	return &stack_mem[FRAME_WORDS * i];
}

/*
 * n frames, 0 the innermost: frame i chains to frame i + 1 (the last to 0)
 * and its LR save slot holds 0x2000 + i, the return address into the owner
 * of frame i of the function whose frame is i - 1.  Frame 0's slot is
 * stale (0xdead): nothing below it saved LR there.
 */
static void build(unsigned int n)
{
	unsigned int i;

	memset(stack_mem, 0, sizeof(stack_mem));
	for (i = 0; i < n; i++) {
		frame(i)[0] = i + 1 < n ? frame_addr(i + 1) : 0;
		frame(i)[1] = 0x22;	/* CR save: never a return address */
		frame(i)[2] = i ? 0x2000 + i : 0xdead;
	}
}

static unsigned int walk(uint64_t sp, uint64_t lr, uint64_t limit, uint64_t *out,
			 unsigned int max)
{
	reads = 0;
	read_lo = ~0ull;
	read_hi = 0;
	return pmuvirt_chain_backchain(IP, sp, lr, limit, stack_read, NULL, out, max);
}

/* every read within [sp, limit) */
static void assert_bounded(uint64_t sp, uint64_t limit)
{
	if (!reads)
		return;
	assert_true(read_lo >= sp);
	assert_true(read_hi <= limit);
}

static void assert_chain(const uint64_t *got, unsigned int n, const uint64_t *want,
			 unsigned int nr_want)
{
	unsigned int i;

	assert_int_equal(n, nr_want);
	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("frame %u: %#llx, want %#llx", i, (unsigned long long)got[i],
				 (unsigned long long)want[i]);
}

/*
 * A leaf without a frame: r1 is its caller's frame (0), LR the return into
 * that caller; then frame 1's slot (the caller's return) and so on.
 */
static void test_leaf_without_frame(void **state)
{
	static const uint64_t want[] = { LR, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005 };
	uint64_t out[32];

	(void)state;
	build(6);
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 6);
	assert_bounded(frame_addr(0), LIMIT);
	/* the walk ends at the outermost frame, whose back chain is 0 */
	assert_int_equal(reads, 6);
}

/*
 * A function that made a frame (0) and saved LR into its caller's (1):
 * frame 1's slot repeats LR and is dropped.
 */
static void test_lr_repeat(void **state)
{
	static const uint64_t want[] = { LR, 0x2002, 0x2003, 0x2004 };
	uint64_t out[32];

	(void)state;
	build(5);
	frame(1)[2] = LR;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 4);
	assert_bounded(frame_addr(0), LIMIT);
	/* only the first slot: the same address further up is a real frame (recursion) */
	frame(3)[2] = LR;
	{
		static const uint64_t rec[] = { LR, 0x2002, LR, 0x2004 };

		assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), rec, 4);
	}
}

/*
 * A leaf that made a frame without saving LR: frame 1's slot is stale, and
 * kept (it cannot be told from a caller's return address); a 0 there is a
 * slot never written and is skipped, a 0 further up ends the walk.
 */
static void test_leaf_frame_no_lr(void **state)
{
	static const uint64_t stale[] = { LR, 0x7777, 0x2002, 0x2003 };
	static const uint64_t unwritten[] = { LR, 0x2002, 0x2003 };
	static const uint64_t ends[] = { LR, 0x2001 };
	uint64_t out[32];

	(void)state;
	build(4);
	frame(1)[2] = 0x7777;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), stale, 4);
	frame(1)[2] = 0;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), unwritten, 3);
	build(4);
	frame(2)[2] = 0;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), ends, 2);
	/* an LR of 0 is no caller, nor an LR at the IP (scv, bcl to the next); the slots still are */
	build(4);
	{
		static const uint64_t no_lr[] = { 0x2001, 0x2002, 0x2003 };

		assert_chain(out, walk(frame_addr(0), 0, LIMIT, out, 32), no_lr, 3);
		assert_chain(out, walk(frame_addr(0), IP, LIMIT, out, 32), no_lr, 3);
		/* ... nor a first slot that repeats it */
		frame(1)[2] = IP;
		assert_chain(out, walk(frame_addr(0), IP, LIMIT, out, 32), no_lr + 1, 2);
	}
}

/* A back chain that points at itself, back down or sideways ends the walk. */
static void test_loop(void **state)
{
	static const uint64_t want[] = { LR, 0x2001, 0x2002, 0x2003 };
	uint64_t out[32];
	unsigned int i;

	(void)state;
	build(NR_FRAMES);
	frame(3)[0] = frame_addr(3);
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 4);
	assert_bounded(frame_addr(0), LIMIT);
	frame(3)[0] = frame_addr(1);
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 4);
	frame(3)[0] = frame_addr(0);
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 4);
	/* every frame pointing at the first: one step, never a loop */
	for (i = 0; i < NR_FRAMES; i++)
		frame(i)[0] = frame_addr(0);
	assert_int_equal(walk(frame_addr(0), LR, LIMIT, out, 32), 1);
	assert_int_equal(reads, 1);
	/* a chain below the starting r1 is never read */
	build(NR_FRAMES);
	assert_int_equal(walk(frame_addr(4), LR, LIMIT, out, 32), NR_FRAMES - 4);
	assert_bounded(frame_addr(4), LIMIT);
	frame(6)[0] = frame_addr(2);
	assert_int_equal(walk(frame_addr(4), LR, LIMIT, out, 32), 3);
	assert_bounded(frame_addr(4), LIMIT);
}

/* Frames (and r1) must be 16-byte aligned. */
static void test_misaligned(void **state)
{
	static const uint64_t want[] = { LR, 0x2001, 0x2002 };
	uint64_t out[32];

	(void)state;
	build(8);
	frame(2)[0] += 8;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 3);
	frame(2)[0] -= 4;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 3);
	/* a misaligned r1: LR alone, nothing read */
	build(8);
	assert_int_equal(walk(frame_addr(0) + 8, LR, LIMIT, out, 32), 1);
	assert_int_equal(out[0], LR);
	assert_int_equal(reads, 0);
}

/* No frame header reaches past the limit; none is read there. */
static void test_limit(void **state)
{
	static const uint64_t want[] = { LR, 0x2001, 0x2002 };
	uint64_t out[32];

	(void)state;
	build(8);
	/* frame 3's header (24 bytes) does not fit below the limit */
	assert_chain(out, walk(frame_addr(0), LR, frame_addr(3) + 23, out, 32), want, 3);
	assert_bounded(frame_addr(0), frame_addr(3) + 23);
	assert_int_equal(walk(frame_addr(0), LR, frame_addr(3) + 24, out, 32), 4);
	assert_bounded(frame_addr(0), frame_addr(3) + 24);
	/* r1 itself at the limit, a limit too small for any header */
	assert_int_equal(walk(frame_addr(0), LR, frame_addr(0) + 16, out, 32), 1);
	assert_int_equal(reads, 0);
	assert_int_equal(walk(frame_addr(0), LR, 8, out, 32), 1);
	assert_int_equal(reads, 0);
	/* the top of the address space: no wrap-around */
	assert_int_equal(walk(~0ull - 15, LR, ~0ull, out, 32), 1);
	assert_int_equal(reads, 0);
	build(8);
	frame(2)[0] = ~0ull - 15;
	assert_chain(out, walk(frame_addr(0), LR, ~0ull, out, 32), want, 3);
	frame(2)[0] = ~0ull - 31;
	assert_chain(out, walk(frame_addr(0), LR, ~0ull, out, 32), want, 3);
	assert_bounded(frame_addr(0), ~0ull);
}

/* A frame that cannot be read ends the walk; so does a host's back chain of 0. */
static void test_read_failure(void **state)
{
	static const uint64_t want[] = { LR, 0x2001, 0x2002 };
	uint64_t out[32];

	(void)state;
	build(8);
	frame(2)[0] = STACK_END;	/* aligned, above, below the limit: not mapped */
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 3);
	/* r1 unreadable: LR alone */
	assert_int_equal(walk(STACK_END, LR, LIMIT, out, 32), 1);
	assert_int_equal(reads, 1);
	/* the slot of the frame with back chain 0 is its last */
	build(8);
	frame(2)[0] = 0;
	assert_chain(out, walk(frame_addr(0), LR, LIMIT, out, 32), want, 3);
}

/* At most @max frames, and no read past them. */
static void test_max_depth(void **state)
{
	uint64_t out[32];
	unsigned int i;

	(void)state;
	build(NR_FRAMES);
	assert_int_equal(walk(frame_addr(0), LR, LIMIT, out, 32), NR_FRAMES);
	for (i = 1; i < NR_FRAMES; i++)
		assert_int_equal(out[i], 0x2000 + i);
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(walk(frame_addr(0), LR, LIMIT, out, 4), 4);
	assert_int_equal(reads, 4);
	assert_int_equal(out[3], 0x2003);
	assert_int_equal(out[4], 0x5a5a5a5a5a5a5a5aull);
	/* the dropped repeat takes no room */
	frame(1)[2] = LR;
	assert_int_equal(walk(frame_addr(0), LR, LIMIT, out, 4), 4);
	assert_int_equal(reads, 5);
	assert_int_equal(out[3], 0x2004);
	assert_int_equal(walk(frame_addr(0), LR, LIMIT, out, 1), 1);
	assert_int_equal(reads, 0);
	assert_int_equal(walk(frame_addr(0), LR, LIMIT, out, 0), 0);
	assert_int_equal(reads, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_without_frame),
		cmocka_unit_test(test_lr_repeat),
		cmocka_unit_test(test_leaf_frame_no_lr),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_read_failure),
		cmocka_unit_test(test_max_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
