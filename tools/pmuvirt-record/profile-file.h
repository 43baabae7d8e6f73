/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The file pmuvirt-record and pmuvirt-xenprof write and pmuvirt-report
 * reads (docs/sampling.md, "The profile file").  Little-endian throughout:
 * a 16-byte file header (magic "PMUVPROF", version, header size), then
 * sections of a 16-byte header (type, reserved, payload size) and their
 * payload.  INFO comes first and END last; a reader skips section types it
 * does not know.  A per-thread recording has MAPS and THREAD sections; a
 * Xen session (INFO flag PMUVIRT_PROF_INFO_XEN) has DOMAIN and RING ones.
 */
#ifndef PMUVIRT_PROFILE_FILE_H
#define PMUVIRT_PROFILE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pmuvirt/abi.h>

#define PMUVIRT_PROF_MAGIC		"PMUVPROF"
#define PMUVIRT_PROF_VERSION		3	/* written */
#define PMUVIRT_PROF_VERSION_MIN	2	/* the oldest read: no domains, no Xen sessions */
#define PMUVIRT_PROF_FILE_HDR		16
#define PMUVIRT_PROF_SECTION_HDR	16

/* Section types. */
#define PMUVIRT_PROF_INFO		1
#define PMUVIRT_PROF_MAPS		2
#define PMUVIRT_PROF_SAMPLES		3
#define PMUVIRT_PROF_THREAD		4
#define PMUVIRT_PROF_END		5
#define PMUVIRT_PROF_DOMAIN		6	/* Xen sessions only */
#define PMUVIRT_PROF_RING		7	/* Xen sessions only */

/* Bounds a reader enforces (a writer stays within them). */
#define PMUVIRT_PROF_SECTION_MAX	(64u << 20)	/* payload bytes */
#define PMUVIRT_PROF_MAPS_MAX		(16u << 20)	/* text of one maps snapshot */
#define PMUVIRT_PROF_STRING_MAX		4096		/* an INFO string, NUL excluded */
#define PMUVIRT_PROF_RECORD_BYTES	40		/* a record without its values and frames */

/* struct pmuvirt_prof_info.flags (version 3) */
#define PMUVIRT_PROF_INFO_XEN		0x1u	/* a Xen session's rings (pmuvirt-xenprof) */
#define PMUVIRT_PROF_INFO_ACTIVE	0x2u	/* drained in an active domain: its own VCPUs only */
#define PMUVIRT_PROF_INFO_FLAGS		0x3u

/* struct pmuvirt_prof_domain.flags */
#define PMUVIRT_PROF_DOMAIN_ACTIVE	0x1u	/* it drains its own VCPUs' records */
#define PMUVIRT_PROF_DOMAIN_FLAGS	0x1u

/* struct pmuvirt_prof_ring.flags */
#define PMUVIRT_PROF_RING_PCPU		0x1u	/* a physical CPU's ring (Xen's and idle samples) */
#define PMUVIRT_PROF_RING_FLAGS		0x1u

/* struct pmuvirt_prof_thread.flags */
#define PMUVIRT_PROF_THREAD_REPORTED	0x1u	/* its final report came: @comm is its name then */
#define PMUVIRT_PROF_THREAD_EXEC	0x2u	/* counting stopped at exec of a program not dumpable */
#define PMUVIRT_PROF_THREAD_LIVE	0x4u	/* still running when recording stopped */
#define PMUVIRT_PROF_THREAD_FLAGS	0x7u

/* struct pmuvirt_prof_end.flags */
#define PMUVIRT_PROF_END_INCOMPLETE	0x1u	/* threads of the command still ran at the end */
#define PMUVIRT_PROF_END_INTERRUPTED	0x2u	/* recording stopped by a signal */
#define PMUVIRT_PROF_END_FLAGS		0x3u

/**
 * struct pmuvirt_prof_info - how the recording was made (INFO)
 * @period:	the sampling counter's period.
 * @start_ns:	CLOCK_REALTIME when recording started.
 * @event:	the sampling counter's event.
 * @ctr_flags:	its PMUVIRT_CTR_* flags.
 * @nr_counters: counters of the control (values a record may carry).
 * @sample_pages: ring size per thread, in pages.
 * @interval_ms: how often the rings were drained.
 * @flags:	PMUVIRT_PROF_INFO_*: zero for a per-thread recording.
 * @sample_format: the rings' PMUVIRT_SAMPLE_FMT_* bits.
 * @chain_depth: frames a record holds at most: 1 to PMUVIRT_CHAIN_MAX with
 *		PMUVIRT_SAMPLE_FMT_CHAIN in @sample_format, 0 without.
 * @events:	the event list as given (-e).
 * @command:	the command line, arguments separated by spaces.
 * @release:	the kernel release (uname -r) of the recording machine.
 *
 * In a Xen session @sample_pages is the pages of one ring, and an active
 * domain's file has no counters (the controller chose them: @nr_counters,
 * @event and @period are 0).
 */
struct pmuvirt_prof_info {
	uint64_t period;
	uint64_t start_ns;
	uint32_t event;
	uint32_t ctr_flags;
	uint32_t nr_counters;
	uint32_t sample_pages;
	uint32_t interval_ms;
	uint32_t flags;
	uint32_t sample_format;
	uint32_t chain_depth;
	char events[PMUVIRT_PROF_STRING_MAX + 1];
	char command[PMUVIRT_PROF_STRING_MAX + 1];
	char release[PMUVIRT_PROF_STRING_MAX + 1];
};

/**
 * struct pmuvirt_prof_chunk - where a SAMPLES section's records came from
 * @pid:	the ring's process; 0 in a Xen session.
 * @tid:	the ring's thread; in a Xen session the ring's index (RING).
 * @tick:	the drain round that read them (MAPS snapshots are numbered alike).
 */
struct pmuvirt_prof_chunk {
	uint32_t pid;
	uint32_t tid;
	uint32_t tick;
};

/**
 * struct pmuvirt_prof_thread - one ring's totals (THREAD)
 * @tid:	the thread.
 * @pid:	its process.
 * @flags:	PMUVIRT_PROF_THREAD_*.
 * @lost:	records the ring dropped (saturating at 2^32 - 1).
 * @records:	records read from the ring.
 * @weight:	their weights' sum.
 * @skipped:	records skipped after a ring made no sense (resync).
 * @foreign:	records read whose tid is not the ring's (never expected).
 * @comm:	its name, NUL-terminated.
 */
struct pmuvirt_prof_thread {
	uint32_t tid;
	uint32_t pid;
	uint32_t flags;
	uint32_t lost;
	uint64_t records;
	uint64_t weight;
	uint64_t skipped;
	uint64_t foreign;
	char comm[17];
};

/**
 * struct pmuvirt_prof_domain - a domain a Xen session names (DOMAIN)
 * @domain:	its id.
 * @flags:	PMUVIRT_PROF_DOMAIN_*.
 */
struct pmuvirt_prof_domain {
	uint32_t domain;
	uint32_t flags;
};

/**
 * struct pmuvirt_prof_ring - one ring of a Xen session and its totals (RING)
 * @index:	its index: SAMPLES sections name it (struct pmuvirt_prof_chunk).
 * @domain:	the domain whose VCPU writes it (a PCPU ring: the idle domain).
 * @id:		that VCPU's id, or the physical CPU's.
 * @flags:	PMUVIRT_PROF_RING_*.
 * @nr_records:	the records it holds at most.
 * @read:	records read from it.
 * @lost:	records it had no room for (its writer's count).
 * @skipped:	records skipped after it made no sense (resync).
 */
struct pmuvirt_prof_ring {
	uint32_t index;
	uint32_t domain;
	uint32_t id;
	uint32_t flags;
	uint32_t nr_records;
	uint64_t read;
	uint64_t lost;
	uint64_t skipped;
};

/**
 * struct pmuvirt_prof_end - the summary, last section (END)
 * @samples:	records written.
 * @weight:	their weights' sum.
 * @lost:	records the rings dropped, all threads.
 * @threads:	THREAD sections written (in a Xen session: RING sections).
 * @flags:	PMUVIRT_PROF_END_*.
 * @status:	the command's wait status.
 * @rings_dropped: rings the kernel could not hand over (their threads' samples are missing).
 */
struct pmuvirt_prof_end {
	uint64_t samples;
	uint64_t weight;
	uint64_t lost;
	uint32_t threads;
	uint32_t flags;
	int32_t status;
	uint32_t rings_dropped;
};

/* ---- writing ---- */

/**
 * struct pmuvirt_prof_writer - a file being written
 * @f:		the stream.
 * @err:	0, or the errno of the first failed write (later writes do nothing).
 * @bytes:	bytes written.
 * @chain_depth: INFO's chain depth (0 before INFO): frames of records
 *		past it are left out.
 * @xen:	INFO names a Xen session: DOMAIN and RING sections may follow.
 */
struct pmuvirt_prof_writer {
	FILE *f;
	int err;
	uint64_t bytes;
	uint32_t chain_depth;
	int xen;
};

/* Each returns 0 or -errno (w->err); arguments out of the format's bounds are -EINVAL. */
int pmuvirt_prof_write_header(struct pmuvirt_prof_writer *w, FILE *f);
int pmuvirt_prof_write_info(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_info *info);
int pmuvirt_prof_write_maps(struct pmuvirt_prof_writer *w, uint32_t pid, uint32_t tick,
			    const char *text, size_t len);
/**
 * pmuvirt_prof_write_samples() - write records, split into sections as needed
 * @w:		the writer.
 * @c:		where they came from.
 * @recs:	the records (their nr_values clamped to 16).
 * @chains:	@recs[i]'s call chain at @chains[i] (its nr_kernel + nr_user
 *		frames, kernel ones first, clamped together to INFO's chain
 *		depth), or NULL: then no record carries frames, whatever its
 *		counts say.
 * @n:		the number of records.
 *
 * Return: 0 or -errno (w->err).
 */
int pmuvirt_prof_write_samples(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_chunk *c,
			       const struct pmuvirt_sample *recs,
			       const struct pmuvirt_sample_chain *chains, unsigned int n);
int pmuvirt_prof_write_thread(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_thread *t);
int pmuvirt_prof_write_domain(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_domain *d);
int pmuvirt_prof_write_ring(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_ring *r);
int pmuvirt_prof_write_end(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_end *e);

/* ---- reading ---- */

/**
 * struct pmuvirt_prof_ops - what a reader does with each section
 *
 * Each may be NULL; a non-zero return stops the parse with that value.
 * Pointers are valid during the call only.  @sample gets a record's
 * @s->nr_kernel + @s->nr_user frames at @frames (never NULL), innermost
 * first as struct pmuvirt_sample_chain holds them.
 */
struct pmuvirt_prof_ops {
	int (*info)(void *arg, const struct pmuvirt_prof_info *info);
	int (*maps)(void *arg, uint32_t pid, uint32_t tick, const char *text, size_t len);
	int (*sample)(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s,
		      const uint64_t *frames);
	int (*thread)(void *arg, const struct pmuvirt_prof_thread *t);
	int (*end)(void *arg, const struct pmuvirt_prof_end *e);
	int (*domain)(void *arg, const struct pmuvirt_prof_domain *d);
	int (*ring)(void *arg, const struct pmuvirt_prof_ring *r);
};

/**
 * struct pmuvirt_prof_error - why a file was refused
 * @offset:	byte offset of the part that is wrong.
 * @what:	what is wrong (static text).
 */
struct pmuvirt_prof_error {
	uint64_t offset;
	const char *what;
};

/* pmuvirt_prof_parse() flags */
#define PMUVIRT_PROF_PARSE_NO_END	0x1u	/* a file that stops cleanly before END is read */

/**
 * pmuvirt_prof_parse() - read a profile file from memory
 * @buf:	the file's bytes (untrusted).
 * @len:	their number.
 * @flags:	PMUVIRT_PROF_PARSE_*.
 * @ops:	callbacks.
 * @arg:	passed to them.
 * @err:	receives the reason when the file is refused.
 *
 * Every section is checked before its callback runs: a file cut short, a
 * size that does not add up, an unknown flag, a string with a NUL or over
 * its bound, a second INFO, a record count that does not fill its section
 * exactly, a record with more frames than INFO's chain depth, a Xen
 * session's section in a per-thread recording or the reverse, or anything
 * after END is refused.  Version 2 files are read as version 3 files
 * without domains (their records' domain word must be zero).
 *
 * Return: 0; -EINVAL for a malformed file (@err says where and what);
 * -EPROTO for a version outside 2 to 3; -ENODATA for a file without END (unless
 * PMUVIRT_PROF_PARSE_NO_END); or a callback's non-zero return.
 */
int pmuvirt_prof_parse(const void *buf, size_t len, unsigned int flags,
		       const struct pmuvirt_prof_ops *ops, void *arg, struct pmuvirt_prof_error *err);

#endif /* PMUVIRT_PROFILE_FILE_H */
