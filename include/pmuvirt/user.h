/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Header-only, freestanding reader of pmuvirt shared records: a thread
 * reads its logical counts with rdpmc/rdtsc and no system call.
 *
 * A record's counter i is worth count + ((below - start) mod 2^width),
 * where "below" comes from a caller-supplied function: the hardware for a
 * context on a physical CPU, or another record (its VCPU's) for a thread of
 * a guest, to any depth.  The reader retries while the record's sequence
 * counter is odd or changes, so a switch, a migration, or a VCPU being
 * preempted in the middle of the read yields the value from just before or
 * just after it, never a mixture.
 */
#ifndef PMUVIRT_USER_H
#define PMUVIRT_USER_H

#include "abi.h"

#ifndef PMUVIRT_USER_READ_TRIES
#define PMUVIRT_USER_READ_TRIES 1000
#endif
/* Tests define this to run code at each numbered point of the read. */
#ifndef PMUVIRT_USER_READ_HOOK
#define PMUVIRT_USER_READ_HOOK(point) do { } while (0)
#endif
#ifndef pmuvirt_user_rmb
#define pmuvirt_user_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

#define PMUVIRT_USER_EAGAIN	11	/* below cannot be read live now: use the kernel's read */
#define PMUVIRT_USER_EBUSY	16
#define PMUVIRT_USER_ERANGE	34

/**
 * typedef pmuvirt_below_fn - read what a record's counters sit on
 * @arg:	caller data.
 * @below:	the record's @below field (CPU or VCPU number).
 * @index:	the counter's @index field (never 0): rdpmc ECX + 1,
 *		PMUVIRT_SHARED_TSC, or a counter of the record below + 1.
 * @val:	receives the raw value.
 *
 * Return: 0 or a negative error, which the reader passes on if the record
 * did not change meanwhile.
 */
typedef int (*pmuvirt_below_fn)(void *arg, uint32_t below, uint32_t index, uint64_t *val);

/**
 * pmuvirt_shared_read() - consistent logical values from a shared record
 * @rec:	the record (mapped read-only).
 * @first:	first counter to read.
 * @n:		number of counters.
 * @below:	how to read the level below.
 * @arg:	passed to @below.
 * @out:	receives @n values.
 *
 * Return: 0; -PMUVIRT_USER_ERANGE if the record has fewer counters;
 * -PMUVIRT_USER_EBUSY if it kept changing; an error from @below.
 */
static inline int pmuvirt_shared_read(const struct pmuvirt_shared_ctx *rec, unsigned int first,
				      unsigned int n, pmuvirt_below_fn below, void *arg,
				      uint64_t *out)
{
	const volatile struct pmuvirt_shared_ctx *r = rec;
	unsigned int tries, i;

	for (tries = 0; tries < PMUVIRT_USER_READ_TRIES; tries++) {
		uint32_t seq = r->seq, where;
		int err = 0;

		PMUVIRT_USER_READ_HOOK(0);
		if (seq & 1)
			continue;
		pmuvirt_user_rmb();
		where = r->below;
		if (first > PMUVIRT_MAX_COUNTERS || n > PMUVIRT_MAX_COUNTERS - first ||
		    first + n > r->nr_counters)
			err = -PMUVIRT_USER_ERANGE;
		for (i = 0; !err && i < n; i++) {
			uint64_t count = r->counter[first + i].count;
			uint64_t start = r->counter[first + i].start;
			uint32_t index = r->counter[first + i].index;
			uint32_t width = r->counter[first + i].width;
			uint64_t now, mask;

			PMUVIRT_USER_READ_HOOK(1);
			out[i] = count;
			if (!index)
				continue;
			err = below(arg, where, index, &now);
			PMUVIRT_USER_READ_HOOK(2);
			if (err)
				break;
			mask = (width >= 64 || width == 0) ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
			out[i] = count + ((now - start) & mask);
		}
		pmuvirt_user_rmb();
		PMUVIRT_USER_READ_HOOK(3);
		if (r->seq != seq)
			continue;
		return err;
	}
	return -PMUVIRT_USER_EBUSY;
}

/**
 * struct pmuvirt_user_vcpus - the VCPU records of a domain, for a thread's read
 * @vcpus:	the array of per-VCPU records shared by the hypervisor.
 * @nr_vcpus:	its length.
 * @hw:		reads the hardware (rdpmc/rdtsc on the current CPU).
 * @hw_arg:	passed to @hw.
 */
struct pmuvirt_user_vcpus {
	const struct pmuvirt_shared_ctx *vcpus;
	uint32_t nr_vcpus;
	pmuvirt_below_fn hw;
	void *hw_arg;
};

/**
 * pmuvirt_below_vcpu() - a pmuvirt_below_fn for threads of a guest
 * @arg:	a struct pmuvirt_user_vcpus.
 * @vcpu:	the VCPU the thread runs on.
 * @index:	counter of that VCPU's record, plus one.
 * @val:	receives the VCPU's logical value.
 *
 * Return: as pmuvirt_shared_read(); -PMUVIRT_USER_EAGAIN while the thread
 * is not on a VCPU.
 */
static inline int pmuvirt_below_vcpu(void *arg, uint32_t vcpu, uint32_t index, uint64_t *val)
{
	const struct pmuvirt_user_vcpus *v = (const struct pmuvirt_user_vcpus *)arg;

	if (vcpu == PMUVIRT_SHARED_NONE)
		return -PMUVIRT_USER_EAGAIN;
	if (vcpu >= v->nr_vcpus)
		return -PMUVIRT_USER_ERANGE;
	return pmuvirt_shared_read(&v->vcpus[vcpu], index - 1, 1, v->hw, v->hw_arg, val);
}

#endif /* PMUVIRT_USER_H */
