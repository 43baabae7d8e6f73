/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt Linux module ABI: the ioctls of /dev/pmuvirt.
 *
 * Every request acts on the calling thread.  Every argument struct starts
 * with its own size and PMUVIRT_LINUX_VERSION; reserved fields and flags
 * must be zero.  Fixed-width fields only, 64-bit fields 8-byte aligned, so
 * 32-bit and 64-bit callers share one layout.
 *
 * mmap(NULL, page size, PROT_READ, MAP_SHARED, fd, 0) maps the calling
 * thread's struct pmuvirt_shared_ctx (read-only).  When the thread's
 * counters sit on VCPU counters (a Xen PV domain: attach reports
 * PMUVIRT_UREAD_VCPU), the record's @below is the VCPU and each live
 * counter's @index that VCPU's counter + 1; PMUVIRT_IOC_BELOW says where
 * the VCPU records are, and mmap at page offset struct pmuvirt_below.pgoff
 * (1) maps their frames read-only (any number of frames from there on).
 * With sampling counters (PMUVIRT_CTR_SAMPLE) the thread has a sample ring
 * of struct pmuvirt_attach.sample_pages pages: mmap(NULL, that many pages,
 * PROT_READ, MAP_SHARED, fd, PMUVIRT_SAMPLE_PGOFF * page size) maps it
 * read-only (header in the first page, records from the second), and
 * PMUVIRT_IOC_SAMPLE_TAIL hands the reader's tail back to the writer.
 * With PMUVIRT_ATTACH_SAMPLE_FILE the rings of the thread and of every task
 * that inherits its context also go to the file it attached through:
 * PMUVIRT_IOC_SAMPLE_OPEN on that file (from any process holding it)
 * returns a descriptor per ring, which maps the ring the same way at page
 * offset 0 and takes PMUVIRT_IOC_SAMPLE_TAIL for it.
 * read(2) on the file
 * returns struct pmuvirt_report records of threads that attached through
 * that file with PMUVIRT_ATTACH_REPORT (or inherited such a context), when
 * they detach or exit, or when counting stops at the exec of a program that
 * is not dumpable; it returns 0 (end of file) once no thread reports to
 * the file any more and every report has been read, and poll(2) then says
 * POLLHUP.
 */
#ifndef PMUVIRT_LINUX_H
#define PMUVIRT_LINUX_H

#include "abi.h"

/* pmuvirt's own host-neutral code (src/abi) needs the structs and flags only. */
#ifdef __KERNEL__
#include <uapi/linux/ioctl.h>
#elif !defined(PMUVIRT_CORE_BUILD)
#include <linux/ioctl.h>
#endif

#define PMUVIRT_LINUX_VERSION	1
#define PMUVIRT_DEVICE		"/dev/pmuvirt"

/* struct pmuvirt_attach.flags */
#define PMUVIRT_ATTACH_REPORT	0x1u	/* queue final counts on this file */
/*
 * Every thread or process this thread creates from now on gets its own
 * context with the same control (counts from zero) and the same flags, so
 * its descendants inherit too; without it a new task starts uncounted.
 */
#define PMUVIRT_ATTACH_INHERIT	0x2u
/*
 * With PMUVIRT_ATTACH_REPORT and a sampling counter: the sample ring of
 * this thread, and of every task that inherits its context, is queued on
 * the file for PMUVIRT_IOC_SAMPLE_OPEN (a recorder drains them all).  No
 * overflow signal is sent to these threads (@signo must be 0); their
 * notifications stay pending for PMUVIRT_IOC_RESUME.
 */
#define PMUVIRT_ATTACH_SAMPLE_FILE	0x4u
/*
 * With PMUVIRT_ATTACH_INHERIT only: the final counts of every task that
 * inherits the context (descendants of descendants too) are added up when
 * its counting ends (exit, detach, or the exec of a program that is not
 * dumpable), for a process before its parent's wait() returns.  The
 * attaching thread's PMUVIRT_IOC_READ and PMUVIRT_IOC_DETACH return its own
 * counts plus that sum; its mapped record and reports hold its own counts.
 */
#define PMUVIRT_ATTACH_SUM	0x8u
#define PMUVIRT_ATTACH_FLAGS	0xfu

/* struct pmuvirt_attach.caps (filled by the module) */
#define PMUVIRT_UREAD_TSC	0x1u	/* user mode may read the TSC (rdtsc) */
#define PMUVIRT_UREAD_PMC	0x2u	/* user mode may use rdpmc */
#define PMUVIRT_UREAD_VCPU	0x4u	/* the record sits on VCPU records (PMUVIRT_IOC_BELOW) */

/**
 * struct pmuvirt_attach - give the calling thread a context
 * @size:	sizeof(struct pmuvirt_attach).
 * @version:	PMUVIRT_LINUX_VERSION.
 * @flags:	PMUVIRT_ATTACH_*.
 * @signo:	signal sent on i-mode overflow notifications; 0 means SIGIO.
 * @caps:	out: PMUVIRT_UREAD_* for this context.
 * @sample_pages: pages of the thread's sample ring, header page included:
 *		a power of two from 2 to PMUVIRT_SAMPLE_PAGES_MAX when a
 *		counter has PMUVIRT_CTR_SAMPLE, 0 otherwise.  A thread that
 *		inherits the context gets a ring of its own of this size.
 * @sample_format: with @sample_pages, what each record of the ring
 *		holds (PMUVIRT_SAMPLE_FMT_*; values take one slot per
 *		counter of @control); 0 means PMUVIRT_SAMPLE_FMT_DEFAULT.
 *		Must be 0 without @sample_pages.
 * @chain_depth: with PMUVIRT_SAMPLE_FMT_CHAIN, the deepest call chain a
 *		record holds, 1 to PMUVIRT_CHAIN_MAX frames (kernel and
 *		user); 0 otherwise.  Kernel frames are recorded only in
 *		records of a counter that counts kernel mode, which the
 *		policy allows only to contexts that may.  User frames are found by frame
 *		pointers (x86-64) or the back chain (64-bit POWER); other
 *		architectures record none.
 * @control:	what to count (checked by pmuvirt_validate()).
 */
struct pmuvirt_attach {
	uint32_t size;
	uint32_t version;
	uint32_t flags;
	uint32_t signo;
	uint32_t caps;
	uint32_t sample_pages;
	uint32_t sample_format;
	uint32_t chain_depth;
	struct pmuvirt_control control;
};

/* Largest sample ring, in pages; its mmap page offset. */
#define PMUVIRT_SAMPLE_PAGES_MAX	256
#define PMUVIRT_SAMPLE_PGOFF		0x10000

/**
 * struct pmuvirt_sample_tail - give records of the sample ring back
 * @size:	sizeof(struct pmuvirt_sample_tail).
 * @version:	PMUVIRT_LINUX_VERSION.
 * @tail:	the reader's tail (struct pmuvirt_sample_reader.tail): at
 *		most the ring's size behind its head, not ahead of it.
 * @reserved:	must be zero.
 */
struct pmuvirt_sample_tail {
	uint32_t size;
	uint32_t version;
	uint32_t tail;
	uint32_t reserved;
};

/* Sample rings a file keeps for PMUVIRT_IOC_SAMPLE_OPEN; more are dropped (counted). */
#define PMUVIRT_SAMPLE_QUEUE_MAX	1024

/**
 * struct pmuvirt_sample_open - take the next sample ring queued on a file
 * @size:	sizeof(struct pmuvirt_sample_open).
 * @version:	PMUVIRT_LINUX_VERSION.
 * @flags:	must be zero.
 * @fd:		out: a new descriptor (close-on-exec) of the ring: mmap(NULL,
 *		@pages pages, PROT_READ, MAP_SHARED, fd, 0) maps it read-only,
 *		PMUVIRT_IOC_SAMPLE_TAIL on it publishes the reader's tail.  It
 *		keeps the ring after its thread has exited.
 * @tid:	out: the ring's thread (pid namespace of the attaching thread).
 * @pid:	out: its thread-group id.
 * @pages:	out: the ring's size in pages.
 * @dropped:	out: rings this file could not queue so far (more than
 *		PMUVIRT_SAMPLE_QUEUE_MAX waiting, or no memory).
 * @comm:	out: the thread's name when its context was made.
 * @reserved:	must be zero.
 */
struct pmuvirt_sample_open {
	uint32_t size;
	uint32_t version;
	uint32_t flags;
	int32_t fd;
	uint32_t tid;
	uint32_t pid;
	uint32_t pages;
	uint32_t dropped;
	char comm[16];
	uint32_t reserved[2];
};

/* struct pmuvirt_counts.flags (out) */
#define PMUVIRT_COUNTS_FAULTED	0x1u	/* a register access failed: last known values */

/**
 * struct pmuvirt_counts - read (or, on detach, final) counter values
 * @size:	sizeof(struct pmuvirt_counts).
 * @version:	PMUVIRT_LINUX_VERSION.
 * @nr_counters: out: valid entries of @value.
 * @flags:	out: PMUVIRT_COUNTS_*.
 * @ovf_mask:	out, PMUVIRT_IOC_RESUME only: counters that had overflow
 *		notifications since the last resume.
 * @reserved:	must be zero.
 * @value:	out: logical 64-bit values (PMUVIRT_IOC_RESUME: number of
 *		notifications per counter).
 */
struct pmuvirt_counts {
	uint32_t size;
	uint32_t version;
	uint32_t nr_counters;
	uint32_t flags;
	uint32_t ovf_mask;
	uint32_t reserved;
	uint64_t value[PMUVIRT_MAX_COUNTERS];
};

/* struct pmuvirt_report.how */
#define PMUVIRT_REPORT_DETACH	1
#define PMUVIRT_REPORT_EXIT	2
/* counting stopped at exec of a program that is not dumpable (setuid) */
#define PMUVIRT_REPORT_EXEC	3

/**
 * struct pmuvirt_report - final counts of a thread, read(2) from the file
 * @size:	sizeof(struct pmuvirt_report).
 * @version:	PMUVIRT_LINUX_VERSION.
 * @tid:	thread id (in the pid namespace of the attaching thread).
 * @pid:	its thread-group id.
 * @how:	PMUVIRT_REPORT_*.
 * @nr_counters: valid entries of @value.
 * @flags:	PMUVIRT_COUNTS_*.
 * @reserved:	zero.
 * @comm:	the thread's name when the record was made.
 * @value:	final logical values.
 */
struct pmuvirt_report {
	uint32_t size;
	uint32_t version;
	uint32_t tid;
	uint32_t pid;
	uint32_t how;
	uint32_t nr_counters;
	uint32_t flags;
	uint32_t reserved;
	char comm[16];
	uint64_t value[PMUVIRT_MAX_COUNTERS];
};

/* struct pmuvirt_below.kind */
#define PMUVIRT_BELOW_XEN	1	/* Xen's per-VCPU records, in Xen's frames */

/**
 * struct pmuvirt_below - where the VCPU records a thread's record sits on are
 * @size:	sizeof(struct pmuvirt_below).
 * @version:	PMUVIRT_LINUX_VERSION.
 * @flags:	must be zero.
 * @reserved:	must be zero.
 * @kind:	out: PMUVIRT_BELOW_*.
 * @nr_records:	out: VCPU records (record v is VCPU v).
 * @record_size: out: sizeof(struct pmuvirt_shared_ctx).
 * @per_frame:	out: records per page; a record never crosses a page.
 * @nr_frames:	out: pages holding the records.
 * @pgoff:	out: mmap page offset of the first page.
 *
 * Record v is at byte (v % @per_frame) * @record_size of page
 * @pgoff + v / @per_frame of the device.
 */
struct pmuvirt_below {
	uint32_t size;
	uint32_t version;
	uint32_t flags;
	uint32_t reserved;
	uint32_t kind;
	uint32_t nr_records;
	uint32_t record_size;
	uint32_t per_frame;
	uint32_t nr_frames;
	uint32_t pgoff;
};

#define PMUVIRT_IOC_MAGIC	0xD9

/* 0 or -1 with errno (EINVAL, ENODEV, EOPNOTSUPP, ENOSPC, ERANGE, EACCES, EBUSY, ENOMEM). */
#define PMUVIRT_IOC_ATTACH	_IOWR(PMUVIRT_IOC_MAGIC, 1, struct pmuvirt_attach)
/* Current values; ESRCH when the thread has no context. */
#define PMUVIRT_IOC_READ	_IOWR(PMUVIRT_IOC_MAGIC, 2, struct pmuvirt_counts)
/* Stop counting, return the final values, free the context. */
#define PMUVIRT_IOC_DETACH	_IOWR(PMUVIRT_IOC_MAGIC, 3, struct pmuvirt_counts)
/* Take pending overflow notifications and re-enable the overflow signal. */
#define PMUVIRT_IOC_RESUME	_IOWR(PMUVIRT_IOC_MAGIC, 4, struct pmuvirt_counts)
/* Where the VCPU records are; ENODEV when threads sit on the hardware directly. */
#define PMUVIRT_IOC_BELOW	_IOWR(PMUVIRT_IOC_MAGIC, 5, struct pmuvirt_below)
/* Publish the sample ring's tail; ENODEV without a ring, EINVAL for a tail out of range. */
#define PMUVIRT_IOC_SAMPLE_TAIL	_IOW(PMUVIRT_IOC_MAGIC, 6, struct pmuvirt_sample_tail)
/* A descriptor of the next ring queued on this file; EAGAIN when none waits. */
#define PMUVIRT_IOC_SAMPLE_OPEN	_IOWR(PMUVIRT_IOC_MAGIC, 7, struct pmuvirt_sample_open)

#endif /* PMUVIRT_LINUX_H */
