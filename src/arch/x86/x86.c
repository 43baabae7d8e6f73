/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * x86 backend, the part both vendors share: the register image, load,
 * stop, counter access, the PMI, probing by vendor and the MSR lookup.
 * What differs lives in the typed layout (pmuvirt_x86_pmu.h) that the
 * vendor's probe fills: Intel architectural perfmon v1-v5 in intel.c, AMD
 * (legacy four counters, core extension, PerfMonV2) in amd.c.
 *
 * Register image (struct pmuvirt_hwctl, see docs/x86.md):
 *   reg[0..7]	event select of general counter i (layout evsel + stride * i)
 *   reg[8]	IA32_FIXED_CTR_CTRL (Intel with fixed counters)
 *   reg[9]	IA32_PERF_GLOBAL_CTRL or PerfCntrGlobalCtl (where present)
 *   reg[10]	Intel, guest-only counting (PMUVIRT_X86_F_GUEST_SWITCH): not a
 *		register but the enable bits of PMUVIRT_CTR_GUEST counters,
 *		which the host adds to IA32_PERF_GLOBAL_CTRL at VM entry; reg[9]
 *		holds the rest, the value while the host runs
 * Every register the model has is part of every image, so a register a
 * context does not use is written to zero when the previous owner used it.
 * pc->cache.reg[14] and [15] are not registers: they keep what
 * pmi_begin() disabled.
 */
#include "pmuvirt_x86_pmu.h"

#define IMG_FIXED		8
#define IMG_GLOBAL		9
#define IMG_VM			10
#define CACHE_PMI_SAVE_VM	14
#define CACHE_PMI_SAVE		15
#define PMI_SAVE_VALID		((uint64_t)1 << 63)

#define EVSEL_OWNED		(PMUVIRT_EVSEL_USR | PMUVIRT_EVSEL_OS | PMUVIRT_EVSEL_INT | \
				 PMUVIRT_EVSEL_EN)

static inline const struct pmuvirt_x86_layout *lay(const struct pmuvirt_pmu *pmu)
{
	return pmuvirt_x86_layout(pmu);
}

static inline bool has_global(const struct pmuvirt_pmu *pmu)
{
	return pmu->caps & PMUVIRT_CAP_GLOBAL_CTRL;
}

static inline unsigned int hw_gp(const struct pmuvirt_pmu *pmu)
{
	return lay(pmu)->nr_gp;
}

static uint32_t evsel_msr(const struct pmuvirt_pmu *pmu, unsigned int i)
{
	return lay(pmu)->evsel + lay(pmu)->stride * i;
}

/* Where a write to general counter @i goes. */
static uint32_t gp_write_msr(const struct pmuvirt_pmu *pmu, unsigned int i)
{
	return lay(pmu)->ctr_write + lay(pmu)->stride * i;
}

static uint32_t ctr_msr(const struct pmuvirt_pmu *pmu, const struct pmuvirt_slot *s)
{
	if (s->cls == PMUVIRT_CLASS_FIXED)
		return lay(pmu)->fixed_ctr + s->index;
	return gp_write_msr(pmu, s->index);
}

/* Image index -> MSR. */
static uint32_t img_msr(const struct pmuvirt_pmu *pmu, unsigned int i)
{
	if (i < PMUVIRT_MAX_GP)
		return evsel_msr(pmu, i);
	if (i == IMG_FIXED)
		return lay(pmu)->fixed_ctrl;
	return lay(pmu)->global_ctrl;
}

static uint32_t img_used(const struct pmuvirt_pmu *pmu)
{
	uint32_t used = (1u << hw_gp(pmu)) - 1;

	if (lay(pmu)->nr_fixed)
		used |= 1u << IMG_FIXED;
	if (has_global(pmu))
		used |= 1u << IMG_GLOBAL;
	if (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_SWITCH)
		used |= 1u << IMG_VM;
	return used;
}

/*
 * Set the guest-only enable bits (image register IMG_VM): no register is
 * written, the host loads them at VM entry.  Returns 1 when they changed.
 */
static int set_vm_bits(struct pmuvirt_pcpu *pc, uint64_t val)
{
	uint32_t bit = 1u << IMG_VM;

	if ((pc->cache_known & bit) && pc->cache.reg[IMG_VM] == val)
		return 0;
	pc->cache.reg[IMG_VM] = val;
	pc->cache_known |= bit;
	return 1;
}

/* The guest-only enable bits in force, 0 when not known. */
static uint64_t vm_bits(const struct pmuvirt_pcpu *pc)
{
	return (pc->cache_known & (1u << IMG_VM)) ? pc->cache.reg[IMG_VM] : 0;
}

/* Bit of @slot in GLOBAL_CTRL / GLOBAL_STATUS. */
static uint64_t global_bit(const struct pmuvirt_slot *s)
{
	if (s->cls == PMUVIRT_CLASS_FIXED)
		return (uint64_t)1 << (32 + s->index);
	return (uint64_t)1 << s->index;
}

/*
 * Slots 0 .. nr_gp - 1 are the general counters in order; the fixed
 * counters follow in ascending order, numbered 0 .. nr_fixed - 1 unless
 * CPUID's v5 bitmap leaves holes (PMUVIRT_X86_F_FIXED_HOLES, set at probe).
 * Without holes the mapping is two masks and a shift.
 */
static inline bool fixed_dense(const struct pmuvirt_pmu *pmu)
{
	return !(lay(pmu)->flags & PMUVIRT_X86_F_FIXED_HOLES);
}

static uint64_t slots_to_global(const struct pmuvirt_pmu *pmu, uint32_t slots)
{
	uint64_t bits = 0;
	unsigned int s;

	if (pmuvirt_likely(fixed_dense(pmu)))
		return (slots & ((1u << pmu->nr_gp) - 1)) |
		       (uint64_t)((slots >> pmu->nr_gp) & ((1u << pmu->nr_fixed) - 1)) << 32;
	for (s = 0; s < pmu->nr_slots; s++)
		if ((slots & (1u << s)) && pmu->slot[s].cls != PMUVIRT_CLASS_TSC)
			bits |= global_bit(&pmu->slot[s]);
	return bits;
}

static uint32_t global_to_slots(const struct pmuvirt_pmu *pmu, uint64_t bits)
{
	uint32_t slots = 0;
	unsigned int s;

	if (pmuvirt_likely(fixed_dense(pmu)))
		return ((uint32_t)bits & ((1u << pmu->nr_gp) - 1)) |
		       ((uint32_t)(bits >> 32) & ((1u << pmu->nr_fixed) - 1)) << pmu->nr_gp;
	for (s = 0; s < pmu->nr_slots; s++)
		if (pmu->slot[s].cls != PMUVIRT_CLASS_TSC && (bits & global_bit(&pmu->slot[s])))
			slots |= 1u << s;
	return slots;
}

static PMUVIRT_CF_CHECK bool x86_slot_ok(const struct pmuvirt_pmu *pmu,
					 const struct pmuvirt_counter_ctl *ctr, unsigned int slot)
{
	const struct pmuvirt_x86_vendor *v = lay(pmu)->vendor;
	const struct pmuvirt_slot *s = &pmu->slot[slot];
	bool raw = ctr->flags & PMUVIRT_CTR_RAW;

	switch (s->cls) {
	case PMUVIRT_CLASS_GP:
		if (raw)
			return !v->raw_fits || v->raw_fits(lay(pmu), ctr->event, s->index);
		return ctr->event != PMUVIRT_EV_NONE && ctr->event != PMUVIRT_EV_TSC &&
		       ctr->event < PMUVIRT_EV_NR;
	case PMUVIRT_CLASS_FIXED:
	case PMUVIRT_CLASS_TSC:
		return !raw && pmuvirt_slot_counts(pmu, slot, (unsigned int)ctr->event);
	}
	return false;
}

/*
 * Check raw code @code of counter @i, placed on general counter @index;
 * returns 0 or a negative errno with the reason in @err.
 */
static int check_raw(const struct pmuvirt_pmu *pmu, unsigned int i, unsigned int index,
		     uint64_t code, struct pmuvirt_error *err)
{
	if (code & EVSEL_OWNED)
		return pmuvirt_fail(err, (int)i,
				    "event select bits 16, 17, 20, 22 (USR, OS, INT, EN) belong to pmuvirt",
				    -EINVAL);
	if (code & PMUVIRT_EVSEL_ANY)
		return pmuvirt_fail(err, (int)i,
				    "bit 21 (AnyThread on Intel) would count the other hardware thread",
				    -EINVAL);
	if (code & PMUVIRT_EVSEL_PC)
		return pmuvirt_fail(err, (int)i, "bit 19 (pin control) drives an external pin",
				    -EINVAL);
	return lay(pmu)->vendor->check_raw(lay(pmu), i, index, code, err);
}

/* Image register of counter @c's enable bit: while the host runs, or at VM entry only. */
static unsigned int global_reg(const struct pmuvirt_pmu *pmu, const struct pmuvirt_counter_ctl *c)
{
	if ((c->flags & PMUVIRT_CTR_GUEST) && (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_SWITCH))
		return IMG_VM;
	return IMG_GLOBAL;
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
			uint64_t f = PMUVIRT_FIXED_PMI;

			if (raw || !pmuvirt_slot_counts(pmu, slots[i], (unsigned int)c->event))
				return pmuvirt_fail(err, (int)i,
						    "a fixed counter counts only its own event", -EINVAL);
			if (c->flags & PMUVIRT_CTR_KERNEL)
				f |= PMUVIRT_FIXED_OS;
			if (c->flags & PMUVIRT_CTR_USER)
				f |= PMUVIRT_FIXED_USR;
			img->reg[IMG_FIXED] |= f << (4 * s->index);
			if (has_global(pmu))
				img->reg[global_reg(pmu, c)] |= global_bit(s);
			continue;
		}

		if (raw) {
			ret = check_raw(pmu, i, s->index, c->event, err);
			if (ret)
				return ret;
			sel = c->event;
		} else {
			if (c->event == PMUVIRT_EV_NONE)
				return pmuvirt_fail(err, (int)i, "unknown event", -EINVAL);
			if (!(lay(pmu)->events & (1u << c->event)))
				return pmuvirt_fail(err, (int)i,
						    "event not available on this CPU (CPUID.0AH:EBX)",
						    -EOPNOTSUPP);
			sel = lay(pmu)->vendor->codes[c->event];
		}
		/* a-mode counters interrupt too: the core folds wraps in the PMI. */
		sel |= PMUVIRT_EVSEL_EN | PMUVIRT_EVSEL_INT;
		if (c->flags & PMUVIRT_CTR_USER)
			sel |= PMUVIRT_EVSEL_USR;
		if (c->flags & PMUVIRT_CTR_KERNEL)
			sel |= PMUVIRT_EVSEL_OS;
		if ((c->flags & PMUVIRT_CTR_GUEST) && (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_BITS))
			sel |= PMUVIRT_EVSEL_AMD_GUEST_ONLY;
		img->reg[s->index] = sel;
		if (has_global(pmu))
			img->reg[global_reg(pmu, c)] |= global_bit(s);
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
		if (i == IMG_VM) {
			n += set_vm_bits(pc, img->reg[i]);
			continue;
		}
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
		    (lay(pmu)->flags & PMUVIRT_X86_F_LEGACY_WRITE) &&
		    (img->reg[i] & PMUVIRT_EVSEL_EN)) {
			ret = pmuvirt_hw_write_reg(pc, gp_write_msr(pmu, i), 0x80000000u);
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
	if (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_SWITCH)
		set_vm_bits(pc, 0);
	if (has_global(pmu))
		return pmuvirt_cache_write(pc, IMG_GLOBAL, img_msr(pmu, IMG_GLOBAL), 0);
	for (i = 0; i < hw_gp(pmu); i++) {
		uint64_t v = 0;

		if (pc->cache_known & (1u << i)) {
			v = pc->cache.reg[i] & ~PMUVIRT_EVSEL_EN;
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
		idx |= PMUVIRT_RDPMC_FIXED;
	ret = pmuvirt_hw_read_counter(pc, idx, val);
	if (!ret)
		*val &= pmuvirt_width_mask(s->width);
	return ret;
}

/* What x86_read() reads: an rdpmc index, or the TSC. */
static PMUVIRT_CF_CHECK int x86_read_index(const struct pmuvirt_pmu *pmu, unsigned int slot,
					   uint32_t *idx)
{
	const struct pmuvirt_slot *s = &pmu->slot[slot];

	if (s->cls == PMUVIRT_CLASS_TSC) {
		*idx = PMUVIRT_HW_INDEX_TSC;
		return 0;
	}
	*idx = s->index;
	if (s->cls == PMUVIRT_CLASS_FIXED)
		*idx |= PMUVIRT_RDPMC_FIXED;
	return 0;
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

static PMUVIRT_CF_CHECK int x86_pmi_begin(struct pmuvirt_pcpu *pc, uint32_t *status)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint64_t *save = &pc->cache.reg[CACHE_PMI_SAVE];
	uint64_t v, mask = 0;
	unsigned int i;
	int ret;

	*status = 0;
	if (has_global(pmu)) {
		if (pc->cache_known & (1u << IMG_GLOBAL)) {
			v = pc->cache.reg[IMG_GLOBAL];
		} else {
			ret = pmuvirt_hw_read_reg(pc, lay(pmu)->global_ctrl, &v);
			if (ret)
				return ret;
		}
		if (!(*save & PMI_SAVE_VALID)) {
			*save = v | PMI_SAVE_VALID;
			pc->cache.reg[CACHE_PMI_SAVE_VM] = vm_bits(pc);
		}
		if (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_SWITCH)
			set_vm_bits(pc, 0);
		ret = pmuvirt_cache_write(pc, IMG_GLOBAL, lay(pmu)->global_ctrl, 0);
		if (ret < 0)
			return ret;
		ret = pmuvirt_hw_read_reg(pc, lay(pmu)->global_status, &v);
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
		if (!(v & PMUVIRT_EVSEL_EN))
			continue;
		ret = pmuvirt_cache_write(pc, i, evsel_msr(pmu, i), v & ~PMUVIRT_EVSEL_EN);
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
	uint64_t bits;

	if (!(pmu->caps & PMUVIRT_CAP_GLOBAL_STATUS))
		return 0;
	bits = slots_to_global(pmu, slots);
	if (!bits)
		return 0;
	return pmuvirt_hw_write_ctl(pc, lay(pmu)->global_clear, bits);
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
	if (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_SWITCH)
		set_vm_bits(pc, pc->cache.reg[CACHE_PMI_SAVE_VM]);
	if (has_global(pmu))
		return pmuvirt_cache_write(pc, IMG_GLOBAL, img_msr(pmu, IMG_GLOBAL), save);
	for (i = 0; i < hw_gp(pmu); i++) {
		if (!(save & (1u << i)) || !(pc->cache_known & (1u << i)))
			continue;
		ret = pmuvirt_cache_write(pc, i, evsel_msr(pmu, i),
					  pc->cache.reg[i] | PMUVIRT_EVSEL_EN);
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
	.read_index = x86_read_index,
	.write = x86_write,
	.arm = NULL,
	.pmi_begin = x86_pmi_begin,
	.pmi_end = x86_pmi_end,
	.clear_status = x86_clear_status,
};

/* Probing. */

static void reset_pmu(struct pmuvirt_pmu *pmu)
{
	pmuvirt_pmu_clear(pmu);
	pmu->ops = &x86_ops;
	pmu->arch = PMUVIRT_ARCH_X86;
	pmu->model = PMUVIRT_X86_TSC_ONLY;
	pmuvirt_pmu_set_name(pmu, NULL, "x86 TSC only");
}

void pmuvirt_x86_add_gp(struct pmuvirt_pmu *pmu)
{
	const struct pmuvirt_x86_layout *l = lay(pmu);
	unsigned int i;

	for (i = 0; i < l->nr_gp; i++)
		pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_GP, i, l->gp_width, l->events, i + 1, 0);
	pmu->nr_gp = l->nr_gp;
}

int pmuvirt_x86_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *hw_arg)
{
	uint32_t l0[4];
	int ret;

	if (!pmu || !hw || !hw->read_cpuid)
		return -ENODEV;
	reset_pmu(pmu);
	if (hw->read_cpuid(hw_arg, 0, 0, l0))
		return -ENODEV;
	/* Vendor string in EBX, EDX, ECX. */
	if (l0[1] == 0x756e6547 && l0[3] == 0x49656e69 && l0[2] == 0x6c65746e)
		ret = pmuvirt_x86_intel_probe(pmu, hw, hw_arg, l0[0]);
	else if (l0[1] == 0x68747541 && l0[3] == 0x69746e65 && l0[2] == 0x444d4163)
		ret = pmuvirt_x86_amd_probe(pmu, hw, hw_arg);
	else
		ret = 0;
	if (ret) {
		reset_pmu(pmu);
		return ret;
	}
	if (!pmu->nr_gp && !pmu->nr_fixed)
		reset_pmu(pmu);
	pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_TSC, 0, 64, 1u << PMUVIRT_EV_TSC,
			     PMUVIRT_SHARED_TSC, 0);
	return 0;
}

int pmuvirt_x86_status_msr(const struct pmuvirt_pmu *pmu, uint32_t *msr)
{
	if (!pmu || pmu->ops != &x86_ops)
		return -EINVAL;
	if (!lay(pmu)->global_status)
		return -ENODEV;
	*msr = lay(pmu)->global_status;
	return 0;
}

int pmuvirt_x86_slot_msrs(const struct pmuvirt_pmu *pmu, unsigned int slot, uint32_t *ctr,
			  uint32_t *ctl)
{
	const struct pmuvirt_slot *s;
	const struct pmuvirt_x86_layout *l;

	if (!pmu || pmu->ops != &x86_ops || slot >= pmu->nr_slots)
		return -EINVAL;
	s = &pmu->slot[slot];
	l = lay(pmu);
	switch (s->cls) {
	case PMUVIRT_CLASS_GP:
		*ctr = l->ctr + l->stride * s->index;
		*ctl = evsel_msr(pmu, s->index);
		return 0;
	case PMUVIRT_CLASS_FIXED:
		*ctr = l->fixed_ctr + s->index;
		*ctl = l->fixed_ctrl;
		return 0;
	}
	return -EINVAL;
}

int pmuvirt_x86_guest_only(const struct pmuvirt_pmu *pmu)
{
	if (!pmu || pmu->ops != &x86_ops || !(pmu->caps & PMUVIRT_CAP_GUEST_ONLY))
		return PMUVIRT_X86_GUEST_NONE;
	if (lay(pmu)->flags & PMUVIRT_X86_F_GUEST_SWITCH)
		return PMUVIRT_X86_GUEST_SWITCH;
	return PMUVIRT_X86_GUEST_BITS;
}

int pmuvirt_x86_vm_global_ctrl(struct pmuvirt_pcpu *pc, uint64_t *host, uint64_t *guest)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint64_t v;
	int ret;

	if (pmuvirt_x86_guest_only(pmu) != PMUVIRT_X86_GUEST_SWITCH)
		return -ENODEV;
	if (!(pc->cache_known & (1u << IMG_GLOBAL))) {
		ret = pmuvirt_hw_read_reg(pc, lay(pmu)->global_ctrl, &v);
		if (ret)
			return ret;
		pc->cache.reg[IMG_GLOBAL] = v;
		pc->cache_known |= 1u << IMG_GLOBAL;
	}
	*host = pc->cache.reg[IMG_GLOBAL];
	*guest = *host | vm_bits(pc);
	return 0;
}
