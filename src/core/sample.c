/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Sample rings: the writer side (the reader is in include/pmuvirt/user.h).
 * The protocol is described in include/pmuvirt/abi.h.  The writer keeps
 * the geometry, @head and @lost in its own memory and reads one field of
 * the shared ring, @tail, which it does not trust.
 */
#include "pmuvirt_arch.h"

size_t pmuvirt_sample_ring_bytes(uint32_t nr_records, uint32_t data_offset)
{
	if (!nr_records || nr_records > PMUVIRT_SAMPLE_MAX_RECORDS ||
	    (nr_records & (nr_records - 1)))
		return 0;
	if (data_offset < sizeof(struct pmuvirt_sample_ring) || (data_offset & 7) ||
	    data_offset > (1u << 24))
		return 0;
	return (size_t)data_offset + (size_t)nr_records * sizeof(struct pmuvirt_sample);
}

int pmuvirt_sample_init(struct pmuvirt_sample_writer *w, void *mem, size_t size,
			uint32_t nr_records, uint32_t data_offset)
{
	size_t need = pmuvirt_sample_ring_bytes(nr_records, data_offset);
	struct pmuvirt_sample_ring *r = mem;
	unsigned int i;

	if (!w || !mem || !need || size < need || ((uintptr_t)mem & 7))
		return -EINVAL;
	r->magic = PMUVIRT_SAMPLE_MAGIC;
	r->version = PMUVIRT_SAMPLE_VERSION;
	r->record_size = sizeof(struct pmuvirt_sample);
	r->nr_records = nr_records;
	r->data_offset = data_offset;
	r->reserved0 = 0;
	r->head = 0;
	r->lost = 0;
	for (i = 0; i < sizeof(r->reserved1) / sizeof(r->reserved1[0]); i++)
		r->reserved1[i] = 0;
	for (i = 0; i < sizeof(r->reserved) / sizeof(r->reserved[0]); i++)
		r->reserved[i] = 0;
	r->tail = 0;
	w->ring = r;
	w->rec = (struct pmuvirt_sample *)((uint8_t *)mem + data_offset);
	w->mask = nr_records - 1;
	w->head = 0;
	w->lost = 0;
	w->reserved = 0;
	pmuvirt_smp_wmb();
	return 0;
}

int pmuvirt_sample_write(struct pmuvirt_sample_writer *w, const struct pmuvirt_sample *s)
{
	uint32_t tail = PMUVIRT_READ_ONCE32(&w->ring->tail);

	/*
	 * The reader's copy of a record is done before it moves @tail (its
	 * full barrier): order our read of @tail before the stores below.
	 */
	pmuvirt_smp_mb();
	/* A @tail ahead of @head or more than a ring behind: full, drop. */
	if ((uint32_t)(w->head - tail) > w->mask) {
		if (w->lost != 0xffffffffu)
			w->lost++;
		PMUVIRT_WRITE_ONCE32(&w->ring->lost, w->lost);
		return -ENOSPC;
	}
	w->rec[w->head & w->mask] = *s;
	pmuvirt_smp_wmb();
	w->head++;
	PMUVIRT_WRITE_ONCE32(&w->ring->head, w->head);
	return 0;
}

int pmuvirt_ctx_attach_samples(struct pmuvirt_ctx *ctx, struct pmuvirt_sample_writer *w,
			       pmuvirt_sample_fill_fn fill, void *arg)
{
	if (!ctx || (w && !fill))
		return -EINVAL;
	if (ctx->running_on)
		return -EBUSY;
	ctx->samples = w;
	ctx->sample_fill = w ? fill : NULL;
	ctx->sample_arg = w ? arg : NULL;
	return 0;
}
