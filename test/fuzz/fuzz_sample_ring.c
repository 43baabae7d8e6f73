/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz the sample ring: the core's writer (src/core/sample.c) and the user
 * reader (include/pmuvirt/user.h) run a script of writes, reads and, in
 * the hostile mode, stores of arbitrary bytes into the header (a tail the
 * reader's owner may write) and the records.  The first byte picks the
 * ring's size, the mode and a record format with or without values and a
 * call chain.  The ring is allocated to its exact size, so a store or load
 * outside it stops the sanitizer.  In the honest mode every record read is
 * whole (values and chain) and later than the one before, and records read
 * plus records lost equal records written; in both modes no count read
 * exceeds the ring's slots.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/user.h>

#define OFF	128u

#define DEPTH	5

static unsigned int nr_vals;

static void rec_make(struct pmuvirt_sample *s, struct pmuvirt_sample_chain *c, uint64_t seq)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->ip = seq;
	s->time = ~seq;
	s->flags = PMUVIRT_SAMPLE_VALUES;
	s->nr_values = PMUVIRT_MAX_COUNTERS;
	for (k = 0; k < PMUVIRT_MAX_COUNTERS; k++)
		s->value[k] = seq * 31 + k;
	s->nr_kernel = (uint16_t)(seq % 3);
	s->nr_user = (uint16_t)(seq % 4);
	for (k = 0; k < DEPTH; k++)
		c->frame[k] = seq * 7 + k;
}

static int rec_whole(const struct pmuvirt_sample *s, const struct pmuvirt_sample_chain *c,
		     unsigned int depth)
{
	unsigned int k, n = (unsigned int)(s->ip % 3) + (unsigned int)(s->ip % 4);

	if (s->time != ~s->ip || s->nr_values != nr_vals)
		return 0;
	for (k = 0; k < nr_vals; k++)
		if (s->value[k] != s->ip * 31 + k)
			return 0;
	if (s->nr_kernel + s->nr_user != (n < depth ? n : depth))
		return 0;
	for (k = 0; k < (unsigned int)s->nr_kernel + s->nr_user; k++)
		if (c->frame[k] != s->ip * 7 + k)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r;
	static struct pmuvirt_sample_chain chain, chains[8];
	struct pmuvirt_sample_format fmt = { PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_TIME, 0, 0 };
	struct pmuvirt_sample s, out[8];
	uint64_t written = 0, nread = 0, last = 0;
	int hostile, any = 0, n, i;
	uint32_t nr;
	uint8_t *mem;
	size_t bytes;

	if (size < 1)
		return 0;
	nr = 1u << (data[0] & 7);
	hostile = data[0] & 0x80;
	if (data[0] & 0x08) {
		fmt.format |= PMUVIRT_SAMPLE_FMT_VALUES;
		fmt.nr_values = data[0] & 0x10 ? PMUVIRT_MAX_COUNTERS : 3;
	}
	if (data[0] & 0x20) {
		fmt.format |= PMUVIRT_SAMPLE_FMT_CHAIN;
		fmt.chain_depth = data[0] & 0x40 ? DEPTH : 2;
	}
	nr_vals = fmt.nr_values;
	data++;
	size--;
	bytes = pmuvirt_sample_ring_bytes(nr, OFF, &fmt);
	mem = malloc(bytes);
	if (!mem || pmuvirt_sample_init(&w, mem, bytes, nr, OFF, &fmt) ||
	    pmuvirt_sample_reader_init(&r, mem, bytes))
		abort();

	while (size) {
		uint8_t op = *data++;

		size--;
		switch (op & 3) {
		case 0:
			rec_make(&s, &chain, written++);
			(void)pmuvirt_sample_write(&w, &s, &chain);
			break;
		case 1:
			n = pmuvirt_sample_read_chain(&r, out, chains, 1 + (op >> 5));
			if (n < 0) {
				if (!hostile || n != -PMUVIRT_USER_EPROTO)
					abort();
				pmuvirt_sample_resync(&r);
				break;
			}
			for (i = 0; !hostile && i < n; i++) {
				if (!rec_whole(&out[i], &chains[i], fmt.chain_depth) ||
				    (any && out[i].ip <= last))
					abort();
				last = out[i].ip;
				any = 1;
			}
			for (i = 0; i < n; i++)
				if (out[i].nr_values > fmt.nr_values ||
				    out[i].nr_kernel + out[i].nr_user > fmt.chain_depth)
					abort();
			nread += (uint64_t)n;
			if (!(op & 0x10))
				pmuvirt_sample_publish(&r);
			break;
		case 2:
		case 3:
			if (!hostile || size < 2)
				break;
			if (op & 1)	/* the header, tail included */
				mem[data[0] % OFF] = data[1];
			else		/* a record */
				mem[OFF + (((size_t)data[0] << 8 | op) % (bytes - OFF))] = data[1];
			data += 2;
			size -= 2;
			break;
		}
	}
	if (!hostile) {
		pmuvirt_sample_publish(&r);
		while ((n = pmuvirt_sample_read_chain(&r, out, chains, 8)) > 0) {
			for (i = 0; i < n; i++)
				if (!rec_whole(&out[i], &chains[i], fmt.chain_depth) ||
				    (any && out[i].ip <= last))
					abort();
			nread += (uint64_t)n;
		}
		if (n < 0 || nread + pmuvirt_sample_lost(&r) != written)
			abort();
	}
	free(mem);
	return 0;
}
