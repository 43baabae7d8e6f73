/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Strict fake x86 PMU: CPUID and the PMU MSRs of one Intel (architectural
 * perfmon v1-v5) or AMD (legacy, core extension, PerfMonV2) CPU.
 *
 * Modelled after the SDM (vol. 3, "Performance Monitoring") and the APM
 * (vol. 2, "Performance Monitor Counters"):
 *   - legacy IA32_PMCx writes keep bits 31:0, sign-extend from bit 31 and
 *     truncate to the counter width; IA32_A_PMCx (FW_WRITE only), fixed and
 *     AMD counters take the full width and refuse bits above it;
 *   - GLOBAL_STATUS is read-only; OVF_CTRL / STATUS_RESET and AMD
 *     StatusClr clear it, STATUS_SET (v4) sets it;
 *   - IA32_PERF_GLOBAL_CTRL resets with the general-counter enables set,
 *     PerfCntrGlobalCtl with all counter enables set (legacy software keeps
 *     working);
 *   - CPUID.07H:EBX.RTM is reported by the v3 and v4 models only.
 * The fake runs as host until fakehw_x86_vm_entry() (AMD GuestOnly counters
 * count only in the guest, HostOnly ones only in the host), and never
 * inside a transaction (IN_TX counters do not count).
 */
#include <errno.h>
#include <stdlib.h>
#include "fakehw_priv.h"

#define NR_GP_MAX	16
#define NR_FIXED_MAX	8

#define EVSEL_USR	(1ull << 16)
#define EVSEL_OS	(1ull << 17)
#define EVSEL_PC	(1ull << 19)
#define EVSEL_INT	(1ull << 20)
#define EVSEL_ANY	(1ull << 21)
#define EVSEL_EN	(1ull << 22)
#define EVSEL_IN_TX	(1ull << 32)
#define EVSEL_IN_TXCP	(1ull << 33)
#define AMD_GUEST_ONLY	(1ull << 40)
#define AMD_HOST_ONLY	(1ull << 41)

struct fx86 {
	struct fakehw_x86_config cfg;
	bool intel;
	unsigned int version;
	unsigned int nr_gp, nr_fixed, width;
	bool global, fw_write, pdcm, rtm, amd_ext, amd_v2;
	uint32_t max_leaf, max_ext;
	uint64_t evsel[NR_GP_MAX], ctr[NR_GP_MAX];
	uint64_t fixed[NR_FIXED_MAX], fixed_ctrl;
	uint64_t global_ctrl, global_status;
	bool guest;	/* between a VM entry and a VM exit */
};

enum kind {
	K_NONE,
	K_EVSEL,	/* IA32_PERFEVTSELx, AMD PERF_CTLx */
	K_PMC,		/* IA32_PMCx (legacy, sign-extending) */
	K_APMC,		/* IA32_A_PMCx */
	K_AMD_CTR,	/* AMD PERF_CTRx */
	K_FIXED,
	K_FIXED_CTRL,
	K_GSTATUS,
	K_GCTRL,
	K_GCLEAR,	/* OVF_CTRL / STATUS_RESET / StatusClr */
	K_GSET,		/* STATUS_SET (v4) */
	K_PERF_CAP,
};

static struct fx86 *fx(const struct fakehw *hw)
{
	return hw->priv;
}

static uint64_t wmask(unsigned int width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static uint64_t counter_bits(const struct fx86 *f)
{
	uint64_t b = (1ull << f->nr_gp) - 1;

	if (f->intel)
		b |= ((1ull << f->nr_fixed) - 1) << 32;
	return b;
}

static enum kind classify(const struct fx86 *f, uint32_t msr, unsigned int *idx)
{
	if (f->intel) {
		if (msr >= 0xc1 && msr < 0xc1 + f->nr_gp) {
			*idx = msr - 0xc1;
			return K_PMC;
		}
		if (f->fw_write && msr >= 0x4c1 && msr < 0x4c1 + f->nr_gp) {
			*idx = msr - 0x4c1;
			return K_APMC;
		}
		if (msr >= 0x186 && msr < 0x186 + f->nr_gp) {
			*idx = msr - 0x186;
			return K_EVSEL;
		}
		if (msr == 0x345 && f->pdcm)
			return K_PERF_CAP;
		if (f->version < 2)
			return K_NONE;
		if (msr >= 0x309 && msr < 0x309 + f->nr_fixed) {
			*idx = msr - 0x309;
			return K_FIXED;
		}
		switch (msr) {
		case 0x38d:
			return K_FIXED_CTRL;
		case 0x38e:
			return K_GSTATUS;
		case 0x38f:
			return K_GCTRL;
		case 0x390:
			return K_GCLEAR;
		case 0x391:
			return f->version >= 4 ? K_GSET : K_NONE;
		}
		return K_NONE;
	}
	/* Legacy addresses: on core-extension parts they alias counters 0-3. */
	if (msr >= 0xc0010000u && msr < 0xc0010004u && msr - 0xc0010000u < f->nr_gp) {
		*idx = msr - 0xc0010000u;
		return K_EVSEL;
	}
	if (msr >= 0xc0010004u && msr < 0xc0010008u && msr - 0xc0010004u < f->nr_gp) {
		*idx = msr - 0xc0010004u;
		return K_AMD_CTR;
	}
	if (f->amd_ext && msr >= 0xc0010200u && msr < 0xc0010200u + 2 * f->nr_gp) {
		*idx = (msr - 0xc0010200u) / 2;
		return (msr & 1) ? K_AMD_CTR : K_EVSEL;
	}
	if (f->amd_v2) {
		switch (msr) {
		case 0xc0000300u:
			return K_GSTATUS;
		case 0xc0000301u:
			return K_GCTRL;
		case 0xc0000302u:
			return K_GCLEAR;
		}
	}
	return K_NONE;
}

static uint64_t evsel_valid(const struct fx86 *f)
{
	uint64_t v = 0xffffffffull;

	if (f->intel) {
		if (f->version < 3)
			v &= ~EVSEL_ANY;
		if (f->rtm)
			v |= EVSEL_IN_TX | EVSEL_IN_TXCP;
		return v;
	}
	v &= ~(EVSEL_PC | EVSEL_ANY);
	if (f->cfg.amd_family >= 0x10)
		v |= (0xfull << 32) | AMD_GUEST_ONLY | AMD_HOST_ONLY;
	return v;
}

static uint64_t fixed_ctrl_valid(const struct fx86 *f)
{
	uint64_t v = 0, field = f->version >= 3 ? 0xf : 0xb;
	unsigned int j;

	for (j = 0; j < f->nr_fixed; j++)
		v |= field << (4 * j);
	return v;
}

static uint64_t gclear_valid(const struct fx86 *f)
{
	uint64_t v = counter_bits(f);

	if (f->intel) {
		v |= 3ull << 62;	/* OvfBuf, CondChgd */
		if (f->version >= 4)
			v |= (1ull << 55) | (1ull << 58) | (1ull << 59) | (1ull << 61);
	}
	return v;
}

/* Storage of a register that holds state (selects, counters, controls), or NULL. */
static uint64_t *state_reg(struct fx86 *f, enum kind k, unsigned int i)
{
	switch (k) {
	case K_EVSEL:
		return &f->evsel[i];
	case K_PMC:
	case K_APMC:
	case K_AMD_CTR:
		return &f->ctr[i];
	case K_FIXED:
		return &f->fixed[i];
	case K_FIXED_CTRL:
		return &f->fixed_ctrl;
	case K_GSTATUS:
		return &f->global_status;
	case K_GCTRL:
		return &f->global_ctrl;
	default:
		return NULL;
	}
}

static int x86_read_reg(struct fakehw *hw, uint32_t msr, uint64_t *val)
{
	struct fx86 *f = fx(hw);
	unsigned int i = 0;
	enum kind k = classify(f, msr, &i);
	uint64_t *reg = state_reg(f, k, i);

	if (reg) {
		*val = *reg;
		return 0;
	}
	switch (k) {
	case K_GCLEAR:
		*val = 0;
		return 0;
	case K_PERF_CAP:
		*val = f->fw_write ? 1ull << 13 : 0;
		return 0;
	default:
		break;
	}
	return fakehw_error(hw, "rdmsr 0x%x: not readable on this model", msr);
}

/* A full-width write of counter @i (@what): bits above the width fail. */
static int write_full(struct fakehw *hw, uint32_t msr, const char *what, unsigned int i,
		      uint64_t val, uint64_t *ctr)
{
	unsigned int width = fx(hw)->width;

	if (val & ~wmask(width))
		return fakehw_error(hw, "wrmsr 0x%x (%s %u): 0x%llx above the %u-bit width",
				    msr, what, i, (unsigned long long)val, width);
	*ctr = val;
	return 0;
}

/* The bits a write to a register of kind @k may set; all for a kind without reserved bits. */
static uint64_t valid_bits(const struct fx86 *f, enum kind k)
{
	switch (k) {
	case K_EVSEL:
		return evsel_valid(f);
	case K_FIXED_CTRL:
		return fixed_ctrl_valid(f);
	case K_GCTRL:
		return counter_bits(f);
	case K_GCLEAR:
	case K_GSET:
		return gclear_valid(f);
	default:
		return ~0ull;
	}
}

static const char *const kind_name[] = {
	[K_EVSEL] = "event select",
	[K_FIXED_CTRL] = "fixed counter control",
	[K_GCTRL] = "global control",
	[K_GCLEAR] = "status clear",
	[K_GSET] = "status set",
};

static int x86_write_reg(struct fakehw *hw, uint32_t msr, uint64_t val)
{
	struct fx86 *f = fx(hw);
	unsigned int i = 0;
	enum kind k = classify(f, msr, &i);
	uint64_t bad = val & ~valid_bits(f, k);

	if (bad)
		return fakehw_error(hw, "wrmsr 0x%x (%s): reserved bits 0x%llx", msr, kind_name[k],
				    (unsigned long long)bad);
	switch (k) {
	case K_EVSEL:
		f->evsel[i] = val;
		return 0;
	case K_PMC:
		/* Bits 31:0 only; sign-extended, then cut to the width. */
		f->ctr[i] = (uint64_t)(int64_t)(int32_t)(uint32_t)val & wmask(f->width);
		return 0;
	case K_APMC:
	case K_AMD_CTR:
		return write_full(hw, msr, "counter", i, val, &f->ctr[i]);
	case K_FIXED:
		return write_full(hw, msr, "fixed", i, val, &f->fixed[i]);
	case K_FIXED_CTRL:
		f->fixed_ctrl = val;
		return 0;
	case K_GCTRL:
		f->global_ctrl = val;
		return 0;
	case K_GCLEAR:
		f->global_status &= ~val;
		return 0;
	case K_GSET:
		f->global_status |= val;
		return 0;
	case K_GSTATUS:
		return fakehw_error(hw, "wrmsr 0x%x: global status is read-only", msr);
	case K_PERF_CAP:
		return fakehw_error(hw, "wrmsr IA32_PERF_CAPABILITIES: read-only");
	case K_NONE:
		break;
	}
	return fakehw_error(hw, "wrmsr 0x%x: no such MSR on this model", msr);
}

static int x86_read_counter(struct fakehw *hw, uint32_t idx, uint64_t *val)
{
	struct fx86 *f = fx(hw);

	if (f->intel && (idx & (1u << 30))) {
		uint32_t j = idx & ~(1u << 30);

		if (f->version >= 2 && j < f->nr_fixed) {
			*val = f->fixed[j];
			return 0;
		}
	} else if (idx < f->nr_gp) {
		*val = f->ctr[idx];
		return 0;
	}
	return fakehw_error(hw, "rdpmc 0x%x: no such counter (#GP)", idx);
}

static void vendor(uint32_t out[4], bool intel)
{
	/* EBX, EDX, ECX spell the vendor string. */
	out[1] = intel ? 0x756e6547 : 0x68747541;
	out[3] = intel ? 0x49656e69 : 0x69746e65;
	out[2] = intel ? 0x6c65746e : 0x444d4163;
}

static int x86_cpuid(struct fakehw *hw, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	static const uint32_t intel_sig[6] = { 0, 0x006e8, 0x10676, 0x306c3, 0x506e3, 0x906a3 };
	struct fx86 *f = fx(hw);
	unsigned int fam = f->cfg.amd_family;

	out[0] = out[1] = out[2] = out[3] = 0;
	if (leaf < 0x80000000u && leaf > f->max_leaf)
		goto bad;
	if (leaf >= 0x80000000u && leaf > f->max_ext)
		goto bad;
	switch (leaf) {
	case 0:
		out[0] = f->max_leaf;
		vendor(out, f->intel);
		return 0;
	case 1:
		if (f->intel)
			out[0] = intel_sig[f->version];
		else if (fam < 0xf)
			out[0] = (fam << 8) | 0x20;
		else
			out[0] = (0xfu << 8) | ((fam - 0xf) << 20) | 0x10;
		out[2] = f->pdcm ? 1u << 15 : 0;
		out[3] = 1u << 4;	/* TSC */
		return 0;
	case 7:
		if (sub)
			goto bad;
		out[1] = f->rtm ? 1u << 11 : 0;
		return 0;
	case 0xa:
		if (!f->intel)
			goto bad;
		out[0] = f->version | (f->nr_gp << 8) | (f->width << 16) | (7u << 24);
		if (f->version >= 2)
			out[3] = f->nr_fixed | (f->width << 5);
		if (f->version >= 5)
			out[2] = (1u << f->nr_fixed) - 1;
		return 0;
	case 0x80000000u:
		out[0] = f->max_ext;
		if (!f->intel)
			vendor(out, false);
		return 0;
	case 0x80000001u:
		out[2] = 1 | (f->amd_ext ? 1u << 23 : 0);
		return 0;
	case 0x80000022u:
		if (f->amd_v2) {
			out[0] = 1;
			out[1] = f->nr_gp & 0xf;
		}
		return 0;
	}
bad:
	return fakehw_error(hw, "cpuid 0x%x.%u: leaf not modelled", leaf, sub);
}

/* Does event select @sel count @ev at this privilege level? */
static bool sel_matches(const struct fx86 *f, uint64_t sel, enum fakehw_event ev, bool kernel)
{
	static const uint8_t intel_code[FAKEHW_NR_EVENTS] = { 0xc0, 0x3c, 0xc4, 0xc5 };
	static const uint8_t amd_code[FAKEHW_NR_EVENTS] = { 0xc0, 0x76, 0xc2, 0xc3 };
	uint64_t filters = 0xffffff00ull & ~(EVSEL_USR | EVSEL_OS | EVSEL_INT | EVSEL_EN |
					      EVSEL_PC | EVSEL_ANY);

	if (!(sel & EVSEL_EN) || !(sel & (kernel ? EVSEL_OS : EVSEL_USR)))
		return false;
	if (f->intel) {
		if (sel & EVSEL_IN_TX)
			return false;
		filters &= ~EVSEL_IN_TXCP;
	} else {
		if ((sel & (AMD_GUEST_ONLY | AMD_HOST_ONLY)) == (f->guest ? AMD_HOST_ONLY : AMD_GUEST_ONLY))
			return false;
		filters &= ~(AMD_GUEST_ONLY | AMD_HOST_ONLY);
	}
	if (sel & filters)	/* umask, edge, inv, cmask, event bits 35:32 */
		return false;
	return (sel & 0xff) == (f->intel ? intel_code[ev] : amd_code[ev]);
}

struct live {
	uint64_t *val;
	uint64_t status_bit;
	bool pmi;
};

static unsigned int live_counters(struct fx86 *f, enum fakehw_event ev, bool kernel,
				  struct live *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nr_gp; i++) {
		if (f->global && !(f->global_ctrl & (1ull << i)))
			continue;
		if (!sel_matches(f, f->evsel[i], ev, kernel))
			continue;
		l[n].val = &f->ctr[i];
		l[n].status_bit = f->global ? 1ull << i : 0;
		l[n].pmi = f->evsel[i] & EVSEL_INT;
		n++;
	}
	for (i = 0; f->intel && i < f->nr_fixed; i++) {
		unsigned int field = (f->fixed_ctrl >> (4 * i)) & 0xf;
		bool counts = i == 0 ? ev == FAKEHW_INSTRUCTIONS :
			      i <= 2 ? ev == FAKEHW_CYCLES : false;

		if (!counts || !(field & (kernel ? 1 : 2)) || !(f->global_ctrl & (1ull << (32 + i))))
			continue;
		l[n].val = &f->fixed[i];
		l[n].status_bit = 1ull << (32 + i);
		l[n].pmi = field & 8;
		n++;
	}
	return n;
}

/* Jump from overflow to overflow; only wraps that someone can observe stop the jump. */
static int x86_run(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel)
{
	struct fx86 *f = fx(hw);
	struct live l[NR_GP_MAX + NR_FIXED_MAX];
	uint64_t mask = wmask(f->width);

	while (n) {
		unsigned int k, nr = live_counters(f, ev, kernel, l);
		uint64_t step = n;
		bool pmi = false;

		if (!nr)
			return 0;
		for (k = 0; k < nr; k++) {
			uint64_t to_wrap = mask - *l[k].val + 1;	/* width < 64 */
			bool observable = l[k].pmi ||
					  (l[k].status_bit && !(f->global_status & l[k].status_bit));

			if (observable && to_wrap < step)
				step = to_wrap;
		}
		for (k = 0; k < nr; k++) {
			uint64_t to_wrap = mask - *l[k].val + 1;

			if (step >= to_wrap) {
				f->global_status |= l[k].status_bit;
				pmi |= l[k].pmi;
			}
			*l[k].val = (*l[k].val + step) & mask;
		}
		n -= step;
		if (pmi)
			fakehw_raise_pmi(hw);
	}
	return 0;
}

static int x86_peek(const struct fakehw *hw, uint32_t msr, uint64_t *val)
{
	struct fx86 *f = fx(hw);
	unsigned int i = 0;
	uint64_t *reg = state_reg(f, classify(f, msr, &i), i);

	if (!reg)
		return -ENODEV;
	*val = *reg;
	return 0;
}

static int x86_poke(struct fakehw *hw, uint32_t msr, uint64_t val)
{
	struct fx86 *f = fx(hw);
	unsigned int i = 0;
	enum kind k = classify(f, msr, &i);
	uint64_t *reg = state_reg(f, k, i);

	if (!reg)
		return -ENODEV;
	if (k == K_PMC || k == K_APMC || k == K_AMD_CTR || k == K_FIXED)
		val &= wmask(f->width);
	*reg = val;
	return 0;
}

static const struct fakehw_impl fake_x86_impl;

static int vm_transition(struct fakehw *hw, bool entry, bool load, uint64_t global)
{
	struct fx86 *f;
	uint64_t bad;

	if (hw->impl != &fake_x86_impl)
		return fakehw_error(hw, "VM %s on a fake that is not x86", entry ? "entry" : "exit");
	f = fx(hw);
	if (f->guest == entry)
		return fakehw_error(hw, "VM %s while %s", entry ? "entry" : "exit",
				    entry ? "in the guest" : "in the host");
	if (load) {
		if (!f->intel || !f->global)
			return fakehw_error(hw, "VM %s loads IA32_PERF_GLOBAL_CTRL, which this model lacks",
					    entry ? "entry" : "exit");
		bad = global & ~counter_bits(f);
		if (bad)
			return fakehw_error(hw, "VM %s loads global control with reserved bits 0x%llx",
					    entry ? "entry" : "exit", (unsigned long long)bad);
		f->global_ctrl = global;
	}
	f->guest = entry;
	return 0;
}

/* General counters 0-7, fixed counters 8 and up. */
static uint32_t x86_enabled(const struct fakehw *hw)
{
	const struct fx86 *f = fx(hw);
	uint32_t on = 0;
	unsigned int i;

	for (i = 0; i < f->nr_gp; i++)
		if ((f->evsel[i] & EVSEL_EN) && (!f->global || (f->global_ctrl & (1ull << i))))
			on |= 1u << i;
	for (i = 0; f->intel && i < f->nr_fixed; i++)
		if (((f->fixed_ctrl >> (4 * i)) & 3) && (f->global_ctrl & (1ull << (32 + i))))
			on |= 1u << (8 + i);
	return on;
}

static int x86_counter_of(const struct fakehw *hw, uint32_t msr)
{
	unsigned int i;

	switch (classify(fx(hw), msr, &i)) {
	case K_PMC:
	case K_APMC:
	case K_AMD_CTR:
		return (int)i;
	case K_FIXED:
		return 8 + (int)i;
	default:
		return -1;
	}
}

static const struct fakehw_impl fake_x86_impl = {
	.read_reg = x86_read_reg,
	.write_reg = x86_write_reg,
	.read_counter = x86_read_counter,
	.cpuid = x86_cpuid,
	.run = x86_run,
	.peek = x86_peek,
	.poke = x86_poke,
	.enabled = x86_enabled,
	.counter_of = x86_counter_of,
};

struct fakehw *fakehw_x86_new(const struct fakehw_x86_config *cfg)
{
	struct fx86 *f;

	if (!cfg)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->cfg = *cfg;
	if (cfg->vendor == FAKEHW_INTEL) {
		if (cfg->version < 1 || cfg->version > 5 || !cfg->nr_gp || cfg->nr_gp > NR_GP_MAX ||
		    cfg->width < 32 || cfg->width > 48 || cfg->nr_fixed > NR_FIXED_MAX ||
		    (cfg->version < 2 && cfg->nr_fixed))
			goto bad;
		f->intel = true;
		f->version = cfg->version;
		f->nr_gp = cfg->nr_gp;
		f->nr_fixed = cfg->nr_fixed;
		f->width = cfg->width;
		f->global = cfg->version >= 2;
		f->fw_write = cfg->fw_write;
		f->pdcm = cfg->version >= 2 || cfg->fw_write;
		f->rtm = cfg->version == 3 || cfg->version == 4;
		f->max_leaf = 0xd;
		f->max_ext = 0x80000008u;
		if (f->global)
			f->global_ctrl = (1ull << f->nr_gp) - 1;
	} else if (cfg->vendor == FAKEHW_AMD) {
		if (cfg->amd_family < 6 || (cfg->amd_perfmon_v2 && cfg->nr_gp > NR_GP_MAX))
			goto bad;
		f->width = 48;
		f->amd_ext = cfg->amd_core_ext || cfg->amd_perfmon_v2;
		f->amd_v2 = cfg->amd_perfmon_v2;
		f->global = f->amd_v2;
		f->nr_gp = f->amd_v2 ? (cfg->nr_gp ? cfg->nr_gp : 6) : f->amd_ext ? 6 : 4;
		f->max_leaf = cfg->amd_family >= 0x15 ? 0xd : cfg->amd_family >= 0x10 ? 5 : 1;
		f->max_ext = f->amd_v2 ? 0x80000022u : cfg->amd_family >= 0x17 ? 0x80000020u :
			     0x80000018u;
		if (f->global)
			f->global_ctrl = (1ull << f->nr_gp) - 1;
	} else {
		goto bad;
	}
	return fakehw_alloc(&fake_x86_impl, f);
bad:
	free(f);
	return NULL;
}

int fakehw_x86_vm_entry(struct fakehw *hw, bool load, uint64_t global)
{
	return vm_transition(hw, true, load, global);
}

int fakehw_x86_vm_exit(struct fakehw *hw, bool load, uint64_t global)
{
	return vm_transition(hw, false, load, global);
}
