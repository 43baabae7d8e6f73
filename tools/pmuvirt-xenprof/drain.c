// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* pmuvirt-xenprof's drain (drain.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drain.h"

static int fail(struct xp_drain *d, int err)
{
	xp_drain_free(d);
	errno = err;
	return -1;
}

int xp_drain_init(struct xp_drain *d, const void *map, const struct pmuvirt_xen_prof_ring *desc,
		  unsigned int nr_rings, unsigned int ring_pages, unsigned int nr_records)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->ring = calloc(nr_rings ? nr_rings : 1, sizeof(*d->ring));
	d->tails = calloc(nr_rings ? nr_rings : 1, sizeof(*d->tails));
	if (!d->ring || !d->tails)
		return fail(d, ENOMEM);
	d->nr_rings = nr_rings;
	for (i = 0; i < nr_rings; i++) {
		const char *mem = (const char *)map + (size_t)desc[i].frame * 4096;
		struct xp_ring *g = &d->ring[i];

		if (pmuvirt_sample_reader_init(&g->r, mem, (size_t)ring_pages * 4096))
			return fail(d, EPROTO);
		d->tails[i] = g->r.tail;
		if (i && (g->r.chain_depth != d->chain_depth || g->r.format != d->format))
			return fail(d, EPROTO);
		d->chain_depth = g->r.chain_depth;
		d->format = g->r.format;
		g->end.index = i;
		g->end.domain = desc[i].domain;
		g->end.id = desc[i].id;
		g->end.flags = (desc[i].flags & PMUVIRT_XEN_PROF_RING_PCPU) ? PMUVIRT_PROF_RING_PCPU : 0;
		g->end.nr_records = nr_records;
	}
	if (d->chain_depth) {
		d->chains = calloc(sizeof(d->buf) / sizeof(d->buf[0]), sizeof(*d->chains));
		if (!d->chains)
			return fail(d, ENOMEM);
	}
	return 0;
}

static int set_errno(int ret)
{
	errno = ret < 0 ? -ret : EIO;
	return -1;
}

int xp_file_begin(struct xp_drain *d, FILE *out, struct pmuvirt_prof_info *info,
		  const struct pmuvirt_prof_domain *doms, unsigned int nr_doms)
{
	unsigned int i;
	int ret;

	info->flags |= PMUVIRT_PROF_INFO_XEN;
	info->sample_format = d->format;
	info->chain_depth = d->chain_depth;
	ret = pmuvirt_prof_write_header(&d->w, out);
	if (!ret)
		ret = pmuvirt_prof_write_info(&d->w, info);
	for (i = 0; !ret && i < nr_doms; i++)
		ret = pmuvirt_prof_write_domain(&d->w, &doms[i]);
	return ret ? set_errno(ret) : 0;
}

long xp_drain_all(struct xp_drain *d)
{
	unsigned int i, k;
	long got = 0;

	for (i = 0; i < d->nr_rings; i++) {
		struct pmuvirt_prof_chunk c = { .pid = 0, .tid = i, .tick = d->round };
		struct xp_ring *g = &d->ring[i];
		int n, ret;

		for (;;) {
			n = pmuvirt_sample_read_chain(&g->r, d->buf, d->chains,
						      sizeof(d->buf) / sizeof(d->buf[0]));
			if (n == -PMUVIRT_USER_EPROTO) {
				g->end.skipped += pmuvirt_sample_resync(&g->r);
				continue;
			}
			if (n <= 0)
				break;
			ret = pmuvirt_prof_write_samples(&d->w, &c, d->buf, d->chains,
							 (unsigned int)n);
			if (ret)
				return set_errno(ret);
			for (k = 0; k < (unsigned int)n; k++)
				d->weight += d->buf[k].weight;
			g->end.read += (uint64_t)n;
			got += n;
		}
		d->tails[i] = g->r.tail;
	}
	d->round++;
	d->total += (uint64_t)got;
	return got;
}

int xp_file_end(struct xp_drain *d, int status, uint32_t flags)
{
	struct pmuvirt_prof_end e;
	unsigned int i;
	int ret = 0;

	memset(&e, 0, sizeof(e));
	for (i = 0; !ret && i < d->nr_rings; i++) {
		d->ring[i].end.lost = pmuvirt_sample_lost(&d->ring[i].r);
		e.lost += d->ring[i].end.lost;
		ret = pmuvirt_prof_write_ring(&d->w, &d->ring[i].end);
	}
	e.samples = d->total;
	e.weight = d->weight;
	e.threads = d->nr_rings;
	e.flags = flags;
	e.status = status;
	if (!ret)
		ret = pmuvirt_prof_write_end(&d->w, &e);
	return ret ? set_errno(ret) : 0;
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
