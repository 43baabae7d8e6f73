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
#ifndef pmuvirt_user_mb
#define pmuvirt_user_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

#define PMUVIRT_USER_EAGAIN	11	/* below cannot be read live now: use the kernel's read */
#define PMUVIRT_USER_EBUSY	16
#define PMUVIRT_USER_EINVAL	22
#define PMUVIRT_USER_ERANGE	34
#define PMUVIRT_USER_EPROTO	71	/* a sample ring's head makes no sense */

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

/**
 * struct pmuvirt_sample_reader - the reader's private view of a sample ring
 * @ring:	the shared header (mapped read-only or not).
 * @data:	record 0.
 * @record_size: bytes of a record, from the header when the reader was made.
 * @format:	PMUVIRT_SAMPLE_FMT_* of the records, likewise.
 * @nr_values:	value slots of a record, likewise.
 * @chain_depth: frame slots of a record, likewise.
 * @mask:	records - 1, likewise.
 * @tail:	records consumed (mod 2^32): what the reader publishes as the
 *		ring's @tail.
 */
struct pmuvirt_sample_reader {
	const struct pmuvirt_sample_ring *ring;
	const uint8_t *data;
	uint32_t record_size;
	uint32_t format;
	uint32_t nr_values;
	uint32_t chain_depth;
	uint32_t mask;
	uint32_t tail;
};

/**
 * pmuvirt_sample_reader_init() - check a mapped sample ring and start reading it
 * @r:		the reader.
 * @mem:	the mapping (header first), 8-byte aligned.
 * @size:	bytes mapped.
 *
 * The geometry and format are read once and checked against @size, so no
 * later change of the header can make the reader leave the mapping.
 * Reading starts at the ring's current @tail.
 *
 * Return: 0; -PMUVIRT_USER_EINVAL for a wrong magic, version (a ring of
 * another version is refused, never guessed at), format, record size or
 * geometry, or a ring larger than @size.
 */
static inline int pmuvirt_sample_reader_init(struct pmuvirt_sample_reader *r, const void *mem,
					     size_t size)
{
	const volatile struct pmuvirt_sample_ring *h = (const volatile struct pmuvirt_sample_ring *)mem;
	uint32_t nr, off, rs, fmt, nv, depth;

	if (!mem || ((uintptr_t)mem & 7) || size < sizeof(struct pmuvirt_sample_ring))
		return -PMUVIRT_USER_EINVAL;
	if (h->magic != PMUVIRT_SAMPLE_MAGIC || h->version != PMUVIRT_SAMPLE_VERSION)
		return -PMUVIRT_USER_EINVAL;
	nr = h->nr_records;
	off = h->data_offset;
	rs = h->record_size;
	fmt = h->format;
	nv = h->nr_values;
	depth = h->chain_depth;
	if (!rs || rs != pmuvirt_sample_record_size(fmt, nv, depth) || !nr ||
	    nr > PMUVIRT_SAMPLE_MAX_RECORDS || (nr & (nr - 1)) ||
	    off < sizeof(struct pmuvirt_sample_ring) || (off & 7) || off > size ||
	    (size - off) / rs < nr)
		return -PMUVIRT_USER_EINVAL;
	r->ring = (const struct pmuvirt_sample_ring *)mem;
	r->data = (const uint8_t *)mem + off;
	r->record_size = rs;
	r->format = fmt;
	r->nr_values = nv;
	r->chain_depth = depth;
	r->mask = nr - 1;
	r->tail = h->tail;
	return 0;
}

/**
 * pmuvirt_sample_pending() - records the writer has made that the reader has not taken
 * @r:		the reader.
 *
 * Return: 0 .. records in the ring; -PMUVIRT_USER_EPROTO when the ring's
 * @head is more than a ring ahead of the reader's tail or behind it (a
 * tail published wrongly, or a corrupted ring): pmuvirt_sample_resync().
 */
static inline int64_t pmuvirt_sample_pending(const struct pmuvirt_sample_reader *r)
{
	uint32_t head = ((const volatile struct pmuvirt_sample_ring *)r->ring)->head;
	uint32_t n = head - r->tail;

	if (n > r->mask + 1)
		return -PMUVIRT_USER_EPROTO;
	return n;
}

/**
 * pmuvirt_sample_read_chain() - copy records and their call chains out of a sample ring
 * @r:		the reader.
 * @out:	receives up to @max records, oldest first.
 * @chains:	receives each record's call chain (struct pmuvirt_sample_chain),
 *		or NULL to leave the chains (the records' counts are then 0).
 * @max:	room in @out (and @chains).
 *
 * Advances the reader's tail past the records copied; the writer sees the
 * room once the tail is published (pmuvirt_sample_publish(), or the host's
 * own call when the mapping is read-only).  A field the ring's format
 * leaves out reads as 0.  Counts the writer could corrupt are clamped to
 * the ring's slots: @nr_values to its @nr_values, the chain to its
 * @chain_depth.
 *
 * Return: records copied (0: none); -PMUVIRT_USER_EPROTO as
 * pmuvirt_sample_pending() (nothing is copied).
 */
static inline int pmuvirt_sample_read_chain(struct pmuvirt_sample_reader *r,
					    struct pmuvirt_sample *out,
					    struct pmuvirt_sample_chain *chains, unsigned int max)
{
	int64_t avail = pmuvirt_sample_pending(r);
	unsigned int i, n;

	if (avail < 0)
		return (int)avail;
	n = avail < (int64_t)max ? (unsigned int)avail : max;
	/* The records up to @head are complete (the writer's write barrier). */
	pmuvirt_user_rmb();
	for (i = 0; i < n; i++) {
		const volatile uint8_t *src = r->data + (size_t)((r->tail + i) & r->mask) *
							r->record_size;
		const volatile struct pmuvirt_sample_head *h =
			(const volatile struct pmuvirt_sample_head *)src;
		const volatile uint64_t *field = (const volatile uint64_t *)(src + sizeof(*h));
		struct pmuvirt_sample *d = &out[i];
		unsigned int k, nk, nu;

		d->tid = h->tid;
		d->cpu = h->cpu;
		d->flags = h->flags;
		d->counter = h->counter;
		d->nr_values = h->nr_values;
		d->weight = h->weight;
		d->domain = h->domain;
		nk = h->nr_kernel;
		nu = h->nr_user;
		d->ip = r->format & PMUVIRT_SAMPLE_FMT_IP ? *field++ : 0;
		d->time = r->format & PMUVIRT_SAMPLE_FMT_TIME ? *field++ : 0;
		if (d->nr_values > r->nr_values)
			d->nr_values = (uint8_t)r->nr_values;
		for (k = 0; k < d->nr_values; k++)
			d->value[k] = field[k];
		for (; k < PMUVIRT_MAX_COUNTERS; k++)
			d->value[k] = 0;
		field += r->nr_values;
		if (nk > r->chain_depth)
			nk = r->chain_depth;
		if (nu > r->chain_depth - nk)
			nu = r->chain_depth - nk;
		if (!chains)
			nk = nu = 0;
		d->nr_kernel = (uint16_t)nk;
		d->nr_user = (uint16_t)nu;
		for (k = 0; k < nk + nu; k++)
			chains[i].frame[k] = field[k];
	}
	r->tail += n;
	return (int)n;
}

/**
 * pmuvirt_sample_read() - copy records out of a sample ring, without their chains
 * @r:		the reader.
 * @out:	receives up to @max records, oldest first.
 * @max:	room in @out.
 *
 * Return: as pmuvirt_sample_read_chain().
 */
static inline int pmuvirt_sample_read(struct pmuvirt_sample_reader *r, struct pmuvirt_sample *out,
				      unsigned int max)
{
	return pmuvirt_sample_read_chain(r, out, (struct pmuvirt_sample_chain *)0, max);
}

/**
 * pmuvirt_sample_resync() - skip to the writer's head after -PMUVIRT_USER_EPROTO
 * @r:		the reader.
 *
 * Return: the records skipped (mod 2^32).
 */
static inline uint32_t pmuvirt_sample_resync(struct pmuvirt_sample_reader *r)
{
	uint32_t head = ((const volatile struct pmuvirt_sample_ring *)r->ring)->head;
	uint32_t skipped = head - r->tail;

	r->tail = head;
	return skipped;
}

/**
 * pmuvirt_sample_publish() - give the records read back to the writer
 * @r:		the reader of a ring whose header it may write.
 *
 * The copies are complete before the writer can see the room (full
 * barrier, then the store of @tail).  With a read-only mapping the host
 * takes the value of @r->tail its own way instead (pmuvirt.ko: an ioctl).
 */
static inline void pmuvirt_sample_publish(struct pmuvirt_sample_reader *r)
{
	pmuvirt_user_mb();
	*(volatile uint32_t *)&((struct pmuvirt_sample_ring *)(uintptr_t)r->ring)->tail = r->tail;
}

/**
 * pmuvirt_sample_lost() - records the writer has dropped
 * @r:		the reader.
 *
 * Return: the ring's @lost (saturating at 0xffffffff).
 */
static inline uint32_t pmuvirt_sample_lost(const struct pmuvirt_sample_reader *r)
{
	return ((const volatile struct pmuvirt_sample_ring *)r->ring)->lost;
}

#endif /* PMUVIRT_USER_H */
