/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * What the dom0 test programs share: Linux's privcmd hypercall ABI
 * (lib/xen/xen_linux.h, found with -I lib/xen) and pmuvirt's hypercall.
 * Each program includes it once.
 */
#ifndef PMUVIRT_TEST_PRIVCMD_H
#define PMUVIRT_TEST_PRIVCMD_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <pmuvirt/xen.h>
#include "xen_linux.h"

static int privcmd = -1;
static int failures __attribute__((unused));	/* cases that went wrong (expect_case()) */

static inline int open_privcmd(void)
{
	privcmd = open("/dev/xen/privcmd", O_RDWR);
	if (privcmd < 0)
		privcmd = open("/proc/xen/privcmd", O_RDWR);
	return privcmd;
}

/* Any hypercall: 0 or more, or a negative errno. */
static inline long xen_hypercall(unsigned int op, uint64_t arg0, uint64_t arg1)
{
	return xen_privcmd_hypercall(privcmd, op, arg0, arg1);
}

/*
 * Xen 4.17's domctl (xen/include/public/domctl.h, interface version
 * 0x15): the commands the tests use.
 */
#define HYPERVISOR_DOMCTL	36
#define DOMCTL_INTERFACE	0x15
#define DOMCTL_CREATEDOMAIN	1
#define DOMCTL_DESTROYDOMAIN	2
#define DOMCTL_GET_VCPU_MSRS	72
#define DOMCTL_SET_VCPU_MSRS	73

struct domctl_createdomain {
	uint32_t ssidref;
	uint8_t handle[16];
	uint32_t flags;
	uint32_t iommu_opts;
	uint32_t max_vcpus;
	uint32_t max_evtchn_port;
	int32_t max_grant_frames;
	int32_t max_maptrack_frames;
	uint32_t grant_opts;
	uint32_t vmtrace_size;
	uint32_t cpupool_id;
	uint32_t emulation_flags;
	uint32_t misc_flags;
};

/* One entry of a VCPU's MSR list, and the list (a guest address). */
struct domctl_vcpu_msr {
	uint32_t index;
	uint32_t reserved;
	uint64_t value;
};

struct domctl_vcpu_msrs {
	uint32_t vcpu;
	uint32_t msr_count;
	uint64_t msrs;
};

struct domctl {
	uint32_t cmd;
	uint32_t interface_version;
	uint16_t domain;
	uint16_t pad[3];
	union {
		struct domctl_createdomain create;
		struct domctl_vcpu_msrs vcpu_msrs;
		uint8_t pad[128];
	} u;
};

/* A domctl of @cmd on domain @domid (0: Xen picks one, for create). */
static inline void domctl_init(struct domctl *d, uint32_t cmd, uint16_t domid)
{
	memset(d, 0, sizeof(*d));
	d->cmd = cmd;
	d->interface_version = DOMCTL_INTERFACE;
	d->domain = domid;
}

/* pmuvirt's hypercall with a raw argument address. */
static inline long hypercall(unsigned int cmd, uint64_t arg)
{
	return xen_hypercall(PMUVIRT_XEN_HYPERCALL, cmd, arg);
}

static inline long hc(unsigned int cmd, const void *arg)
{
	return hypercall(cmd, (uint64_t)(uintptr_t)arg);
}

static inline void hdr(struct pmuvirt_xen_hdr *h, uint32_t size)
{
	h->version = PMUVIRT_XEN_VERSION;
	h->size = size;
}

/*
 * Pin the calling thread to dom0 CPU @cpu and ask Xen which VCPU it runs
 * on (*@vcpu, -1 on failure).  Return: 0 or a negative errno.
 */
static inline long pin_to_vcpu(int cpu, int *vcpu)
{
	struct pmuvirt_xen_query q;
	cpu_set_t set;
	long rc;

	*vcpu = -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	memset(&q, 0, sizeof(q));
	hdr(&q.hdr, sizeof(q));
	rc = hc(PMUVIRT_XEN_QUERY, &q);
	if (!rc)
		*vcpu = (int)q.vcpu_id;
	return rc;
}

/*
 * A VCPU's count holds everything that runs on the VCPU.  A test that
 * compares it with one thread's work must keep other tasks off: the
 * kernel's deferred work after boot (module init sections freed by
 * do_free_init, console output) runs on the CPU that queued it and would
 * count, rightly, for that VCPU.  Run the thread at the highest real-time
 * priority so no normal task (every kernel worker is one) preempts it;
 * interrupts still run.  Return: 0 or a negative errno.
 */
static inline int run_alone(void)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };

	return sched_setscheduler(0, SCHED_FIFO, &sp) ? -errno : 0;
}

/*
 * One case of a test: @got must be @want, or any error when @want is 1
 * (and @any_error set).  Prints "@tag @what rc=... ok|WRONG".
 */
static inline void expect_case(const char *tag, int width, const char *what, long got,
			       long want, int any_error)
{
	int ok = any_error && want == 1 ? got < 0 : got == want;

	printf("%s %-*s rc=%ld %s\n", tag, width, what, got, ok ? "ok" : "WRONG");
	if (!ok)
		failures++;
}

/* pmuvirt's SET_POLICY on @domid: @action for the portable @events. */
static inline void policy_op(struct pmuvirt_xen_set_policy *op, uint32_t domid, uint32_t action,
			     uint32_t events)
{
	memset(op, 0, sizeof(*op));
	hdr(&op->hdr, sizeof(*op));
	op->domid = domid;
	op->policy.version = PMUVIRT_ABI_VERSION;
	op->policy.action = action;
	op->policy.events = events;
}

/*
 * A worker's start: pinned to dom0 CPU @cpu, which must be VCPU @cpu
 * (*@vcpu, as Xen says), @sc set on it, and alone there.
 * Return: 0 or a negative errno.
 */
static inline long start_on_vcpu(const struct pmuvirt_xen_set_control *sc, int cpu, int *vcpu)
{
	long rc = pin_to_vcpu(cpu, vcpu);

	if (!rc)
		rc = hc(PMUVIRT_XEN_SET_CONTROL, sc);
	if (!rc && (*vcpu != cpu || sched_getcpu() != cpu))
		rc = -EAGAIN;
	if (!rc)
		rc = run_alone();
	return rc;
}

/* This thread's involuntary context switches so far, or -1. */
static inline long preemptions(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nonvoluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

#endif
