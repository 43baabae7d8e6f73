/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-xenprof's drain: read every ring of a session (mapped read-only)
 * into a profile file (profile-file.h, a Xen session): INFO and a DOMAIN
 * section per domain first, then a SAMPLES section per ring and drain
 * round that found records (its chunk names the ring), then a RING
 * section per ring with its totals and END.
 */
#ifndef PMUVIRT_XENPROF_DRAIN_H
#define PMUVIRT_XENPROF_DRAIN_H

#include <stdio.h>
#include <stdint.h>
#include <pmuvirt/xen.h>
#include <pmuvirt/user.h>
#include "profile-file.h"

struct xp_ring {
	struct pmuvirt_sample_reader r;
	struct pmuvirt_prof_ring end;	/* its RING section */
};

struct xp_drain {
	unsigned int nr_rings;
	unsigned int chain_depth;	/* the rings' frame slots; 0 without call chains */
	uint32_t format;		/* the rings' PMUVIRT_SAMPLE_FMT_* */
	uint32_t round;			/* drain rounds so far (the chunks' tick) */
	struct xp_ring *ring;
	uint32_t *tails;	/* after xp_drain_all(): each ring's tail, for PROF_TAIL */
	struct pmuvirt_prof_writer w;
	uint64_t total;
	uint64_t weight;
	struct pmuvirt_sample_chain *chains;	/* with call chains: for buf[] */
	struct pmuvirt_sample buf[256];
};

/*
 * Readers for @nr_rings rings of @ring_pages pages and @nr_records records
 * each in @map (ring i at frame desc[i].frame); @d->chain_depth and
 * @d->format get the rings'.  Return: 0, or -1 (errno) for a ring whose
 * header does not check (pmuvirt_sample_reader_init()), rings of
 * different formats or call-chain depths, or no memory.
 */
int xp_drain_init(struct xp_drain *d, const void *map, const struct pmuvirt_xen_prof_ring *desc,
		  unsigned int nr_rings, unsigned int ring_pages, unsigned int nr_records);

/*
 * Start the file on @out: its header, @info (flags, format and chain
 * depth are set from @d) and a DOMAIN section for each of @nr_doms
 * domains.  Return: 0, or -1 (errno).
 */
int xp_file_begin(struct xp_drain *d, FILE *out, struct pmuvirt_prof_info *info,
		  const struct pmuvirt_prof_domain *doms, unsigned int nr_doms);

/*
 * Read every ring's new records to the file.  Return: records read, or -1
 * (errno) when the file could not be written.
 */
long xp_drain_all(struct xp_drain *d);

/*
 * After the last drain: take each ring's lost count from its header and
 * write the RING sections and END (@status: the command's wait status,
 * @flags PMUVIRT_PROF_END_*).  Return: 0, or -1 (errno).
 */
int xp_file_end(struct xp_drain *d, int status, uint32_t flags);

void xp_drain_free(struct xp_drain *d);

#endif /* PMUVIRT_XENPROF_DRAIN_H */
