/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz the sample ring: the core's writer (src/core/sample.c) and the user
 * reader (include/pmuvirt/user.h) run a script of writes, reads and, in
 * the hostile mode, stores of arbitrary bytes into the header (a tail the
 * reader's owner may write) and the records.  The ring is allocated to its
 * exact size, so a store or load outside it stops the sanitizer.  In the
 * honest mode every record read is whole and later than the one before,
 * and records read plus records lost equal records written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/user.h>

#define OFF	128u

static void rec_make(struct pmuvirt_sample *s, uint64_t seq)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->ip = seq;
	s->time = ~seq;
	s->nr_values = PMUVIRT_MAX_COUNTERS;
	for (k = 0; k < PMUVIRT_MAX_COUNTERS; k++)
		s->value[k] = seq * 31 + k;
}

static int rec_whole(const struct pmuvirt_sample *s)
{
	unsigned int k;

	if (s->time != ~s->ip)
		return 0;
	for (k = 0; k < PMUVIRT_MAX_COUNTERS; k++)
		if (s->value[k] != s->ip * 31 + k)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r;
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
	data++;
	size--;
	bytes = pmuvirt_sample_ring_bytes(nr, OFF);
	mem = malloc(bytes);
	if (!mem || pmuvirt_sample_init(&w, mem, bytes, nr, OFF) ||
	    pmuvirt_sample_reader_init(&r, mem, bytes))
		abort();

	while (size) {
		uint8_t op = *data++;

		size--;
		switch (op & 3) {
		case 0:
			rec_make(&s, written++);
			(void)pmuvirt_sample_write(&w, &s);
			break;
		case 1:
			n = pmuvirt_sample_read(&r, out, 1 + (op >> 5));
			if (n < 0) {
				if (!hostile || n != -PMUVIRT_USER_EPROTO)
					abort();
				pmuvirt_sample_resync(&r);
				break;
			}
			for (i = 0; !hostile && i < n; i++) {
				if (!rec_whole(&out[i]) || (any && out[i].ip <= last))
					abort();
				last = out[i].ip;
				any = 1;
			}
			for (i = 0; i < n; i++)
				if (out[i].nr_values > PMUVIRT_MAX_COUNTERS)
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
		while ((n = pmuvirt_sample_read(&r, out, 8)) > 0) {
			for (i = 0; i < n; i++)
				if (!rec_whole(&out[i]) || (any && out[i].ip <= last))
					abort();
			nread += (uint64_t)n;
		}
		if (n < 0 || nread + pmuvirt_sample_lost(&r) != written)
			abort();
	}
	free(mem);
	return 0;
}
