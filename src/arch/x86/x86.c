/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * x86 backend: Intel architectural performance monitoring v1-v5 and AMD
 * (legacy four counters, core extension, PerfMonV2).
 *
 * Register image (struct pmuvirt_hwctl, see docs/x86.md):
 *   reg[0..7]	event select of general counter i (IA32_PERFEVTSELi,
 *		PERF_CTLi at 0xC0010000 + i, or 0xC0010200 + 2i)
 *   reg[8]	IA32_FIXED_CTR_CTRL (Intel with fixed counters)
 *   reg[9]	IA32_PERF_GLOBAL_CTRL or PerfCntrGlobalCtl (where present)
 * Every register the model has is part of every image, so a register a
 * context does not use is written to zero when the previous owner used it.
 * pc->cache.reg[15] is not a register: it keeps what pmi_begin() disabled.
 */
#include "pmuvirt_arch.h"
#include "pmuvirt_x86.h"

#define IMG_FIXED		8
#define IMG_GLOBAL		9
#define CACHE_PMI_SAVE		15
#define PMI_SAVE_VALID		((uint64_t)1 << 63)

/* Intel MSRs (SDM vol. 4, architectural MSRs). */
#define MSR_IA32_PMC0			0x0c1
#define MSR_IA32_PERFEVTSEL0		0x186
#define MSR_IA32_PERF_CAPABILITIES	0x345
#define MSR_IA32_A_PMC0			0x4c1
#define MSR_IA32_FIXED_CTR0		0x309
#define MSR_IA32_FIXED_CTR_CTRL		0x38d
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38e
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38f
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390

/* AMD MSRs (APM vol. 2, 13.2). */
#define MSR_AMD_PERF_CTL0		0xc0010000u
#define MSR_AMD_PERF_CTR0		0xc0010004u
#define MSR_AMD_EXT_PERF_CTL0		0xc0010200u	/* CTL at even, CTR at odd */
#define MSR_AMD_GLOBAL_STATUS		0xc0000300u
#define MSR_AMD_GLOBAL_CTL		0xc0000301u
#define MSR_AMD_GLOBAL_STATUS_CLR	0xc0000302u

/* Event select bits. */
#define EVSEL_USR		((uint64_t)1 << 16)
#define EVSEL_OS		((uint64_t)1 << 17)
#define EVSEL_EDGE		((uint64_t)1 << 18)
#define EVSEL_PC		((uint64_t)1 << 19)
#define EVSEL_INT		((uint64_t)1 << 20)
#define EVSEL_ANY		((uint64_t)1 << 21)
#define EVSEL_EN		((uint64_t)1 << 22)
#define EVSEL_OWNED		(EVSEL_USR | EVSEL_OS | EVSEL_INT | EVSEL_EN)
#define EVSEL_LOW_FREE		0xff84ffffull	/* event, umask, edge, inv, cmask */
#define INTEL_IN_TX		((uint64_t)1 << 32)
#define INTEL_IN_TXCP		((uint64_t)1 << 33)
#define AMD_EVENT_HI		(0xfull << 32)
#define AMD_GUEST_ONLY		((uint64_t)1 << 40)
#define AMD_HOST_ONLY		((uint64_t)1 << 41)

#define FIXED_OS		0x1u
#define FIXED_USR		0x2u
#define FIXED_PMI		0x8u

/* pmu->arch_data */
enum {
	AD_VENDOR,		/* X86_INTEL or X86_AMD */
	AD_VERSION,		/* Intel perfmon version */
	AD_RAW_OK,		/* raw event-select bits a control may set */
	AD_EVENTS,		/* portable events general counters can count */
	AD_HW_FIXED,		/* fixed counters in IA32_FIXED_CTR_CTRL */
	AD_FLAGS,		/* X86_F_* */
	AD_HW_GP,		/* general counters the hardware has (<= MAX_GP) */
};

#define X86_INTEL		1
#define X86_AMD			2
#define X86_F_RTM		0x1u	/* TSX qualifiers usable */
#define X86_F_LEGACY_WRITE	0x2u	/* general counters written 32-bit sign-extended */
#define X86_F_AMD_EXT		0x4u	/* AMD counters at 0xC0010200 */

static const uint8_t intel_codes[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = 0xc0,
	[PMUVIRT_EV_CYCLES] = 0x3c,
	[PMUVIRT_EV_BRANCHES] = 0xc4,
	[PMUVIRT_EV_BRANCH_MISSES] = 0xc5,
};

static const uint8_t amd_codes[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = 0xc0,
	[PMUVIRT_EV_CYCLES] = 0x76,
	[PMUVIRT_EV_BRANCHES] = 0xc2,
	[PMUVIRT_EV_BRANCH_MISSES] = 0xc3,
};

/* CPUID.0AH:EBX bit for each portable event (bit set = not available). */
static const int8_t intel_ebx_bit[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_NONE] = -1,
	[PMUVIRT_EV_INSTRUCTIONS] = 1,
	[PMUVIRT_EV_CYCLES] = 0,
	[PMUVIRT_EV_BRANCHES] = 5,
	[PMUVIRT_EV_BRANCH_MISSES] = 6,
	[PMUVIRT_EV_TSC] = -1,
};

#define GP_EVENTS ((1u << PMUVIRT_EV_INSTRUCTIONS) | (1u << PMUVIRT_EV_CYCLES) | \
		   (1u << PMUVIRT_EV_BRANCHES) | (1u << PMUVIRT_EV_BRANCH_MISSES))

static inline bool is_intel(const struct pmuvirt_pmu *pmu)
{
	return pmu->arch_data[AD_VENDOR] == X86_INTEL;
}

static inline bool has_global(const struct pmuvirt_pmu *pmu)
{
	return pmu->caps & PMUVIRT_CAP_GLOBAL_CTRL;
}

static inline unsigned int hw_gp(const struct pmuvirt_pmu *pmu)
{
	return (unsigned int)pmu->arch_data[AD_HW_GP];
}

static uint32_t evsel_msr(const struct pmuvirt_pmu *pmu, unsigned int i)
{
	if (is_intel(pmu))
		return MSR_IA32_PERFEVTSEL0 + i;
	if (pmu->arch_data[AD_FLAGS] & X86_F_AMD_EXT)
		return MSR_AMD_EXT_PERF_CTL0 + 2 * i;
	return MSR_AMD_PERF_CTL0 + i;
}

static uint32_t ctr_msr(const struct pmuvirt_pmu *pmu, const struct pmuvirt_slot *s)
{
	if (s->cls == PMUVIRT_CLASS_FIXED)
		return MSR_IA32_FIXED_CTR0 + s->index;
	if (is_intel(pmu))
		return ((pmu->caps & PMUVIRT_CAP_FW_WRITE) ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) +
		       s->index;
	if (pmu->arch_data[AD_FLAGS] & X86_F_AMD_EXT)
		return MSR_AMD_EXT_PERF_CTL0 + 2 * s->index + 1;
	return MSR_AMD_PERF_CTR0 + s->index;
}

/* Image index -> MSR. */
static uint32_t img_msr(const struct pmuvirt_pmu *pmu, unsigned int i)
{
	if (i < PMUVIRT_MAX_GP)
		return evsel_msr(pmu, i);
	if (i == IMG_FIXED)
		return MSR_IA32_FIXED_CTR_CTRL;
	return is_intel(pmu) ? MSR_IA32_PERF_GLOBAL_CTRL : MSR_AMD_GLOBAL_CTL;
}

static uint32_t img_used(const struct pmuvirt_pmu *pmu)
{
	uint32_t used = (1u << hw_gp(pmu)) - 1;

	if (pmu->arch_data[AD_HW_FIXED])
		used |= 1u << IMG_FIXED;
	if (has_global(pmu))
		used |= 1u << IMG_GLOBAL;
	return used;
}

/* Bit of @slot in GLOBAL_CTRL / GLOBAL_STATUS. */
static uint64_t global_bit(const struct pmuvirt_slot *s)
{
	if (s->cls == PMUVIRT_CLASS_FIXED)
		return (uint64_t)1 << (32 + s->index);
	return (uint64_t)1 << s->index;
}

static uint64_t slots_to_global(const struct pmuvirt_pmu *pmu, uint32_t slots)
{
	uint64_t bits = 0;
	unsigned int s;

	for (s = 0; s < pmu->nr_slots; s++)
		if ((slots & (1u << s)) && pmu->slot[s].cls != PMUVIRT_CLASS_TSC)
			bits |= global_bit(&pmu->slot[s]);
	return bits;
}

static uint32_t global_to_slots(const struct pmuvirt_pmu *pmu, uint64_t bits)
{
	uint32_t slots = 0;
	unsigned int s;

	for (s = 0; s < pmu->nr_slots; s++)
		if (pmu->slot[s].cls != PMUVIRT_CLASS_TSC && (bits & global_bit(&pmu->slot[s])))
			slots |= 1u << s;
	return slots;
}

static PMUVIRT_CF_CHECK bool x86_slot_ok(const struct pmuvirt_pmu *pmu,
					 const struct pmuvirt_counter_ctl *ctr, unsigned int slot)
{
	const struct pmuvirt_slot *s = &pmu->slot[slot];
	bool raw = ctr->flags & PMUVIRT_CTR_RAW;

	switch (s->cls) {
	case PMUVIRT_CLASS_GP:
		if (raw && (ctr->event & INTEL_IN_TXCP) && is_intel(pmu) &&
		    (pmu->arch_data[AD_FLAGS] & X86_F_RTM))
			/* SDM: IN_TXCP is only supported on IA32_PERFEVTSEL2. */
			return s->index == 2;
		if (raw)
			return true;
		return ctr->event != PMUVIRT_EV_NONE && ctr->event != PMUVIRT_EV_TSC &&
		       ctr->event < PMUVIRT_EV_NR;
	case PMUVIRT_CLASS_FIXED:
	case PMUVIRT_CLASS_TSC:
		return !raw && pmuvirt_slot_counts(pmu, slot, (unsigned int)ctr->event);
	}
	return false;
}

/* Check a raw code; returns 0 or a negative errno with the reason in @err. */
static int check_raw(const struct pmuvirt_pmu *pmu, unsigned int i, uint64_t code,
		     struct pmuvirt_error *err)
{
	uint64_t ok = pmu->arch_data[AD_RAW_OK];

	if (code & EVSEL_OWNED)
		return pmuvirt_fail(err, (int)i,
				    "event select bits 16, 17, 20, 22 (USR, OS, INT, EN) belong to pmuvirt",
				    -EINVAL);
	if (code & EVSEL_ANY)
		return pmuvirt_fail(err, (int)i,
				    "bit 21 (AnyThread on Intel) would count the other hardware thread",
				    -EINVAL);
	if (code & EVSEL_PC)
		return pmuvirt_fail(err, (int)i, "bit 19 (pin control) drives an external pin",
				    -EINVAL);
	if (is_intel(pmu)) {
		if ((code & (INTEL_IN_TX | INTEL_IN_TXCP)) &&
		    !(pmu->arch_data[AD_FLAGS] & X86_F_RTM))
			return pmuvirt_fail(err, (int)i,
					    "TSX qualifiers (bits 32, 33) need a CPU with RTM",
					    -EOPNOTSUPP);
		if (code & ~ok)
			return pmuvirt_fail(err, (int)i, "Intel event select bits 63:34 are reserved",
					    -EINVAL);
		return 0;
	}
	if (code & (AMD_HOST_ONLY | AMD_GUEST_ONLY))
		return pmuvirt_fail(err, (int)i,
				    "HostOnly/GuestOnly (bits 41, 40): pmuvirt switches counters itself",
				    -EINVAL);
	if (code & AMD_EVENT_HI & ~ok)
		return pmuvirt_fail(err, (int)i, "event select bits 35:32 do not exist on family 0Fh",
				    -EINVAL);
	if (code & ~ok)
		return pmuvirt_fail(err, (int)i, "AMD event select reserved bits are set", -EINVAL);
	return 0;
}

static PMUVIRT_CF_CHECK int x86_encode(const struct pmuvirt_pmu *pmu,
				       const struct pmuvirt_control *ctl, const uint8_t *slots,
				       struct pmuvirt_hwctl *img, struct pmuvirt_error *err)
{
	uint32_t taken = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < PMUVIRT_HWCTL_REGS; i++)
		img->reg[i] = 0;
	img->used = img_used(pmu);
	img->reserved = 0;

	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];
		bool raw = c->flags & PMUVIRT_CTR_RAW;
		const struct pmuvirt_slot *s;
		uint64_t sel;

		if (slots[i] >= pmu->nr_slots || (taken & (1u << slots[i])))
			return pmuvirt_fail(err, (int)i, "bad slot assignment", -EINVAL);
		taken |= 1u << slots[i];
		s = &pmu->slot[slots[i]];

		if (!raw && c->event >= PMUVIRT_EV_NR)
			return pmuvirt_fail(err, (int)i, "unknown event", -EINVAL);
		if (s->cls == PMUVIRT_CLASS_TSC || (!raw && c->event == PMUVIRT_EV_TSC)) {
			if (raw || c->event != PMUVIRT_EV_TSC || s->cls != PMUVIRT_CLASS_TSC)
				return pmuvirt_fail(err, (int)i, "the TSC slot counts only the TSC",
						    -EINVAL);
			continue;
		}
		if (!(c->flags & (PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL)))
			return pmuvirt_fail(err, (int)i, "counts neither user nor kernel mode",
					    -EINVAL);

		if (s->cls == PMUVIRT_CLASS_FIXED) {
			uint64_t f = FIXED_PMI;

			if (raw || !pmuvirt_slot_counts(pmu, slots[i], (unsigned int)c->event))
				return pmuvirt_fail(err, (int)i,
						    "a fixed counter counts only its own event", -EINVAL);
			if (c->flags & PMUVIRT_CTR_KERNEL)
				f |= FIXED_OS;
			if (c->flags & PMUVIRT_CTR_USER)
				f |= FIXED_USR;
			img->reg[IMG_FIXED] |= f << (4 * s->index);
			if (has_global(pmu))
				img->reg[IMG_GLOBAL] |= global_bit(s);
			continue;
		}

		if (raw) {
			ret = check_raw(pmu, i, c->event, err);
			if (ret)
				return ret;
			if ((c->event & INTEL_IN_TXCP) && is_intel(pmu) && s->index != 2)
				return pmuvirt_fail(err, (int)i,
						    "IN_TXCP (bit 33) works only on general counter 2",
						    -EINVAL);
			sel = c->event;
		} else {
			if (c->event == PMUVIRT_EV_NONE)
				return pmuvirt_fail(err, (int)i, "unknown event", -EINVAL);
			if (!(pmu->arch_data[AD_EVENTS] & (1u << c->event)))
				return pmuvirt_fail(err, (int)i,
						    "event not available on this CPU (CPUID.0AH:EBX)",
						    -EOPNOTSUPP);
			sel = is_intel(pmu) ? intel_codes[c->event] : amd_codes[c->event];
		}
		/* a-mode counters interrupt too: the core folds wraps in the PMI. */
		sel |= EVSEL_EN | EVSEL_INT;
		if (c->flags & PMUVIRT_CTR_USER)
			sel |= EVSEL_USR;
		if (c->flags & PMUVIRT_CTR_KERNEL)
			sel |= EVSEL_OS;
		img->reg[s->index] = sel;
		if (has_global(pmu))
			img->reg[IMG_GLOBAL] |= global_bit(s);
	}
	return 0;
}

static PMUVIRT_CF_CHECK int x86_load(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	const struct pmuvirt_hwctl *img = &ctx->img;
	uint32_t used = img_used(pmu) & img->used;
	unsigned int i;
	int ret, n = 0;

	pc->cache.reg[CACHE_PMI_SAVE] = 0;
	/* Ascending order: GLOBAL_CTRL (index 9) goes last. */
	for (i = 0; i < PMUVIRT_HWCTL_REGS; i++) {
		if (!(used & (1u << i)))
			continue;
		ret = pmuvirt_cache_write(pc, i, img_msr(pmu, i), img->reg[i]);
		if (ret < 0)
			return ret;
		n += ret;
		/*
		 * Legacy writes reach only the low 32 bits: start a newly programmed
		 * counter in the sign-extended range so that its 32-bit view and its
		 * physical wrap (the PMI) stay in step.
		 */
		if (i < PMUVIRT_MAX_GP && ret &&
		    (pmu->arch_data[AD_FLAGS] & X86_F_LEGACY_WRITE) && (img->reg[i] & EVSEL_EN)) {
			ret = pmuvirt_hw_write_reg(pc, MSR_IA32_PMC0 + i, 0x80000000u);
			if (ret)
				return ret;
		}
	}
	return n;
}

static PMUVIRT_CF_CHECK int x86_stop(struct pmuvirt_pcpu *pc)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	unsigned int i;
	int ret;

	pc->cache.reg[CACHE_PMI_SAVE] = 0;
	if (has_global(pmu))
		return pmuvirt_cache_write(pc, IMG_GLOBAL, img_msr(pmu, IMG_GLOBAL), 0);
	for (i = 0; i < hw_gp(pmu); i++) {
		uint64_t v = 0;

		if (pc->cache_known & (1u << i)) {
			v = pc->cache.reg[i] & ~EVSEL_EN;
			if (v == pc->cache.reg[i])
				continue;
		}
		ret = pmuvirt_cache_write(pc, i, evsel_msr(pmu, i), v);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static PMUVIRT_CF_CHECK int x86_read(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *val)
{
	const struct pmuvirt_slot *s = &pc->pmu->slot[slot];
	uint32_t idx = s->index;
	int ret;

	if (s->cls == PMUVIRT_CLASS_TSC)
		return pmuvirt_hw_read_tsc(pc, val);
	if (s->cls == PMUVIRT_CLASS_FIXED)
		idx |= 1u << 30;
	ret = pmuvirt_hw_read_counter(pc, idx, val);
	if (!ret)
		*val &= pmuvirt_width_mask(s->width);
	return ret;
}

static PMUVIRT_CF_CHECK int x86_write(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t val)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	const struct pmuvirt_slot *s = &pmu->slot[slot];

	if (s->cls == PMUVIRT_CLASS_TSC)
		return -EINVAL;
	if (val & ~pmuvirt_width_mask(s->width))
		return -ERANGE;
	/* Legacy slots are 32 bits wide: the hardware sign-extends the rest. */
	return pmuvirt_hw_write_reg(pc, ctr_msr(pmu, s), val);
}

static int global_regs(const struct pmuvirt_pmu *pmu, uint32_t *ctrl, uint32_t *status,
		       uint32_t *clear)
{
	if (is_intel(pmu)) {
		*ctrl = MSR_IA32_PERF_GLOBAL_CTRL;
		*status = MSR_IA32_PERF_GLOBAL_STATUS;
		*clear = MSR_IA32_PERF_GLOBAL_OVF_CTRL;
	} else {
		*ctrl = MSR_AMD_GLOBAL_CTL;
		*status = MSR_AMD_GLOBAL_STATUS;
		*clear = MSR_AMD_GLOBAL_STATUS_CLR;
	}
	return 0;
}

static PMUVIRT_CF_CHECK int x86_pmi_begin(struct pmuvirt_pcpu *pc, uint32_t *status)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint64_t *save = &pc->cache.reg[CACHE_PMI_SAVE];
	uint32_t r_ctrl, r_status, r_clear;
	uint64_t v, mask = 0;
	unsigned int i;
	int ret;

	*status = 0;
	if (has_global(pmu)) {
		global_regs(pmu, &r_ctrl, &r_status, &r_clear);
		if (pc->cache_known & (1u << IMG_GLOBAL)) {
			v = pc->cache.reg[IMG_GLOBAL];
		} else {
			ret = pmuvirt_hw_read_reg(pc, r_ctrl, &v);
			if (ret)
				return ret;
		}
		if (!(*save & PMI_SAVE_VALID))
			*save = v | PMI_SAVE_VALID;
		ret = pmuvirt_cache_write(pc, IMG_GLOBAL, r_ctrl, 0);
		if (ret < 0)
			return ret;
		ret = pmuvirt_hw_read_reg(pc, r_status, &v);
		if (ret)
			return ret;
		*status = global_to_slots(pmu, v);
		return 0;
	}

	/* No status register: stop every enabled counter, report them all. */
	for (i = 0; i < hw_gp(pmu); i++) {
		if (!(pc->cache_known & (1u << i))) {
			ret = pmuvirt_hw_read_reg(pc, evsel_msr(pmu, i), &v);
			if (ret)
				return ret;
			pc->cache.reg[i] = v;
			pc->cache_known |= 1u << i;
		}
		v = pc->cache.reg[i];
		if (!(v & EVSEL_EN))
			continue;
		ret = pmuvirt_cache_write(pc, i, evsel_msr(pmu, i), v & ~EVSEL_EN);
		if (ret < 0)
			return ret;
		mask |= 1u << i;
	}
	if (!(*save & PMI_SAVE_VALID))
		*save = mask | PMI_SAVE_VALID;
	for (i = 0; i < pmu->nr_slots; i++)
		if (pmu->slot[i].cls != PMUVIRT_CLASS_TSC)
			*status |= 1u << i;
	return 0;
}

static PMUVIRT_CF_CHECK int x86_clear_status(struct pmuvirt_pcpu *pc, uint32_t slots)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint32_t r_ctrl, r_status, r_clear;
	uint64_t bits;

	if (!(pmu->caps & PMUVIRT_CAP_GLOBAL_STATUS))
		return 0;
	bits = slots_to_global(pmu, slots);
	if (!bits)
		return 0;
	global_regs(pmu, &r_ctrl, &r_status, &r_clear);
	return pmuvirt_hw_write_ctl(pc, r_clear, bits);
}

static PMUVIRT_CF_CHECK int x86_pmi_end(struct pmuvirt_pcpu *pc, uint32_t clear)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint64_t save = pc->cache.reg[CACHE_PMI_SAVE];
	unsigned int i;
	int ret;

	/* Clear before re-enabling, or the PMI would be raised again. */
	ret = x86_clear_status(pc, clear);
	if (ret)
		return ret;
	if (!(save & PMI_SAVE_VALID))
		return 0;	/* load() or stop() since pmi_begin() decided */
	pc->cache.reg[CACHE_PMI_SAVE] = 0;
	save &= ~PMI_SAVE_VALID;
	if (has_global(pmu))
		return pmuvirt_cache_write(pc, IMG_GLOBAL, img_msr(pmu, IMG_GLOBAL), save);
	for (i = 0; i < hw_gp(pmu); i++) {
		if (!(save & (1u << i)) || !(pc->cache_known & (1u << i)))
			continue;
		ret = pmuvirt_cache_write(pc, i, evsel_msr(pmu, i), pc->cache.reg[i] | EVSEL_EN);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static const struct pmuvirt_arch_ops x86_ops = {
	.name = "x86",
	.encode = x86_encode,
	.slot_ok = x86_slot_ok,
	.load = x86_load,
	.stop = x86_stop,
	.read = x86_read,
	.write = x86_write,
	.arm = NULL,
	.pmi_begin = x86_pmi_begin,
	.pmi_end = x86_pmi_end,
	.clear_status = x86_clear_status,
};

/* Probing. */

static void set_name(struct pmuvirt_pmu *pmu, const char *name)
{
	unsigned int i;

	for (i = 0; i + 1 < sizeof(pmu->name) && name[i]; i++)
		pmu->name[i] = name[i];
	for (; i < sizeof(pmu->name); i++)
		pmu->name[i] = 0;
}

static void add_slot(struct pmuvirt_pmu *pmu, unsigned int cls, unsigned int index,
		     unsigned int width, uint32_t events, uint32_t user_index)
{
	struct pmuvirt_slot *s = &pmu->slot[pmu->nr_slots++];

	s->cls = (uint8_t)cls;
	s->index = (uint8_t)index;
	s->width = (uint8_t)width;
	s->flags = 0;
	s->events = events;
	s->user_index = user_index;
	s->reserved = 0;
	s->threshold = 0;
}

static void reset_pmu(struct pmuvirt_pmu *pmu)
{
	unsigned int i;

	pmu->ops = &x86_ops;
	pmu->arch = PMUVIRT_ARCH_X86;
	pmu->model = PMUVIRT_X86_TSC_ONLY;
	pmu->caps = 0;
	pmu->nr_slots = 0;
	pmu->nr_gp = 0;
	pmu->nr_fixed = 0;
	for (i = 0; i < PMUVIRT_MAX_SLOTS; i++) {
		struct pmuvirt_slot *s = &pmu->slot[i];

		s->cls = s->index = s->width = s->flags = 0;
		s->events = s->user_index = s->reserved = 0;
		s->threshold = 0;
	}
	for (i = 0; i < 8; i++)
		pmu->arch_data[i] = 0;
	pmu->lower = NULL;
	set_name(pmu, "x86 TSC only");
}

static void add_tsc(struct pmuvirt_pmu *pmu)
{
	add_slot(pmu, PMUVIRT_CLASS_TSC, 0, 64, 1u << PMUVIRT_EV_TSC, PMUVIRT_SHARED_TSC);
}

static int probe_intel(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *arg,
		       uint32_t max_leaf)
{
	static const char *const names[] = {
		"Intel arch perfmon v1", "Intel arch perfmon v2", "Intel arch perfmon v3",
		"Intel arch perfmon v4", "Intel arch perfmon v5",
	};
	uint32_t a[4], l1[4], l7[4] = { 0 };
	unsigned int version, nr_gp, width, len, nr_fixed = 0, fwidth = 0, i, bitmap = 0;
	uint32_t events = 0;
	uint64_t caps = 0;
	int ret;

	if (max_leaf < 0xa)
		return 0;
	ret = hw->cpuid(arg, 0xa, 0, a);
	if (ret)
		return ret;
	version = a[0] & 0xff;
	nr_gp = (a[0] >> 8) & 0xff;
	width = (a[0] >> 16) & 0xff;
	len = a[0] >> 24;
	if (!version || (!nr_gp && version < 2))
		return 0;
	if (nr_gp && (width < 32 || width > 64))
		return 0;
	if (version >= 2) {
		nr_fixed = a[3] & 0x1f;
		fwidth = (a[3] >> 5) & 0xff;
		if (version >= 5)
			bitmap = a[2];
		if (fwidth < 32 || fwidth > 64)
			nr_fixed = bitmap = 0;
	}
	ret = hw->cpuid(arg, 1, 0, l1);
	if (ret)
		return ret;
	if (l1[2] & (1u << 15)) {	/* PDCM: IA32_PERF_CAPABILITIES exists */
		ret = hw->read_reg(arg, MSR_IA32_PERF_CAPABILITIES, &caps);
		if (ret)
			return ret;
	}
	if (max_leaf >= 7) {
		ret = hw->cpuid(arg, 7, 0, l7);
		if (ret)
			return ret;
	}

	for (i = PMUVIRT_EV_INSTRUCTIONS; i < PMUVIRT_EV_NR; i++) {
		int bit = intel_ebx_bit[i];

		if (bit >= 0 && (unsigned int)bit < len && !(a[1] & (1u << bit)))
			events |= 1u << i;
	}

	pmu->model = PMUVIRT_X86_INTEL_V1 + (version > 5 ? 4 : version - 1);
	set_name(pmu, names[pmu->model - PMUVIRT_X86_INTEL_V1]);
	pmu->arch_data[AD_VENDOR] = X86_INTEL;
	pmu->arch_data[AD_VERSION] = version;
	pmu->arch_data[AD_EVENTS] = events;
	pmu->arch_data[AD_RAW_OK] = EVSEL_LOW_FREE;
	if (version >= 3 && (l7[1] & (1u << 11))) {	/* CPUID.7.0:EBX.RTM */
		pmu->arch_data[AD_FLAGS] |= X86_F_RTM;
		pmu->arch_data[AD_RAW_OK] |= INTEL_IN_TX | INTEL_IN_TXCP;
	}
	if (version >= 2)
		pmu->caps |= PMUVIRT_CAP_GLOBAL_CTRL | PMUVIRT_CAP_GLOBAL_STATUS;
	if (caps & (1u << 13))
		pmu->caps |= PMUVIRT_CAP_FW_WRITE;
	else
		pmu->arch_data[AD_FLAGS] |= X86_F_LEGACY_WRITE;

	if (nr_gp > PMUVIRT_MAX_GP)
		nr_gp = PMUVIRT_MAX_GP;
	pmu->arch_data[AD_HW_GP] = nr_gp;
	for (i = 0; i < nr_gp; i++)
		add_slot(pmu, PMUVIRT_CLASS_GP, i,
			 (pmu->caps & PMUVIRT_CAP_FW_WRITE) ? width : 32, events, i + 1);
	pmu->nr_gp = nr_gp;

	/* v5: counter i exists if ECX bit i is set or i < EDX[4:0]. */
	for (i = 0; i < 32 && version >= 2; i++) {
		uint32_t ev = 0;

		if (!(i < nr_fixed || (bitmap & (1u << i))))
			continue;
		pmu->arch_data[AD_HW_FIXED] = i + 1;
		if (pmu->nr_fixed >= PMUVIRT_MAX_FIXED)
			continue;
		if (i == 0)
			ev = 1u << PMUVIRT_EV_INSTRUCTIONS;
		else if (i == 1)
			ev = 1u << PMUVIRT_EV_CYCLES;
		add_slot(pmu, PMUVIRT_CLASS_FIXED, i, fwidth, ev, ((1u << 30) | i) + 1);
		pmu->nr_fixed++;
	}
	return 0;
}

static int probe_amd(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *arg)
{
	uint32_t l1[4], e0[4], e1[4] = { 0 }, e22[4] = { 0 };
	unsigned int family, nr, i;
	int ret;

	ret = hw->cpuid(arg, 1, 0, l1);
	if (ret)
		return ret;
	family = (l1[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (l1[0] >> 20) & 0xff;
	if (family < 6)
		return 0;
	ret = hw->cpuid(arg, 0x80000000u, 0, e0);
	if (ret)
		return ret;
	if (e0[0] >= 0x80000001u) {
		ret = hw->cpuid(arg, 0x80000001u, 0, e1);
		if (ret)
			return ret;
	}
	if (e0[0] >= 0x80000022u) {
		ret = hw->cpuid(arg, 0x80000022u, 0, e22);
		if (ret)
			return ret;
	}

	pmu->arch_data[AD_VENDOR] = X86_AMD;
	pmu->arch_data[AD_EVENTS] = GP_EVENTS;
	pmu->arch_data[AD_RAW_OK] = EVSEL_LOW_FREE | (family >= 0x10 ? AMD_EVENT_HI : 0);
	if (e22[0] & 1) {
		pmu->model = PMUVIRT_X86_AMD_PERFMON_V2;
		pmu->caps |= PMUVIRT_CAP_GLOBAL_CTRL | PMUVIRT_CAP_GLOBAL_STATUS;
		pmu->arch_data[AD_FLAGS] |= X86_F_AMD_EXT;
		nr = e22[1] & 0xf;
		set_name(pmu, "AMD PerfMonV2");
	} else if (e1[2] & (1u << 23)) {
		pmu->model = PMUVIRT_X86_AMD_CORE_EXT;
		pmu->arch_data[AD_FLAGS] |= X86_F_AMD_EXT;
		nr = 6;
		set_name(pmu, "AMD core performance extension");
	} else {
		pmu->model = PMUVIRT_X86_AMD_LEGACY;
		nr = 4;
		set_name(pmu, "AMD legacy PMU");
	}
	pmu->caps |= PMUVIRT_CAP_FW_WRITE;	/* PERF_CTRs take all 48 bits */
	if (nr > PMUVIRT_MAX_GP)
		nr = PMUVIRT_MAX_GP;
	pmu->arch_data[AD_HW_GP] = nr;
	for (i = 0; i < nr; i++)
		add_slot(pmu, PMUVIRT_CLASS_GP, i, 48, GP_EVENTS, i + 1);
	pmu->nr_gp = nr;
	if (!nr)
		reset_pmu(pmu);
	return 0;
}

int pmuvirt_x86_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *hw_arg)
{
	uint32_t l0[4];
	int ret;

	if (!pmu || !hw || !hw->cpuid)
		return -ENODEV;
	reset_pmu(pmu);
	if (hw->cpuid(hw_arg, 0, 0, l0))
		return -ENODEV;
	/* Vendor string in EBX, EDX, ECX. */
	if (l0[1] == 0x756e6547 && l0[3] == 0x49656e69 && l0[2] == 0x6c65746e)
		ret = probe_intel(pmu, hw, hw_arg, l0[0]);
	else if (l0[1] == 0x68747541 && l0[3] == 0x69746e65 && l0[2] == 0x444d4163)
		ret = probe_amd(pmu, hw, hw_arg);
	else
		ret = 0;
	if (ret) {
		reset_pmu(pmu);
		return ret;
	}
	if (!pmu->nr_gp && !pmu->nr_fixed)
		reset_pmu(pmu);
	add_tsc(pmu);
	return 0;
}
