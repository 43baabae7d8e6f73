/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-bench-vpmu: what the emulated PMU of a stock guest costs.
 *
 *  1. Register accesses per VCPU switch between two VCPUs of one domain
 *     whose guests run perf with four counters, on the strict fakes:
 *     Intel v4 (4 general + 3 fixed counters; cycles and instructions on
 *     fixed counters, branches and branch misses on general ones) and AMD
 *     family 17h and 19h (PerfMonV2), in counting mode (perf stat: every
 *     counter interrupts at half its range) and sampling mode (perf record:
 *     a period of 100,000).  Xen 4.17's vPMU does 11 reads and 12 writes per
 *     switch on that Intel PMU, and on AMD C writes and C reads to save and
 *     2C writes to load.  Then the accesses of each intercept of perf's PMI
 *     handler and of the host's PMI.
 *  2. With --null-only, one loop for callgrind (bench/callgrind.sh) on null
 *     register access, chosen by --what: "switch" (the VCPU switch with
 *     the host's pmuvirt_vpmu_deliver() before entry; --amd: the AMD
 *     family 17h model), "rdmsr" (a guest read of a counting counter),
 *     "wrmsr" (a guest write of a counting counter: perf's re-arm),
 *     "gctrl" (GLOBAL_CTRL to 0 and back: two intercepts), "evtsel" (an
 *     event-select write that changes nothing that counts), "pmi" (one
 *     guest PMI: the host's pmuvirt_pmi() and pmuvirt_vpmu_deliver(), then
 *     perf's handler: six intercepts), "toggle" (a PV VCPU's switch
 *     between its kernel and user mode, four :u counters).
 *  3. Register accesses per such switch on the fakes: four :u, :k or
 *     two-sided counters.
 *
 * usage: pmuvirt-bench-vpmu
 *        pmuvirt-bench-vpmu --null-only --what switch|rdmsr|wrmsr|gctrl|evtsel|pmi|toggle
 *                           [--amd] [--n N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakehw_models.h"
#include "pmuvirt_arch.h"
#include "x86/pmuvirt_x86.h"
#include <pmuvirt/vpmu.h>

#define W48	((uint64_t)1 << 48)
#define USR	((uint64_t)1 << 16)
#define OS	((uint64_t)1 << 17)
#define INT	((uint64_t)1 << 20)
#define EN	((uint64_t)1 << 22)

static unsigned long guest_pmis;

static void guest_pmi(void *arg, uint64_t ovf)
{
	guest_pmis++;
}

/* ---- null hardware: counters and registers in memory ---- */

static uint64_t null_ctr[16];	/* general 0-7, fixed 8-15 */
static uint64_t null_reg[64];

/* Counter number of a counter MSR, or -1. */
static int ctr_of(uint32_t reg)
{
	if (reg >= 0xc1 && reg < 0xc9)
		return (int)(reg - 0xc1);
	if (reg >= 0x4c1 && reg < 0x4c9)
		return (int)(reg - 0x4c1);
	if (reg >= 0x309 && reg < 0x310)
		return 8 + (int)(reg - 0x309);
	if (reg >= 0xc0010004u && reg < 0xc0010008u)
		return (int)(reg - 0xc0010004u);
	if (reg >= 0xc0010201u && reg < 0xc0010211u && (reg & 1))
		return (int)(reg - 0xc0010201u) / 2;
	return -1;
}

static int null_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	int c = ctr_of(reg);

	*val = c >= 0 ? null_ctr[c] : null_reg[reg & 63];
	return 0;
}

static int null_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	int c = ctr_of(reg);

	if (c >= 0)
		null_ctr[c] = val;
	else
		null_reg[reg & 63] = val;
	return 0;
}

/* Every read finds 3 more events. */
static int null_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	unsigned int c = (idx & (1u << 30)) ? 8 + (idx & 7) : idx & 7;

	*val = null_ctr[c] = (null_ctr[c] + 3) & (W48 - 1);
	return 0;
}

static int null_read_tsc(void *arg, uint64_t *val)
{
	*val = null_reg[63] += 7;
	return 0;
}

static int null_read_counters(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		null_read_counter(arg, idx[i], &vals[i]);
	return 0;
}

static const struct pmuvirt_hw_ops null_hw = {
	.read_reg = null_read_reg,
	.write_reg = null_write_reg,
	.read_counter = null_read_counter,
	.read_tsc = null_read_tsc,
	.read_counters = null_read_counters,
};

/* ---- the two VCPUs ---- */

struct vcpu {
	struct pmuvirt_ctx *ctx;
	struct pmuvirt_vpmu vp;
};

static struct pmuvirt_pmu pmu;
static struct pmuvirt_pcpu pc;
static struct vcpu vcpu[2];
static bool amd;
/* PMUVIRT_VPMU_F_PV guests, and the privilege bits their perf sets */
static uint32_t vflags;
static uint64_t filt = USR | OS;

static void die(const char *what)
{
	fprintf(stderr, "pmuvirt-bench-vpmu: %s\n", what);
	exit(1);
}

static void wr(struct vcpu *v, uint32_t msr, uint64_t val)
{
	if (pmuvirt_vpmu_wrmsr(v->ctx->running_on, &v->vp, msr, val))
		die("a guest wrmsr failed");
}

static uint64_t rd(struct vcpu *v, uint32_t msr)
{
	uint64_t val;

	if (pmuvirt_vpmu_rdmsr(v->ctx->running_on, &v->vp, msr, &val))
		die("a guest rdmsr failed");
	return val;
}

/* The counter perf's handler finds overflowed: Intel general counter 0, AMD counter 2. */
static uint32_t ctr0(void)
{
	return amd ? 0xc0010201u + 2 * 2 : 0x4c1;
}

/* perf with four counters, each re-armed @left events before its wrap. */
static void program(struct vcpu *v, uint64_t left)
{
	static const uint64_t amd_codes[] = { 0x76, 0xc0, 0xc2, 0xc3 };
	unsigned int i;

	if (amd) {
		for (i = 0; i < 4; i++) {
			wr(v, 0xc0010200u + 2 * i, EN | INT | filt | amd_codes[i]);
			wr(v, 0xc0010201u + 2 * i, W48 - left);
		}
		return;
	}
	wr(v, 0x38f, 0);
	wr(v, 0x186, EN | INT | filt | 0xc4);
	wr(v, 0x187, EN | INT | filt | 0xc5);
	wr(v, 0x38d, filt == (USR | OS) ? 0xbb : filt == USR ? 0xaa : 0x99);
	for (i = 0; i < 2; i++) {
		wr(v, 0x4c1 + i, W48 - left);
		wr(v, 0x309 + i, W48 - left);
	}
	wr(v, 0x38f, 0x300000003ull);
}

static void setup(const struct pmuvirt_hw_ops *hw, void *arg, uint64_t left)
{
	struct pmuvirt_vpmu_model m;
	size_t sz = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	unsigned int k;

	if (pmuvirt_vpmu_model_host(&pmu, &m) || pmuvirt_pcpu_init(&pc, &pmu, hw, arg, 0))
		die("no guest model");
	for (k = 0; k < 2; k++) {
		free(vcpu[k].ctx);
		vcpu[k].ctx = malloc(sz);
		if (!vcpu[k].ctx || pmuvirt_ctx_init(vcpu[k].ctx, sz, &pmu) ||
		    pmuvirt_ctx_set_domain(vcpu[k].ctx, 1) ||
		    pmuvirt_vpmu_init(&vcpu[k].vp, vcpu[k].ctx, &m, vflags, guest_pmi, NULL))
			die("cannot set up a VCPU");
	}
	for (k = 0; k < 2; k++) {
		if (pmuvirt_switch(&pc, vcpu[k].ctx))
			die("switch");
		program(&vcpu[k], left);
	}
}

/* The host's VCPU switch: pmuvirt's switch, then the overflows the switch collected. */
static inline void vcpu_switch(unsigned int k)
{
	pmuvirt_switch(&pc, vcpu[k].ctx);
	pmuvirt_vpmu_deliver(&pc, &vcpu[k].vp);
}

/* Kept out of line so callgrind can attribute the loops. */
__attribute__((noinline)) void bench_vpmu_switch_loop(unsigned long n)
{
	unsigned long k;

	for (k = 0; k < n; k++)
		vcpu_switch(k & 1);
}

__attribute__((noinline)) void bench_vpmu_rdmsr_loop(unsigned long n)
{
	uint32_t msr = ctr0();
	unsigned long k;
	uint64_t v;

	for (k = 0; k < n; k++)
		pmuvirt_vpmu_rdmsr(&pc, &vcpu[0].vp, msr, &v);
}

__attribute__((noinline)) void bench_vpmu_wrmsr_loop(unsigned long n)
{
	uint32_t msr = ctr0();
	unsigned long k;

	for (k = 0; k < n; k++)
		pmuvirt_vpmu_wrmsr(&pc, &vcpu[0].vp, msr, W48 - 100000 - (k & 7));
}

__attribute__((noinline)) void bench_vpmu_gctrl_loop(unsigned long n)
{
	uint32_t msr = amd ? 0xc0000301u : 0x38f;
	uint64_t on = amd ? 0xf : 0x300000003ull;
	unsigned long k;

	for (k = 0; k < n; k++) {
		pmuvirt_vpmu_wrmsr(&pc, &vcpu[0].vp, msr, 0);
		pmuvirt_vpmu_wrmsr(&pc, &vcpu[0].vp, msr, on);
	}
}

__attribute__((noinline)) void bench_vpmu_evtsel_loop(unsigned long n)
{
	uint32_t msr = amd ? 0xc0010208u : 0x188;	/* a counter that stays disabled */
	unsigned long k;

	for (k = 0; k < n; k++)
		pmuvirt_vpmu_wrmsr(&pc, &vcpu[0].vp, msr, 0xc0 | (k & 1) << 8);
}

/* A PV VCPU between its kernel and user mode, Xen's toggle_guest_mode(). */
__attribute__((noinline)) void bench_vpmu_toggle_loop(unsigned long n)
{
	unsigned long k;

	for (k = 0; k < n; k++)
		pmuvirt_vpmu_pv_mode(&pc, &vcpu[0].vp, k & 1);
}

/* The host's part of a guest PMI: the counter reached its wrap. */
__attribute__((noinline)) void vpmu_host_pmi(void)
{
	uint32_t mask;

	pmuvirt_pmi(&pc, &mask);
	pmuvirt_vpmu_deliver(&pc, &vcpu[0].vp);
}

/*
 * perf's handler in the guest, six intercepts: Intel (intel_pmu_handle_irq())
 * GLOBAL_CTRL off, GLOBAL_STATUS, the counter read and re-armed,
 * GLOBAL_OVF_CTRL, GLOBAL_CTRL on; AMD PerfMonV2 likewise with GlobalCtl,
 * GlobalStatus and GlobalStatusClr.
 */
__attribute__((noinline)) void vpmu_guest_handler(uint64_t left)
{
	struct vcpu *v = &vcpu[0];
	uint32_t ctl = amd ? 0xc0000301u : 0x38f, st = amd ? 0xc0000300u : 0x38e;
	uint32_t clr = amd ? 0xc0000302u : 0x390;
	uint64_t status, on = amd ? 0xf : 0x300000003ull;

	wr(v, ctl, 0);
	status = rd(v, st);
	(void)rd(v, ctr0());
	wr(v, ctr0(), W48 - left);
	wr(v, clr, status);
	wr(v, ctl, on);
}

__attribute__((noinline)) void bench_vpmu_pmi_loop(unsigned long n)
{
	unsigned int c = amd ? 2 : 0;
	unsigned long k;

	for (k = 0; k < n; k++) {
		null_ctr[c] = 0;	/* the counter armed at its wrap reached it */
		vpmu_host_pmi();
		vpmu_guest_handler(1000);
	}
}

/* The fake's PMI: the host's PMI path, the running VCPU's overflows delivered. */
static void fake_pmi(void *arg)
{
	uint32_t mask;
	unsigned int k;

	pmuvirt_pmi(&pc, &mask);
	for (k = 0; k < 2; k++)
		if (pc.running == vcpu[k].ctx)
			pmuvirt_vpmu_deliver(&pc, &vcpu[k].vp);
}

/* Accesses per operation, by the strict fake's count. */
struct acc {
	double reads, writes;
};

static struct acc delta(const struct fakehw_stats *st, const struct fakehw_stats *s0, unsigned long n)
{
	struct acc a;

	a.reads = (double)(st->reg_reads + st->counter_reads + st->tsc_reads -
			   s0->reg_reads - s0->counter_reads - s0->tsc_reads) / n;
	a.writes = (double)(st->reg_writes - s0->reg_writes) / n;
	return a;
}

static void fake_rows(const struct fakehw_x86_config *cfg, const char *name, bool is_amd)
{
	static const struct {
		const char *mode;
		uint64_t left;
	} modes[] = {
		{ "perf stat (2^47 - 1)", ((uint64_t)1 << 47) - 1 },
		{ "perf record (100,000)", 100000 },
	};
	struct fakehw *hw;
	const struct fakehw_stats *st;
	struct fakehw_stats s0;
	unsigned int i, n;

	for (i = 0; i < 2; i++) {
		struct acc a;

		hw = fakehw_x86_new(cfg);
		if (!hw || pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw))
			die("cannot probe the fake");
		amd = is_amd;
		fakehw_set_pmi(hw, fake_pmi, NULL);
		setup(fakehw_ops(hw), hw, modes[i].left);
		st = fakehw_stats(hw);
		vcpu_switch(0);
		vcpu_switch(1);
		s0 = *st;
		for (n = 0; n < 1000; n++) {
			fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
			vcpu_switch(n & 1);
		}
		a = delta(st, &s0, 1000);
		printf("  %-16s %-22s reads %5.2f  writes %5.2f\n", name, modes[i].mode, a.reads,
		       a.writes);
		if (st->errors)
			die(fakehw_last_error(hw));
		if (i == 0 && !is_amd) {
			/* the intercepts of perf's handler and the host's PMI, one at a time */
			static const char *const what[] = {
				"host PMI + deliver", "GLOBAL_CTRL = 0", "rdmsr GLOBAL_STATUS",
				"rdmsr counter", "wrmsr counter (re-arm)", "wrmsr GLOBAL_OVF_CTRL",
				"GLOBAL_CTRL = enable",
			};
			struct acc row[7];
			unsigned int r;

			vcpu_switch(0);
			wr(&vcpu[0], 0x4c1, W48 - 1000);
			for (r = 0; r < 7; r++) {
				s0 = *st;
				switch (r) {
				case 0:	/* the PMI runs inside the fake's run */
					fakehw_run(hw, FAKEHW_BRANCHES, 1000, false);
					break;
				case 1: wr(&vcpu[0], 0x38f, 0); break;
				case 2: (void)rd(&vcpu[0], 0x38e); break;
				case 3: (void)rd(&vcpu[0], 0x4c1); break;
				case 4: wr(&vcpu[0], 0x4c1, W48 - 1000); break;
				case 5: wr(&vcpu[0], 0x390, 1); break;
				case 6: wr(&vcpu[0], 0x38f, 0x300000003ull); break;
				}
				row[r] = delta(st, &s0, 1);
			}
			if (guest_pmis != 1)
				die("not one guest interrupt for the period");
			for (r = 0; r < 7; r++)
				printf("      %-28s reads %2.0f  writes %2.0f\n", what[r], row[r].reads,
				       row[r].writes);
		}
		pmuvirt_switch(&pc, NULL);
		pmuvirt_ctx_release(vcpu[0].ctx);
		pmuvirt_ctx_release(vcpu[1].ctx);
		fakehw_free(hw);
	}
}

/* Accesses per kernel/user switch of a PV VCPU whose perf counts @f (USR, OS or both). */
static void fake_toggle_row(const struct fakehw_x86_config *cfg, const char *name, bool is_amd,
			    uint64_t f, const char *what)
{
	const struct fakehw_stats *st;
	struct fakehw_stats s0;
	struct fakehw *hw;
	struct acc a;
	unsigned int n;

	hw = fakehw_x86_new(cfg);
	if (!hw || pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw))
		die("cannot probe the fake");
	amd = is_amd;
	vflags = PMUVIRT_VPMU_F_PV;
	filt = f;
	fakehw_set_pmi(hw, fake_pmi, NULL);
	setup(fakehw_ops(hw), hw, ((uint64_t)1 << 47) - 1);
	st = fakehw_stats(hw);
	vcpu_switch(0);
	s0 = *st;
	for (n = 0; n < 1000; n++) {
		fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
		if (pmuvirt_vpmu_pv_mode(&pc, &vcpu[0].vp, n & 1))
			die("a mode switch failed");
	}
	a = delta(st, &s0, 1000);
	printf("  %-16s %-22s reads %5.2f  writes %5.2f\n", name, what, a.reads, a.writes);
	if (st->errors)
		die(fakehw_last_error(hw));
	pmuvirt_switch(&pc, NULL);
	pmuvirt_ctx_release(vcpu[0].ctx);
	pmuvirt_ctx_release(vcpu[1].ctx);
	fakehw_free(hw);
	vflags = 0;
	filt = USR | OS;
}

int main(int argc, char **argv)
{
	static const struct fakehw_x86_config intel_v4 = FAKEHW_X86_INTEL_V4;
	static const struct fakehw_x86_config amd_17h = FAKEHW_X86_AMD_17H;
	static const struct fakehw_x86_config amd_19h = FAKEHW_X86_AMD_19H;
	const char *what = NULL;
	unsigned long n = 100000;
	bool null_only = false;
	struct fakehw *hw;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--null-only"))
			null_only = true;
		else if (!strcmp(argv[i], "--amd"))
			amd = true;
		else if (!strcmp(argv[i], "--what") && i + 1 < argc)
			what = argv[++i];
		else if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: pmuvirt-bench-vpmu [--null-only --what "
				"switch|rdmsr|wrmsr|gctrl|evtsel|pmi|toggle [--amd] [--n N]]\n");
			return 2;
		}
	}
	if (!null_only) {
		printf("Register accesses per VCPU switch, two VCPUs of one domain, four guest counters each:\n");
		fake_rows(&intel_v4, "Intel v4 4+3", false);
		fake_rows(&amd_17h, "AMD 17h", true);
		fake_rows(&amd_19h, "AMD 19h PerfMonV2", true);
		printf("  (Xen 4.17 vPMU: Intel 11 reads + 12 writes; AMD, 4 counters: 4 reads + 12 writes)\n");
		printf("Register accesses per kernel/user switch of a PV VCPU, four guest counters:\n");
		fake_toggle_row(&intel_v4, "Intel v4 4+3", false, USR, "all :u");
		fake_toggle_row(&intel_v4, "Intel v4 4+3", false, USR | OS, "none one-sided");
		fake_toggle_row(&amd_17h, "AMD 17h", true, USR, "all :u");
		fake_toggle_row(&amd_17h, "AMD 17h", true, OS, "all :k");
		printf("Memory: struct pmuvirt_vpmu %zu bytes, saved blob %zu bytes\n",
		       sizeof(struct pmuvirt_vpmu), sizeof(struct pmuvirt_vpmu_saved));
		return 0;
	}
	if (!what)
		what = "switch";
	hw = fakehw_x86_new(amd ? &amd_19h : &intel_v4);
	if (!hw || pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw))
		die("cannot probe the fake");
	if (amd && !strcmp(what, "switch")) {
		fakehw_free(hw);
		hw = fakehw_x86_new(&amd_17h);
		if (!hw || pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw))
			die("cannot probe the fake");
	}
	if (!strcmp(what, "toggle")) {
		vflags = PMUVIRT_VPMU_F_PV;
		filt = USR;
	}
	setup(&null_hw, NULL, strcmp(what, "pmi") ? ((uint64_t)1 << 47) - 1 : 1000);
	if (!strcmp(what, "switch")) {
		vcpu_switch(0);
		vcpu_switch(1);
		bench_vpmu_switch_loop(n);
	} else {
		vcpu_switch(0);
		if (!strcmp(what, "rdmsr"))
			bench_vpmu_rdmsr_loop(n);
		else if (!strcmp(what, "wrmsr"))
			bench_vpmu_wrmsr_loop(n);
		else if (!strcmp(what, "gctrl"))
			bench_vpmu_gctrl_loop(n);
		else if (!strcmp(what, "evtsel"))
			bench_vpmu_evtsel_loop(n);
		else if (!strcmp(what, "pmi"))
			bench_vpmu_pmi_loop(n);
		else if (!strcmp(what, "toggle"))
			bench_vpmu_toggle_loop(n);
		else
			die("unknown --what");
		if (!strcmp(what, "pmi") && guest_pmis != n)
			die("not one guest interrupt per host PMI");
	}
	if ((vcpu[0].ctx->flags | vcpu[1].ctx->flags) & PMUVIRT_CTX_FAULTED)
		die("a context faulted");
	fakehw_free(hw);
	return 0;
}
