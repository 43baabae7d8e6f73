/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The hypervisor calls of the powernv test hypervisor (hv.c) and its
 * guests (guest.c): sc 1 with the call number in r3 and arguments in r4-r7;
 * r3 returns the PAPR status, r4-r7 results.  H_PERFMON and
 * H_PUT_TERM_CHAR are PAPR's; the QPNV_H_* calls are this test's own and
 * give a guest pmuvirt's counters of its VCPU.  Guest addresses are guest
 * real addresses, checked against the domain's real mode area.
 */
#ifndef QPNV_HVCALL_H
#define QPNV_HVCALL_H

/* PAPR status codes */
#define H_SUCCESS		0
#define H_HARDWARE		(-1)
#define H_FUNCTION		(-2)	/* unknown call */
#define H_PRIVILEGE		(-3)	/* called from problem state */
#define H_PARAMETER		(-4)
#define H_AUTHORITY		(-10)	/* the domain has not enabled the monitor */

#define H_PERFMON		0x7c	/* r4 mode to set, r5 mode to reset */
#define H_PERFMON_ENABLE	(1ull << 63)
#define H_PERFMON_TG		(1ull << 62)

/* r4: address of a struct pmuvirt_control; r4 out: counter in error or -1. */
#define QPNV_H_SET_CONTROL	0xf100
/* r4: address of PMUVIRT_MAX_COUNTERS uint64_t; r4 out: counters. */
#define QPNV_H_READ		0xf101
/* r4: address of PMUVIRT_MAX_COUNTERS uint32_t; r4 out: mask. */
#define QPNV_H_TAKE		0xf102
/* The guest took a performance monitor exception; r4 out: new notifications' mask. */
#define QPNV_H_PMI		0xf103
/* Let another VCPU run. */
#define QPNV_H_YIELD		0xf104
/* r4: phase to wait for, r5: loop iterations run since the last report. */
#define QPNV_H_SYNC		0xf105
/* r4: loop iterations run since the last report, r5: notifications taken. */
#define QPNV_H_REPORT		0xf106
/* r4: failed checks of the guest.  Does not return. */
#define QPNV_H_DONE		0xf107

/* Phases (QPNV_H_SYNC): the checks of the calls, two exact runs, exceptions, end. */
#define QPNV_PHASE_EXACT0	1
#define QPNV_PHASE_EXACT1	2
#define QPNV_PHASE_PMI		3
#define QPNV_PHASE_END		4

#endif
