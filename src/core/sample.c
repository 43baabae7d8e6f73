/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Sample rings: the writer side (the reader is in include/pmuvirt/user.h).
 * The protocol is described in include/pmuvirt/abi.h.  The writer keeps
 * the geometry, @head and @lost in its own memory and reads one field of
 * the shared ring, @tail, which it does not trust.
 */
#include "pmuvirt_arch.h"

static const struct pmuvirt_sample_format default_format = {
	.format = PMUVIRT_SAMPLE_FMT_DEFAULT,
	.nr_values = PMUVIRT_MAX_COUNTERS,
};

static uint32_t format_record_size(const struct pmuvirt_sample_format *fmt)
{
	return pmuvirt_sample_record_size(fmt->format, fmt->nr_values, fmt->chain_depth);
}

size_t pmuvirt_sample_ring_bytes(uint32_t nr_records, uint32_t data_offset,
				 const struct pmuvirt_sample_format *fmt)
{
	uint32_t record_size = format_record_size(fmt ? fmt : &default_format);

	if (!record_size)
		return 0;
	if (!nr_records || nr_records > PMUVIRT_SAMPLE_MAX_RECORDS ||
	    (nr_records & (nr_records - 1)))
		return 0;
	if (data_offset < sizeof(struct pmuvirt_sample_ring) || (data_offset & 7) ||
	    data_offset > (1u << 24))
		return 0;
	return (size_t)data_offset + (size_t)nr_records * record_size;
}

int pmuvirt_sample_init(struct pmuvirt_sample_writer *w, void *mem, size_t size,
			uint32_t nr_records, uint32_t data_offset,
			const struct pmuvirt_sample_format *fmt)
{
	size_t need = pmuvirt_sample_ring_bytes(nr_records, data_offset, fmt);
	struct pmuvirt_sample_ring *r = mem;
	unsigned int i;

	if (!fmt)
		fmt = &default_format;
	if (!w || !mem || !need || size < need || ((uintptr_t)mem & 7))
		return -EINVAL;
	w->record_size = format_record_size(fmt);
	w->format = fmt->format;
	w->nr_values = (uint8_t)fmt->nr_values;
	w->chain_depth = (uint8_t)fmt->chain_depth;
	w->chain_offset = (uint16_t)(w->record_size - 8 * fmt->chain_depth);
	r->magic = PMUVIRT_SAMPLE_MAGIC;
	r->version = PMUVIRT_SAMPLE_VERSION;
	r->record_size = w->record_size;
	r->nr_records = nr_records;
	r->data_offset = data_offset;
	r->format = fmt->format;
	r->head = 0;
	r->lost = 0;
	r->nr_values = w->nr_values;
	r->chain_depth = w->chain_depth;
	r->reserved2 = 0;
	for (i = 0; i < sizeof(r->reserved1) / sizeof(r->reserved1[0]); i++)
		r->reserved1[i] = 0;
	for (i = 0; i < sizeof(r->reserved) / sizeof(r->reserved[0]); i++)
		r->reserved[i] = 0;
	r->tail = 0;
	w->ring = r;
	w->data = (uint8_t *)mem + data_offset;
	w->mask = nr_records - 1;
	w->head = 0;
	w->lost = 0;
	pmuvirt_smp_wmb();
	return 0;
}

void *pmuvirt_sample_reserve(struct pmuvirt_sample_writer *w, uint64_t **frames)
{
	uint32_t tail = PMUVIRT_READ_ONCE32(&w->ring->tail);
	uint8_t *rec;

	/*
	 * The reader's copy of a record is done before it moves @tail (its
	 * full barrier): order our read of @tail before the stores that follow.
	 */
	pmuvirt_smp_mb();
	/* A @tail ahead of @head or more than a ring behind: full, drop. */
	if ((uint32_t)(w->head - tail) > w->mask) {
		if (w->lost != 0xffffffffu)
			w->lost++;
		PMUVIRT_WRITE_ONCE32(&w->ring->lost, w->lost);
		return NULL;
	}
	rec = w->data + (size_t)(w->head & w->mask) * w->record_size;
	if (frames)
		*frames = w->chain_depth ? (uint64_t *)(rec + w->chain_offset) : NULL;
	return rec;
}

void pmuvirt_sample_commit(struct pmuvirt_sample_writer *w, void *rec,
			   const struct pmuvirt_sample *s)
{
	struct pmuvirt_sample_head *h = rec;
	uint64_t *field = (uint64_t *)(h + 1);
	unsigned int nv = 0, nk = 0, nu = 0, i;
	uint16_t flags = s->flags & PMUVIRT_SAMPLE_FLAGS_ALL;

	if (w->format & PMUVIRT_SAMPLE_FMT_VALUES && flags & PMUVIRT_SAMPLE_VALUES)
		nv = s->nr_values < w->nr_values ? s->nr_values : w->nr_values;
	if (!nv)
		flags &= (uint16_t)~PMUVIRT_SAMPLE_VALUES;
	if (!(w->format & PMUVIRT_SAMPLE_FMT_MODE))
		flags &= (uint16_t)~(PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_HYPERVISOR);
	if (w->chain_depth) {
		nk = s->nr_kernel < w->chain_depth ? s->nr_kernel : w->chain_depth;
		nu = s->nr_user < w->chain_depth - nk ? s->nr_user : w->chain_depth - nk;
	}
	h->tid = s->tid;
	h->cpu = s->cpu;
	h->flags = flags;
	h->counter = s->counter;
	h->nr_values = (uint8_t)nv;
	h->weight = s->weight;
	h->domain = w->format & PMUVIRT_SAMPLE_FMT_MODE ? s->domain : 0;
	h->nr_kernel = (uint8_t)nk;
	h->nr_user = (uint8_t)nu;
	h->reserved = 0;
	if (w->format & PMUVIRT_SAMPLE_FMT_IP)
		*field++ = s->ip;
	if (w->format & PMUVIRT_SAMPLE_FMT_TIME)
		*field++ = s->time;
	/* Slots past the counts keep what they held: readers look at the counts only. */
	for (i = 0; i < nv; i++)
		field[i] = s->value[i];
	pmuvirt_smp_wmb();
	w->head++;
	PMUVIRT_WRITE_ONCE32(&w->ring->head, w->head);
}

int pmuvirt_sample_write(struct pmuvirt_sample_writer *w, const struct pmuvirt_sample *s,
			 const struct pmuvirt_sample_chain *chain)
{
	uint64_t *frames;
	void *rec = pmuvirt_sample_reserve(w, &frames);
	unsigned int i, n;

	struct pmuvirt_sample no_chain;

	if (!rec)
		return -ENOSPC;
	if (!chain && (s->nr_kernel || s->nr_user)) {
		no_chain = *s;
		no_chain.nr_kernel = 0;
		no_chain.nr_user = 0;
		s = &no_chain;
	}
	if (frames) {
		n = chain ? (unsigned int)s->nr_kernel + s->nr_user : 0;
		if (n > w->chain_depth)
			n = w->chain_depth;
		for (i = 0; i < n; i++)
			frames[i] = chain->frame[i];
	}
	pmuvirt_sample_commit(w, rec, s);
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
