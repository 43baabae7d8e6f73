// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* pmuvirt-xenprof's drain (drain.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drain.h"

int xp_drain_init(struct xp_drain *d, const void *map, const struct pmuvirt_xen_prof_ring *desc,
		  unsigned int nr_rings, unsigned int ring_pages, FILE *out)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->ring = calloc(nr_rings ? nr_rings : 1, sizeof(*d->ring));
	d->tails = calloc(nr_rings ? nr_rings : 1, sizeof(*d->tails));
	if (!d->ring || !d->tails) {
		xp_drain_free(d);
		errno = ENOMEM;
		return -1;
	}
	d->nr_rings = nr_rings;
	d->out = out;
	for (i = 0; i < nr_rings; i++) {
		const char *mem = (const char *)map + (size_t)desc[i].frame * 4096;

		if (pmuvirt_sample_reader_init(&d->ring[i].r, mem, (size_t)ring_pages * 4096)) {
			xp_drain_free(d);
			errno = EPROTO;
			return -1;
		}
		d->tails[i] = d->ring[i].r.tail;
	}
	return 0;
}

long xp_drain_all(struct xp_drain *d)
{
	unsigned int i;
	long got = 0;

	for (i = 0; i < d->nr_rings; i++) {
		struct xp_ring *g = &d->ring[i];
		int n;

		for (;;) {
			n = pmuvirt_sample_read(&g->r, d->buf, sizeof(d->buf) / sizeof(d->buf[0]));
			if (n == -PMUVIRT_USER_EPROTO) {
				g->end.skipped += pmuvirt_sample_resync(&g->r);
				continue;
			}
			if (n <= 0)
				break;
			if (fwrite(d->buf, sizeof(d->buf[0]), (size_t)n, d->out) != (size_t)n)
				return -1;
			g->end.read += (uint64_t)n;
			got += n;
		}
		d->tails[i] = g->r.tail;
	}
	d->total += (uint64_t)got;
	return got;
}

int xp_file_begin(FILE *out, const struct pmuvirt_control *ctl,
		  const struct pmuvirt_xen_prof_ring *desc, unsigned int nr_rings,
		  unsigned int nr_records)
{
	struct xp_file_hdr fh;

	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, XP_MAGIC, 8);
	fh.record_size = sizeof(struct pmuvirt_sample);
	fh.sample_version = PMUVIRT_SAMPLE_VERSION;
	fh.nr_rings = nr_rings;
	fh.nr_records = nr_records;
	fh.ctl = *ctl;
	if (fwrite(&fh, sizeof(fh), 1, out) != 1 ||
	    fwrite(desc, sizeof(*desc), nr_rings, out) != nr_rings)
		return -1;
	return 0;
}

int xp_file_end(struct xp_drain *d)
{
	struct xp_file_end fe;
	unsigned int i;

	memset(&fe, 0, sizeof(fe));
	memcpy(fe.magic, XP_END_MAGIC, 8);
	fe.nr_samples = d->total;
	if (fwrite(&fe, sizeof(fe), 1, d->out) != 1)
		return -1;
	for (i = 0; i < d->nr_rings; i++) {
		d->ring[i].end.lost = pmuvirt_sample_lost(&d->ring[i].r);
		if (fwrite(&d->ring[i].end, sizeof(d->ring[i].end), 1, d->out) != 1)
			return -1;
	}
	return 0;
}

void xp_drain_free(struct xp_drain *d)
{
	free(d->ring);
	free(d->tails);
	d->ring = NULL;
	d->tails = NULL;
}
