/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * x86 PMU MSR addresses and control-register bits, for the backend and the
 * emulated PMU.  Intel: SDM vol. 3B "Performance Monitoring", vol. 4
 * (architectural MSRs).  AMD: APM vol. 2, 13.2.
 *
 * The PMUVIRT_ prefix is not decoration: Linux's MSR_IA32_PMC0 names the
 * full-width alias 0x4C1, which is PMUVIRT_MSR_IA32_A_PMC0 here.
 */
#ifndef PMUVIRT_X86_MSR_H
#define PMUVIRT_X86_MSR_H

/* Intel */
/* Writes to IA32_PMCi keep 32 bits and sign-extend; IA32_A_PMCi take all. */
#define PMUVIRT_MSR_IA32_PMC0			0x0c1u
#define PMUVIRT_MSR_IA32_PERFEVTSEL0		0x186u
#define PMUVIRT_MSR_IA32_FIXED_CTR0		0x309u
#define PMUVIRT_MSR_IA32_PERF_CAPABILITIES	0x345u
#define PMUVIRT_MSR_IA32_FIXED_CTR_CTRL		0x38du
#define PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS	0x38eu
#define PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL	0x38fu
#define PMUVIRT_MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390u
#define PMUVIRT_MSR_IA32_A_PMC0			0x4c1u

/* IA32_PERF_CAPABILITIES */
#define PMUVIRT_PERF_CAP_FW_WRITE	((uint64_t)1 << 13)

/* AMD */
/* Legacy: PERF_CTL0-3 and PERF_CTR0-3, each consecutive. */
#define PMUVIRT_MSR_AMD_PERF_CTL0	0xc0010000u
#define PMUVIRT_MSR_AMD_PERF_CTR0	0xc0010004u
/* Core extension: PERF_CTLi at 0xC0010200 + 2i, PERF_CTRi right after it. */
#define PMUVIRT_MSR_AMD_EXT_PERF_CTL0	0xc0010200u
#define PMUVIRT_MSR_AMD_EXT_PERF_CTR0	0xc0010201u
#define PMUVIRT_MSR_AMD_GLOBAL_STATUS	0xc0000300u	/* PerfMonV2 */
#define PMUVIRT_MSR_AMD_GLOBAL_CTL	0xc0000301u
#define PMUVIRT_MSR_AMD_GLOBAL_STATUS_CLR 0xc0000302u

/* Event select (both vendors) */
#define PMUVIRT_EVSEL_USR	((uint64_t)1 << 16)
#define PMUVIRT_EVSEL_OS	((uint64_t)1 << 17)
#define PMUVIRT_EVSEL_EDGE	((uint64_t)1 << 18)
#define PMUVIRT_EVSEL_PC	((uint64_t)1 << 19)
#define PMUVIRT_EVSEL_INT	((uint64_t)1 << 20)
#define PMUVIRT_EVSEL_ANY	((uint64_t)1 << 21)	/* AnyThread (Intel), reserved (AMD) */
#define PMUVIRT_EVSEL_EN	((uint64_t)1 << 22)
/* event, unit mask, edge, invert, counter mask */
#define PMUVIRT_EVSEL_LOW_FREE	0xff84ffffull
#define PMUVIRT_EVSEL_INTEL_IN_TX	((uint64_t)1 << 32)
#define PMUVIRT_EVSEL_INTEL_IN_TXCP	((uint64_t)1 << 33)
#define PMUVIRT_EVSEL_AMD_EVENT_HI	(0xfull << 32)	/* event bits 11:8, family 10h+ */
#define PMUVIRT_EVSEL_AMD_GUEST_ONLY	((uint64_t)1 << 40)
#define PMUVIRT_EVSEL_AMD_HOST_ONLY	((uint64_t)1 << 41)

/* IA32_FIXED_CTR_CTRL: one 4-bit field per fixed counter */
#define PMUVIRT_FIXED_OS	0x1u
#define PMUVIRT_FIXED_USR	0x2u
#define PMUVIRT_FIXED_PMI	0x8u

/* RDPMC ECX bit that selects the fixed counters */
#define PMUVIRT_RDPMC_FIXED	(1u << 30)

#endif /* PMUVIRT_X86_MSR_H */
