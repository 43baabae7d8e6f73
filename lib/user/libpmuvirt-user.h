/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * libpmuvirt-user: per-thread virtual counters of pmuvirt.ko from user
 * space.  Attach the calling thread, then read its counts from the mapped
 * shared record with rdtsc/rdpmc and no system call; the read ioctl is the
 * fallback when user mode may not read a counter itself.
 */
#ifndef LIBPMUVIRT_USER_H
#define LIBPMUVIRT_USER_H

#include <errno.h>
#include <stdint.h>
#include <pmuvirt/abi.h>
#include <pmuvirt/linux.h>
#include <pmuvirt/user.h>

/**
 * struct pmuvirt_user - the calling thread's attachment
 * @fd:		the open /dev/pmuvirt.
 * @rec:	the thread's shared record (read-only mapping), or NULL.
 * @caps:	PMUVIRT_UREAD_* from the attach.
 * @nr_counters: counters of the control.
 * @vcpus:	with PMUVIRT_UREAD_VCPU: the mapped VCPU records, or NULL.
 * @below:	with PMUVIRT_UREAD_VCPU: their layout (PMUVIRT_IOC_BELOW).
 * @direct_reads: reads served without a system call.
 * @ioctl_reads: reads that fell back to the ioctl.
 */
struct pmuvirt_user {
	int fd;
	const struct pmuvirt_shared_ctx *rec;
	uint32_t caps;
	uint32_t nr_counters;
	const char *vcpus;
	struct pmuvirt_below below;
	uint64_t direct_reads;
	uint64_t ioctl_reads;
};

/**
 * pmuvirt_user_open() - open /dev/pmuvirt
 * @cloexec:	close the descriptor on exec.
 *
 * Return: a file descriptor, or -1 with errno set.
 */
int pmuvirt_user_open(int cloexec);

/**
 * pmuvirt_user_attach() - give the calling thread a context and map it
 * @u:		receives the attachment.
 * @fd:		from pmuvirt_user_open().
 * @ctl:	what to count.
 * @flags:	PMUVIRT_ATTACH_*.
 * @signo:	overflow signal, 0 for SIGIO.
 *
 * On a Xen PV guest (PMUVIRT_UREAD_VCPU) it also maps the VCPU records
 * the thread's record sits on; without them reads take the ioctl.
 *
 * Return: 0, or -1 with errno (the kernel logs the reason).
 */
int pmuvirt_user_attach(struct pmuvirt_user *u, int fd, const struct pmuvirt_control *ctl,
			uint32_t flags, uint32_t signo);

/**
 * pmuvirt_user_attach_ring() - pmuvirt_user_attach() with a sample ring
 * @u, @fd, @ctl, @flags, @signo: as pmuvirt_user_attach().
 * @sample_pages: pages of the thread's sample ring (0 without sampling
 *		counters; see struct pmuvirt_attach).
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_attach_ring(struct pmuvirt_user *u, int fd, const struct pmuvirt_control *ctl,
			     uint32_t flags, uint32_t signo, uint32_t sample_pages);

/**
 * pmuvirt_user_parse_fields() - a record format from its names
 * @list:	a comma list of ip, time, mode, values, chain.
 * @format:	receives the PMUVIRT_SAMPLE_FMT_* bits (unchanged on error).
 *
 * Return: 0, or -1 for an empty list or an unknown name.
 */
int pmuvirt_user_parse_fields(const char *list, uint32_t *format);

/**
 * pmuvirt_user_attach_records() - pmuvirt_user_attach_ring() choosing what records hold
 * @u, @fd, @ctl, @flags, @signo, @sample_pages: as pmuvirt_user_attach_ring().
 * @sample_format: PMUVIRT_SAMPLE_FMT_* of the ring's records, 0 for the
 *		default (struct pmuvirt_attach).
 * @chain_depth: call-chain frames a record holds (with
 *		PMUVIRT_SAMPLE_FMT_CHAIN), else 0.
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_attach_records(struct pmuvirt_user *u, int fd, const struct pmuvirt_control *ctl,
				uint32_t flags, uint32_t signo, uint32_t sample_pages,
				uint32_t sample_format, uint32_t chain_depth);

/**
 * struct pmuvirt_user_ring - a sample ring taken from a file
 * @fd:		the ring's descriptor.
 * @map:	its read-only mapping.
 * @len:	bytes mapped.
 * @r:		the reader (include/pmuvirt/user.h): pmuvirt_sample_read() and
 *		the other reader functions work on it.
 * @tid:	the ring's thread.
 * @pid:	its process.
 * @pages:	the ring's size in pages.
 * @dropped:	rings the file could not queue, when this one was taken.
 * @comm:	the thread's name when its context was made.
 */
struct pmuvirt_user_ring {
	int fd;
	const void *map;
	size_t len;
	struct pmuvirt_sample_reader r;
	uint32_t tid;
	uint32_t pid;
	uint32_t pages;
	uint32_t dropped;
	char comm[17];
};

/**
 * pmuvirt_user_ring_open() - take the next ring queued on a file and map it
 * @fd:		the file threads attached through with
 *		PMUVIRT_ATTACH_SAMPLE_FILE.
 * @ring:	receives the ring.
 *
 * Return: 0, or -1 with errno (EAGAIN: no ring waits; EPROTO: the ring's
 * header makes no sense).
 */
int pmuvirt_user_ring_open(int fd, struct pmuvirt_user_ring *ring);

/**
 * pmuvirt_user_sample_tail() - give the records read back to the writer
 * @fd:		the ring's descriptor, or /dev/pmuvirt for the calling
 *		thread's own ring.
 * @r:		the reader whose tail is published.
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_sample_tail(int fd, const struct pmuvirt_sample_reader *r);

/* Unmap and close a ring from pmuvirt_user_ring_open(). */
void pmuvirt_user_ring_close(struct pmuvirt_user_ring *ring);

/**
 * pmuvirt_user_adopt() - use the context the calling thread inherited
 * @u:		receives the attachment.
 * @fd:		from pmuvirt_user_open().
 *
 * For a thread or process created by a thread attached with
 * PMUVIRT_ATTACH_INHERIT: maps its own record.  The TSC is read directly
 * (unless prctl(PR_SET_TSC) forbids it); hardware counters through the
 * read ioctl, since the attach's PMUVIRT_UREAD_PMC is not known here.
 *
 * Return: 0, or -1 with errno (ESRCH: the thread has no context).
 */
int pmuvirt_user_adopt(struct pmuvirt_user *u, int fd);

/**
 * pmuvirt_user_read() - the calling thread's current logical values
 * @u:		its attachment.
 * @vals:	receives u->nr_counters values.
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_read(struct pmuvirt_user *u, uint64_t *vals);

/**
 * pmuvirt_user_read_ioctl() - the same through the read ioctl
 * @u:		the attachment.
 * @vals:	receives u->nr_counters values.
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_read_ioctl(struct pmuvirt_user *u, uint64_t *vals);

/**
 * pmuvirt_user_resume() - take overflow notifications, re-enable the signal
 * @u:		the attachment (not changed: callable from the overflow
 *		signal's handler).
 * @counts:	if not NULL, receives u->nr_counters notification counts
 *		taken since the last resume.
 * @mask:	if not NULL, receives the counters that had notifications.
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_resume(const struct pmuvirt_user *u, uint64_t *counts, uint32_t *mask);

/**
 * pmuvirt_user_detach() - stop counting and free the context
 * @u:		the attachment (unmapped afterwards).
 * @final:	if not NULL, receives the final values.
 *
 * Return: 0, or -1 with errno.
 */
int pmuvirt_user_detach(struct pmuvirt_user *u, uint64_t *final);

/**
 * pmuvirt_user_parse_events() - build a control from "instructions,tsc,..."
 * @list:	comma-separated event names (instructions, cycles, branches,
 *		branch-misses, tsc, rHEX for a raw code), each optionally
 *		followed by :u or :k.
 * @ctl:	receives the control.
 *
 * Return: 0, or -1 with errno EINVAL (unknown name) or ENOSPC (too many).
 */
int pmuvirt_user_parse_events(const char *list, struct pmuvirt_control *ctl);

#endif /* LIBPMUVIRT_USER_H */
