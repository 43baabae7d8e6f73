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
		if (i && d->ring[i].r.chain_depth != d->chain_depth) {
			xp_drain_free(d);
			errno = EPROTO;
			return -1;
		}
		d->chain_depth = d->ring[i].r.chain_depth;
	}
	if (d->chain_depth) {
		d->chains = calloc(sizeof(d->buf) / sizeof(d->buf[0]), sizeof(*d->chains));
		if (!d->chains) {
			xp_drain_free(d);
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

/* @n records of buf[] and, with call chains, each one's frames. */
static int write_records(struct xp_drain *d, unsigned int n)
{
	unsigned int i, nf;

	if (!d->chains)
		return fwrite(d->buf, sizeof(d->buf[0]), n, d->out) == n ? 0 : -1;
	for (i = 0; i < n; i++) {
		nf = (unsigned int)d->buf[i].nr_kernel + d->buf[i].nr_user;
		if (fwrite(&d->buf[i], sizeof(d->buf[i]), 1, d->out) != 1 ||
		    fwrite(d->chains[i].frame, sizeof(uint64_t), nf, d->out) != nf)
			return -1;
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
			n = pmuvirt_sample_read_chain(&g->r, d->buf, d->chains,
						      sizeof(d->buf) / sizeof(d->buf[0]));
			if (n == -PMUVIRT_USER_EPROTO) {
				g->end.skipped += pmuvirt_sample_resync(&g->r);
				continue;
			}
			if (n <= 0)
				break;
			if (write_records(d, (unsigned int)n))
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
		  unsigned int nr_records, unsigned int chain_depth)
{
	struct xp_file_chain fc = { .chain_depth = chain_depth };
	struct xp_file_hdr fh;

	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, chain_depth ? XP_MAGIC_CHAIN : XP_MAGIC, 8);
	fh.record_size = sizeof(struct pmuvirt_sample);
	fh.sample_version = PMUVIRT_SAMPLE_VERSION;
	fh.nr_rings = nr_rings;
	fh.nr_records = nr_records;
	fh.ctl = *ctl;
	if (fwrite(&fh, sizeof(fh), 1, out) != 1 ||
	    (chain_depth && fwrite(&fc, sizeof(fc), 1, out) != 1) ||
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
	free(d->chains);
	d->ring = NULL;
	d->tails = NULL;
	d->chains = NULL;
}
