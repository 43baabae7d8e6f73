/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The x86 CPU models the unit tests, fuzzers, benchmarks and the simulator
 * run on, as initializers of struct fakehw_x86_config (fakehw.h).  Each is
 * a brace-enclosed initializer: it fills an array element, a member of a
 * test case or a compound literal.  A table that walks one dimension of a
 * model (widths, counter counts) writes its rows out instead.
 */
#ifndef PMUVIRT_FAKEHW_MODELS_H
#define PMUVIRT_FAKEHW_MODELS_H

#include "fakehw.h"

/* Intel architectural perfmon v1 (Core Duo): two 40-bit general counters. */
#define FAKEHW_X86_INTEL_V1 \
	{ .vendor = FAKEHW_INTEL, .version = 1, .nr_gp = 2, .width = 40 }
/* v2 (Core 2): three fixed counters, global control; 32-bit writes. */
#define FAKEHW_X86_INTEL_V2 \
	{ .vendor = FAKEHW_INTEL, .version = 2, .nr_gp = 2, .nr_fixed = 3, .width = 40 }
/* v3, 48-bit counters without full-width writes (IA32_PERF_CAPABILITIES.FW_WRITE = 0). */
#define FAKEHW_X86_INTEL_V3 \
	{ .vendor = FAKEHW_INTEL, .version = 3, .nr_gp = 4, .nr_fixed = 3, .width = 48 }
/* v4 (Skylake, four counters per hyperthread), full-width writes. */
#define FAKEHW_X86_INTEL_V4 \
	{ .vendor = FAKEHW_INTEL, .version = 4, .nr_gp = 4, .nr_fixed = 3, .width = 48, \
	  .fw_write = true }
/* v5 (Alder Lake's P-cores), full-width writes. */
#define FAKEHW_X86_INTEL_V5 \
	{ .vendor = FAKEHW_INTEL, .version = 5, .nr_gp = 8, .nr_fixed = 4, .width = 48, \
	  .fw_write = true }
/* v5 without full-width writes. */
#define FAKEHW_X86_INTEL_V5_LEGACY \
	{ .vendor = FAKEHW_INTEL, .version = 5, .nr_gp = 8, .nr_fixed = 4, .width = 48 }
/* What the emulated PMU (src/arch/x86/emu.c) describes. */
#define FAKEHW_X86_INTEL_EMU \
	{ .vendor = FAKEHW_INTEL, .version = 2, .nr_gp = 2, .nr_fixed = 1, .width = 48, \
	  .fw_write = true }
/* AMD K8: PERF_CTL0-3, no GuestOnly. */
#define FAKEHW_X86_AMD_K8 \
	{ .vendor = FAKEHW_AMD, .amd_family = 0x0f }
/* AMD family 10h: PERF_CTL0-3, HostOnly/GuestOnly. */
#define FAKEHW_X86_AMD_10H \
	{ .vendor = FAKEHW_AMD, .amd_family = 0x10 }
/* AMD family 15h: the core extension's six counters. */
#define FAKEHW_X86_AMD_15H \
	{ .vendor = FAKEHW_AMD, .amd_family = 0x15, .amd_core_ext = true }
/* AMD Zen (family 17h): the core extension. */
#define FAKEHW_X86_AMD_17H \
	{ .vendor = FAKEHW_AMD, .amd_family = 0x17, .amd_core_ext = true }
/* AMD Zen 4 (family 19h): PerfMonV2 with six counters. */
#define FAKEHW_X86_AMD_19H \
	{ .vendor = FAKEHW_AMD, .amd_family = 0x19, .amd_core_ext = true, \
	  .amd_perfmon_v2 = true, .nr_gp = 6 }

#endif
