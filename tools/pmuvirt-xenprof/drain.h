/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-xenprof's drain: read every ring of a session (mapped read-only)
 * into a record file, and the file's layout.
 *
 * File, version 1 (magic XP_MAGIC, rings without call chains): struct
 * xp_file_hdr, nr_rings struct pmuvirt_xen_prof_ring (the session's
 * rings), the records (struct pmuvirt_sample) in the order they were
 * read, then struct xp_file_end and nr_rings struct xp_ring_end.
 *
 * Version 2 (magic XP_MAGIC_CHAIN, rings with call chains): the same with
 * struct xp_file_chain after the header, and each record followed by its
 * nr_kernel + nr_user frames (uint64_t, struct pmuvirt_sample_chain's
 * order), at most chain_depth.  A reader refuses any other magic.
 */
#ifndef PMUVIRT_XENPROF_DRAIN_H
#define PMUVIRT_XENPROF_DRAIN_H

#include <stdio.h>
#include <stdint.h>
#include <pmuvirt/xen.h>
#include <pmuvirt/user.h>

#define XP_MAGIC	"PMUVXPF1"
#define XP_MAGIC_CHAIN	"PMUVXPF2"
#define XP_END_MAGIC	"PMUVXPFE"

struct xp_file_hdr {
	char magic[8];
	uint32_t record_size;		/* sizeof(struct pmuvirt_sample) */
	uint32_t sample_version;	/* PMUVIRT_SAMPLE_VERSION */
	uint32_t nr_rings;
	uint32_t nr_records;		/* per ring */
	struct pmuvirt_control ctl;	/* the session's counters */
};

/* Version 2: after struct xp_file_hdr. */
struct xp_file_chain {
	uint32_t chain_depth;		/* frame slots of the rings' records, 1 to 127 */
	uint32_t reserved;		/* zero */
};

struct xp_file_end {
	char magic[8];
	uint64_t nr_samples;		/* records in the file */
};

/* What became of one ring's records. */
struct xp_ring_end {
	uint64_t read;			/* records read from it */
	uint64_t lost;			/* the writer's count: records it had no room for */
	uint64_t skipped;		/* records the reader skipped (a head it could not trust) */
};

struct xp_ring {
	struct pmuvirt_sample_reader r;
	struct xp_ring_end end;
};

struct xp_drain {
	unsigned int nr_rings;
	unsigned int chain_depth;	/* the rings' frame slots; 0 without call chains */
	struct xp_ring *ring;
	uint32_t *tails;	/* after xp_drain_all(): each ring's tail, for PROF_TAIL */
	FILE *out;
	uint64_t total;
	struct pmuvirt_sample_chain *chains;	/* with call chains: for buf[] */
	struct pmuvirt_sample buf[256];
};

/*
 * Readers for @nr_rings rings of @ring_pages pages each in @map (ring i at
 * frame desc[i].frame), writing to @out; @d->chain_depth gets the rings'
 * frame slots.  Return: 0, or -1 (errno) for a ring whose header does not
 * check (pmuvirt_sample_reader_init()), rings of different call-chain
 * depths, or no memory.
 */
int xp_drain_init(struct xp_drain *d, const void *map, const struct pmuvirt_xen_prof_ring *desc,
		  unsigned int nr_rings, unsigned int ring_pages, FILE *out);

/*
 * Read every ring's new records to the file.  Return: records read, or -1
 * (errno) when the file could not be written.
 */
long xp_drain_all(struct xp_drain *d);

/*
 * Write the file's header and ring list to @out: version 1 for a
 * @chain_depth of 0, else version 2.  Return: 0, or -1 (errno).
 */
int xp_file_begin(FILE *out, const struct pmuvirt_control *ctl,
		  const struct pmuvirt_xen_prof_ring *desc, unsigned int nr_rings,
		  unsigned int nr_records, unsigned int chain_depth);

/*
 * After the last drain: take each ring's lost count from its header and
 * write the file's end.  Return: 0, or -1 (errno).
 */
int xp_file_end(struct xp_drain *d);

void xp_drain_free(struct xp_drain *d);

#endif /* PMUVIRT_XENPROF_DRAIN_H */
