/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A thread's own running time, measured by the thread itself, against
 * which its virtual TSC is judged on one PCPU.
 *
 * The thread runs its loop in blocks of OWN_BLOCK iterations (about 2,000
 * TSC ticks), each followed by a TSC read and a read of its count from
 * user mode.  A block that took OWN_AWAY_TICKS or more held a switch to
 * another thread or VCPU, or the domain was away ("away"); any other block
 * counts as the thread's own running time ("ran"), interrupts included
 * ("irq": the blocks over OWN_IRQ_TICKS, which may also hold a VCPU that
 * woke and blocked again, or a signal handler).  Across an away block the
 * count may grow by the block itself and the switch out and back in as far
 * as the thread's VCPU runs them, less than OWN_EDGE_TICKS (seen: 20,000
 * to 75,000); the slice of the thread or VCPU switched to would add more
 * than OWN_AWAY_TICKS (Linux and Xen preempt a busy thread or VCPU for at
 * least a millisecond, 10^6 ticks).  A TSC that went backwards (a domain
 * restored on a host whose TSC is behind) makes an away block too.
 *
 * What holds: the count over the blocks lies between their own time less
 * their interrupts and their own time plus OWN_EDGE_TICKS per away block,
 * and no away block grew it by OWN_EDGE_TICKS or more.
 */
#ifndef PMUVIRT_TEST_OWN_TIME_H
#define PMUVIRT_TEST_OWN_TIME_H

#include <stdint.h>
#include <stdio.h>

#ifndef OWN_BLOCK
#define OWN_BLOCK	1024
#endif
#define OWN_AWAY_TICKS	500000
#define OWN_EDGE_TICKS	(OWN_AWAY_TICKS / 2)
#define OWN_IRQ_TICKS	(3 * 2 * OWN_BLOCK)

struct own_time {
	uint64_t ran, irq, away;	/* TSC ticks of the blocks of each kind */
	uint64_t edge_max;		/* largest count growth across an away block */
	uint64_t loop;			/* the count's growth over all blocks */
	unsigned long nr_away;
};

static inline uint64_t own_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * One block took @ticks of TSC (t1 - t0, wrapped if the TSC went back); the
 * count grew by @growth.  A thread that reads its count only around the
 * whole loop passes 0 and sets ->loop itself (->edge_max stays 0).
 */
static inline void own_time_block(struct own_time *ot, uint64_t ticks, uint64_t growth)
{
	ot->loop += growth;
	if (ticks >= OWN_AWAY_TICKS) {
		ot->nr_away++;
		if ((int64_t)ticks > 0)
			ot->away += ticks;
		if (growth > ot->edge_max)
			ot->edge_max = growth;
	} else {
		ot->ran += ticks;
		if (ticks > OWN_IRQ_TICKS)
			ot->irq += ticks;
	}
}

static inline int own_time_holds(const struct own_time *ot)
{
	return ot->loop >= ot->ran - ot->irq &&
	       ot->loop <= ot->ran + ot->nr_away * OWN_EDGE_TICKS &&
	       ot->edge_max < OWN_EDGE_TICKS;
}

static inline void own_time_print(const char *marker, const char *who, const struct own_time *ot)
{
	printf("%s %s loop=%llu ran=%llu loop/ran=%+.3f%% irq=%llu away=%llu in %lu blocks, largest growth across one %llu\n",
	       marker, who, (unsigned long long)ot->loop, (unsigned long long)ot->ran,
	       ot->ran ? 100.0 * ((double)ot->loop - (double)ot->ran) / (double)ot->ran : 0.0,
	       (unsigned long long)ot->irq, (unsigned long long)ot->away, ot->nr_away,
	       (unsigned long long)ot->edge_max);
}

#endif
