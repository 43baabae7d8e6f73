/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz the emulated PMU (pmuvirt/vpmu.h) the way a hypervisor drives it:
 * two VCPUs with emulated PMUs on one CPU of a strict fake x86 PMU, and a
 * sequence of guest RDMSR, WRMSR (any MSR of the model, any value, biased
 * to event selects and counter values), RDPMC, CPUID, host PMIs (events
 * in user or kernel mode), VCPU switches, save and restore (and corrupted
 * blobs), resets, event policies, the host's own counters in VCPU a's
 * context, the loss of the PMU's state and a PV VCPU's switches between its
 * kernel and user mode.
 *
 * Checked at every step against a shadow of every guest counter of both
 * VCPUs: a successful counter write reads back as the architecture says
 * (IA32_PMCx sign-extended from bit 31 and cut to the width, the others
 * as written), selects and controls read back as written, STATUS_RESET
 * and STATUS_SET clear and set their bits, a refused write or restore
 * changes nothing; a VCPU that does not run keeps its values whatever the
 * other does and whatever events happen; while one runs, n events move
 * each of its counters by 0 or n (modulo its width; 0 for a PV VCPU's
 * counter that selects only the mode it is not in), never by another
 * VCPU's events, and give its guest exactly one overflow for each counter
 * with its interrupt bit that wrapped, none for another counter and none
 * to the other VCPU; a blob that restores saves back to the same bytes.  At
 * the end a VCPU released while it runs leaves no counter enabled, and
 * the fake refused no register access throughout.
 *
 * Input: host byte (the rig's model; bit 7: a cross-vendor guest model),
 * mode byte (bit 0: VCPU b in another domain; bit 1: HVM guest-only
 * counting where the PMU can; bit 2: a's context starts with host
 * counters), then records: op byte (bits 0-3 the operation, bit 4 the
 * VCPU, bits 5-7 a variant) and its argument bytes: WRMSR (0, 1) an index
 * into the model's MSRs and 8 value bytes (variant 1: 2 more, an event
 * select from a table of codes; 2: minus the low 16 bits at a width of 40
 * to 55; 3: a byte shifted), RDMSR (2) an index, switch (3) a, b or none,
 * events (4, 5) the kind and 2^(b & 31) + (b >> 5) of them (variant bit 0:
 * kernel mode), CPUID (6), deliver (7), save and restore (8; variant bit 0
 * corrupts a byte, bit 1 then fixes the check), reset (9), policy (10),
 * RDPMC (11), the host's counters of a (12), the PMU's state lost (13),
 * detach (14, 15).
 */
#include "fuzz_rig.h"
#include <pmuvirt/vpmu.h>

#define MAX_STEPS	96
#define NR		PMUVIRT_VPMU_COUNTERS

struct vcpu {
	struct pmuvirt_ctx *ctx;
	struct pmuvirt_vpmu vp;
	uint64_t shadow[NR];
	unsigned int pmis;
	unsigned int ovfs;	/* overflows delivered, counted one per bit */
	uint64_t ovf;		/* their bits, or-ed */
};

struct fz {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_vpmu_model m;
	struct vcpu v[2];
	uint32_t msr[128];
	unsigned int nr_msr;
	struct pmuvirt_control own;
	struct pmuvirt_policy pol;
};

static void guest_pmi(void *arg, uint64_t ovf)
{
	struct vcpu *v = arg;

	if (!ovf)
		abort();
	v->pmis++;
	v->ovfs += (unsigned int)__builtin_popcountll(ovf);
	v->ovf |= ovf;
}

static void host_pmi(void *arg)
{
	struct fz *f = arg;
	unsigned int k;
	uint32_t mask;

	if (pmuvirt_pmi(&f->pc, &mask))
		abort();
	for (k = 0; k < 2; k++)
		if (f->pc.running == f->v[k].ctx && pmuvirt_vpmu_deliver(&f->pc, &f->v[k].vp))
			abort();
}

static void check_hw(const struct fz *f)
{
	if (fakehw_stats(f->hw)->errors)
		abort();
}

static inline struct pmuvirt_pcpu *pc_of(struct fz *f, unsigned int k)
{
	return f->v[k].ctx->running_on;
}

static bool intel(const struct pmuvirt_vpmu_model *m)
{
	return m->vendor == PMUVIRT_VPMU_INTEL;
}

/* The counter MSR of guest counter @g (0 when the model lacks it), for writes. */
static uint32_t ctr_msr(const struct pmuvirt_vpmu_model *m, unsigned int g, bool full)
{
	if (g >= PMUVIRT_VPMU_MAX_GP) {
		unsigned int j = g - PMUVIRT_VPMU_MAX_GP;

		if (!intel(m) || m->version < 2 ||
		    !(j < m->nr_fixed || (m->version >= 5 && (m->fixed_mask >> j & 1))))
			return 0;
		return 0x309 + j;
	}
	if (g >= m->nr_gp)
		return 0;
	if (intel(m))
		return full && (m->flags & PMUVIRT_VPMU_M_FW_WRITE) ? 0x4c1 + g : 0xc1 + g;
	return m->version >= PMUVIRT_VPMU_AMD_CORE_EXT ? 0xc0010201u + 2 * g : 0xc0010004u + g;
}

static unsigned int width_of(const struct pmuvirt_vpmu_model *m, unsigned int g)
{
	return g < PMUVIRT_VPMU_MAX_GP ? m->width : m->fixed_width;
}

static uint64_t wmask(unsigned int w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Guest counter @g of VCPU @k as the guest reads it (0 when the model lacks it). */
static uint64_t value(struct fz *f, unsigned int k, unsigned int g)
{
	uint32_t msr = ctr_msr(&f->m, g, false);
	uint64_t v;

	if (!msr)
		return 0;
	if (pmuvirt_vpmu_rdmsr(pc_of(f, k), &f->v[k].vp, msr, &v))
		abort();
	return v;
}

static void refresh(struct fz *f, unsigned int k)
{
	unsigned int g;

	for (g = 0; g < NR; g++)
		f->v[k].shadow[g] = value(f, k, g);
}

/* Every guest counter reads its shadow. */
static void unchanged(struct fz *f, unsigned int k)
{
	unsigned int g;

	for (g = 0; g < NR; g++)
		if (value(f, k, g) != f->v[k].shadow[g])
			abort();
}

/* Has guest counter @g of @v its interrupt bit set? */
static bool irq_bit(const struct vcpu *v, unsigned int g)
{
	if (g < PMUVIRT_VPMU_MAX_GP)
		return v->vp.evtsel[g] & (1ull << 20);
	return (v->vp.fixed_ctrl >> (4 * (g - PMUVIRT_VPMU_MAX_GP))) & 0x8;
}

/* Does guest counter @g of a PV VCPU select only the mode @v is not in? */
static bool muted_now(const struct vcpu *v, unsigned int g)
{
	uint64_t both, sel;

	if (!(v->vp.flags & PMUVIRT_VPMU_F_PV))
		return false;
	if (g < PMUVIRT_VPMU_MAX_GP) {
		sel = v->vp.evtsel[g] & (3ull << 16);
		both = 3ull << 16;
		return sel != both && sel == (v->vp.pv_kernel ? 1ull << 16 : 1ull << 17);
	}
	sel = (v->vp.fixed_ctrl >> (4 * (g - PMUVIRT_VPMU_MAX_GP))) & 3;
	return sel == (v->vp.pv_kernel ? 2u : 1u);
}

/*
 * @n events ran (fewer than 2^32, so a counter wraps at most once): a VCPU
 * that ran moved each counter by 0 or n, the other none.  The guest got
 * exactly one overflow for each counter with its interrupt bit that
 * wrapped in the run, none for any other, and the other VCPU none.
 */
static void after_run(struct fz *f, int running, uint64_t n, const unsigned int *ovfs)
{
	unsigned int k, g;

	for (k = 0; k < 2; k++) {
		uint64_t wrapped = 0;

		if ((int)k != running) {
			unchanged(f, k);
			if (f->v[k].ovfs != ovfs[k])
				abort();
			continue;
		}
		for (g = 0; g < NR; g++) {
			uint64_t m = wmask(width_of(&f->m, g)), v = value(f, k, g);
			uint64_t d = (v - f->v[k].shadow[g]) & m;

			if (d && d != (n & m))
				abort();
			if (d && muted_now(&f->v[k], g))
				abort();
			if (d && v < f->v[k].shadow[g] && irq_bit(&f->v[k], g))
				wrapped |= g < PMUVIRT_VPMU_MAX_GP ? 1ull << g :
					   1ull << (32 + g - PMUVIRT_VPMU_MAX_GP);
			f->v[k].shadow[g] = v;
		}
		if (f->v[k].ovf != wrapped ||
		    f->v[k].ovfs - ovfs[k] != (unsigned int)__builtin_popcountll(wrapped))
			abort();
	}
}

static const uint16_t codes[] = {
	0xc0, 0x3c, 0xc4, 0xc5, 0x76, 0xc2, 0xc3, 0x4f2e, 0x412e, 0x013c, 0x40, 0x00,
};

/* A value for @msr from the input: raw, select-like, counter-like or a few bits. */
static uint64_t make_value(const uint8_t **d, size_t *len, uint8_t variant)
{
	uint64_t raw;
	uint8_t b[2];

	take(d, len, &raw, sizeof(raw));
	switch (variant & 3) {
	case 0:
		return raw;
	case 1:
		take(d, len, b, 2);
		return codes[b[0] % (sizeof(codes) / sizeof(codes[0]))] |
		       ((uint64_t)(b[1] & 0x7) << 16) | ((uint64_t)(b[1] & 0x8) << 17) |
		       ((uint64_t)1 << 22) | (b[1] & 0x10 ? raw & 0xff84ff00ull : 0) |
		       (b[1] & 0x20 ? (uint64_t)(b[1] >> 6) << 40 : 0);
	case 2:
		/* -n at a width of 40 to 55 bits (48: raw bits 63:60 = 8) */
		return (0 - (raw & 0xffff)) & wmask(40 + (unsigned int)(raw >> 60));
	default:
		return (raw & 0xff) << ((raw >> 8) & 63);
	}
}

/* What reading @msr gives right after a write of @val took effect, or false to skip. */
static bool expect_read(const struct fz *f, uint32_t msr, uint64_t val, uint64_t *want)
{
	const struct pmuvirt_vpmu_model *m = &f->m;
	unsigned int g;

	for (g = 0; g < NR; g++) {
		uint32_t legacy = ctr_msr(m, g, false), full = ctr_msr(m, g, true);
		uint64_t mask = wmask(width_of(m, g));

		if (!legacy)
			continue;
		if (intel(m) && g < PMUVIRT_VPMU_MAX_GP && msr == legacy) {
			*want = (uint64_t)(int64_t)(int32_t)(uint32_t)val & mask;
			return true;
		}
		if (msr == full || msr == legacy) {
			*want = val;
			return true;
		}
	}
	switch (msr) {
	case 0x38e: case 0x345: case 0xc0000300u:
		return false;		/* read-only */
	case 0x390: case 0x391: case 0xc0000302u: case 0xc0000303u:
		*want = 0;
		return true;
	}
	*want = val;
	return true;
}

/* Guest counter of a counter MSR, or -1. */
static int counter_of(const struct fz *f, uint32_t msr)
{
	unsigned int g;

	for (g = 0; g < NR; g++)
		if (ctr_msr(&f->m, g, false) == msr || ctr_msr(&f->m, g, true) == msr)
			return (int)g;
	if (!intel(&f->m))	/* the legacy addresses of counters 0-3 */
		for (g = 0; g < 4 && g < f->m.nr_gp; g++)
			if (msr == 0xc0010004u + g)
				return (int)g;
	return -1;
}

static void op_wrmsr(struct fz *f, unsigned int k, uint8_t variant, const uint8_t **d,
		     size_t *len)
{
	struct vcpu *v = &f->v[k];
	struct pmuvirt_vpmu before = v->vp;
	uint64_t val, got, want, status = 0;
	uint8_t idx = 0;
	uint32_t msr;
	int ret, g;

	take(d, len, &idx, 1);
	msr = f->msr[idx % f->nr_msr];
	val = make_value(d, len, variant);
	if (msr == 0x38e || msr == 0xc0000300u)
		status = 1;
	ret = pmuvirt_vpmu_wrmsr(pc_of(f, k), &v->vp, msr, val);
	check_hw(f);
	if (ret == -EINVAL) {
		/* a #GP changes nothing */
		if (memcmp(&before, &v->vp, sizeof(before)))
			abort();
		unchanged(f, k);
		return;
	}
	if (ret || status)
		abort();
	if (expect_read(f, msr, val, &want)) {
		if (pmuvirt_vpmu_rdmsr(pc_of(f, k), &v->vp, msr, &got) || got != want)
			abort();
	}
	if (msr == 0x390 || msr == 0xc0000302u || msr == 0x391 || msr == 0xc0000303u) {
		uint32_t st = intel(&f->m) ? 0x38e : 0xc0000300u;

		if (pmuvirt_vpmu_rdmsr(pc_of(f, k), &v->vp, st, &got))
			abort();
		/* a new overflow may set a bit again only if that counter could have wrapped: none ran */
		if ((msr == 0x390 || msr == 0xc0000302u) ? (got & val) != 0 : (got & val) != val)
			abort();
	}
	g = counter_of(f, msr);
	if (g >= 0)
		v->shadow[g] = value(f, k, (unsigned int)g);
	unchanged(f, k);
	unchanged(f, !k);
}

/* Save a VCPU that does not run; restore the blob (or a corruption of it). */
static void op_save(struct fz *f, unsigned int k, uint8_t variant, const uint8_t **d, size_t *len)
{
	struct vcpu *v = &f->v[k];
	struct pmuvirt_vpmu_saved blob, again;
	struct pmuvirt_vpmu before;
	struct pmuvirt_error err;
	uint8_t c[3] = { 0 };
	unsigned int g;
	int ret;

	take(d, len, c, sizeof(c));
	if (v->ctx->running_on) {
		if (pmuvirt_vpmu_save(&v->vp, &blob) != -EBUSY)
			abort();
		return;
	}
	if (pmuvirt_vpmu_save(&v->vp, &blob))
		abort();
	for (g = 0; g < NR; g++)
		if (blob.value[g] != v->shadow[g])
			abort();
	if (variant & 1) {
		((uint8_t *)&blob)[c[0] % sizeof(blob)] ^= c[1];
		if (variant & 2)
			blob.check = pmuvirt_vpmu_saved_check(&blob);
	}
	before = v->vp;
	ret = pmuvirt_vpmu_restore(&v->vp, &blob, &err);
	check_hw(f);
	if (ret) {
		if (ret != -EINVAL || memcmp(&before, &v->vp, sizeof(before)))
			abort();
		unchanged(f, k);
		return;
	}
	for (g = 0; g < NR; g++)
		if (value(f, k, g) != blob.value[g])
			abort();
	if (pmuvirt_vpmu_save(&v->vp, &again) || memcmp(&again, &blob, sizeof(blob)))
		abort();
	refresh(f, k);
	unchanged(f, !k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pmuvirt_vpmu_model cross[2] = {
		{ .vendor = PMUVIRT_VPMU_AMD, .version = PMUVIRT_VPMU_AMD_CORE_EXT, .nr_gp = 6,
		  .width = 48, .family = 0x17 },
		{ .vendor = PMUVIRT_VPMU_INTEL, .version = 4, .nr_gp = 4, .nr_fixed = 3, .width = 48,
		  .fixed_width = 48, .flags = PMUVIRT_VPMU_M_FW_WRITE },
	};
	static const uint32_t ranges[][2] = {
		{ 0xc1, 0xc9 }, { 0x186, 0x18e }, { 0x309, 0x30d }, { 0x345, 0x346 },
		{ 0x38d, 0x392 }, { 0x4c1, 0x4c9 }, { 0xc0010000, 0xc0010008 },
		{ 0xc0010200, 0xc0010210 }, { 0xc0000300, 0xc0000304 },
	};
	struct fz *f = calloc(1, sizeof(*f));
	size_t csize = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	uint8_t host = 0, mode = 0;
	unsigned int k, i, steps;
	uint32_t flags = 0, msr;

	if (!f)
		abort();
	take(&data, &size, &host, 1);
	take(&data, &size, &mode, 1);
	f->hw = fakehw_x86_new(&rig_configs[(host & 0x7f) % RIG_NR_CONFIGS]);
	if (!f->hw || pmuvirt_x86_probe(&f->pmu, fakehw_ops(f->hw), f->hw) ||
	    pmuvirt_pcpu_init(&f->pc, &f->pmu, fakehw_ops(f->hw), f->hw, 0))
		abort();
	fakehw_set_pmi(f->hw, host_pmi, f);
	if (host & 0x80) {
		f->m = cross[f->pmu.model < PMUVIRT_X86_AMD_LEGACY ? 0 : 1];
	} else if (pmuvirt_vpmu_model_host(&f->pmu, &f->m)) {
		abort();
	}
	if ((mode & 2) && (f->pmu.caps & PMUVIRT_CAP_GUEST_ONLY) &&
	    pmuvirt_x86_guest_only(&f->pmu) == PMUVIRT_X86_GUEST_BITS)
		flags = PMUVIRT_VPMU_F_GUEST_ONLY;
	else if (mode & 8)
		flags = PMUVIRT_VPMU_F_PV;
	for (k = 0; k < 2; k++) {
		f->v[k].ctx = calloc(1, csize);
		if (!f->v[k].ctx || pmuvirt_ctx_init(f->v[k].ctx, csize, &f->pmu) ||
		    pmuvirt_ctx_set_domain(f->v[k].ctx, k && (mode & 1) ? 2 : 1) ||
		    pmuvirt_vpmu_init(&f->v[k].vp, f->v[k].ctx, &f->m, flags, guest_pmi, &f->v[k]))
			abort();
	}
	f->own = (struct pmuvirt_control){ .version = PMUVIRT_ABI_VERSION, .nr_counters = 2,
		.counter = { { .event = PMUVIRT_EV_INSTRUCTIONS, .flags = PMUVIRT_CTR_USER },
			     { .event = PMUVIRT_EV_TSC } } };
	if ((mode & 4) && pmuvirt_vpmu_set_host(NULL, &f->v[0].vp, &f->own, 0, 2, NULL))
		abort();
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		for (msr = ranges[i][0]; msr < ranges[i][1]; msr++)
			if (pmuvirt_vpmu_has_msr(&f->m, msr))
				f->msr[f->nr_msr++] = msr;
	if (!f->nr_msr)
		abort();

	for (steps = 0; steps < MAX_STEPS && size; steps++) {
		uint8_t op = 0, a = 0, b = 0;
		unsigned int kk;
		uint64_t v;

		take(&data, &size, &op, 1);
		k = (op >> 4) & 1;
		kk = !k;
		switch (op & 0xf) {
		case 0:
		case 1:
			op_wrmsr(f, k, op >> 5, &data, &size);
			break;
		case 2: {
			take(&data, &size, &a, 1);
			msr = f->msr[a % f->nr_msr];
			if (pmuvirt_vpmu_rdmsr(pc_of(f, k), &f->v[k].vp, msr, &v))
				abort();
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		}
		case 3:
			take(&data, &size, &a, 1);
			if (pmuvirt_switch(&f->pc, a % 3 == 2 ? NULL : f->v[a % 3].ctx))
				abort();
			if (a % 3 != 2 && pmuvirt_vpmu_deliver(&f->pc, &f->v[a % 3].vp))
				abort();
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		case 4:
		case 5: {
			int running = f->pc.running == f->v[0].ctx ? 0 :
				      f->pc.running == f->v[1].ctx ? 1 : -1;
			unsigned int ovfs[2] = { f->v[0].ovfs, f->v[1].ovfs };
			uint64_t n;

			take(&data, &size, &a, 1);
			take(&data, &size, &b, 1);
			n = ((uint64_t)1 << (b & 31)) + (b >> 5);
			f->v[0].ovf = f->v[1].ovf = 0;
			if (fakehw_run(f->hw, (enum fakehw_event)(a % FAKEHW_NR_EVENTS), n, op & 0x20))
				abort();
			after_run(f, running, n, ovfs);
			break;
		}
		case 6: {
			uint32_t r[4] = { 0x11, 0x22, 0x33, 0x44 };
			static const uint32_t leaves[] = { 0, 1, 7, 0xa, 0x80000001u, 0x80000022u };

			take(&data, &size, &a, 1);
			pmuvirt_vpmu_cpuid(&f->m, leaves[a % 6], 0, r);
			break;
		}
		case 7:
			if (pmuvirt_vpmu_deliver(pc_of(f, k), &f->v[k].vp))
				abort();
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		case 8:
			op_save(f, k, op >> 5, &data, &size);
			break;
		case 9:
			if (pmuvirt_vpmu_reset(pc_of(f, k), &f->v[k].vp))
				abort();
			for (i = 0; i < NR; i++)
				if (value(f, k, i))
					abort();
			refresh(f, k);
			unchanged(f, kk);
			break;
		case 10:
			take(&data, &size, &a, 1);
			f->pol = (struct pmuvirt_policy){ .version = PMUVIRT_ABI_VERSION,
				.action = PMUVIRT_POLICY_DENY,
				.events = (a & 0x1e) };
			if (pmuvirt_vpmu_set_policy(pc_of(f, k), &f->v[k].vp, a & 1 ? &f->pol : NULL))
				abort();
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		case 11: {
			uint32_t ecx;

			take(&data, &size, &ecx, sizeof(ecx));
			if (op & 0x20)
				ecx &= 0x4000000f;
			if (!pmuvirt_vpmu_rdpmc(pc_of(f, k), &f->v[k].vp, ecx, &v)) {
				int g = (ecx & 0x40000000u) ? PMUVIRT_VPMU_MAX_GP + (int)(ecx & 0xf) :
							      (int)ecx;

				if (g >= NR || v != f->v[k].shadow[g])
					abort();
			}
			break;
		}
		case 12:
			/* the host's own counters in a's context, or none */
			take(&data, &size, &a, 1);
			(void)pmuvirt_vpmu_set_host(pc_of(f, 0), &f->v[0].vp, a & 1 ? &f->own : NULL,
						    0, a & 1 ? 2 : 0, NULL);
			check_hw(f);
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		case 13:
			/* the PMU's state is gone: the running VCPU loses its events since the last sample */
			pmuvirt_pcpu_invalidate(&f->pc);
			refresh(f, 0);
			refresh(f, 1);
			break;
		case 14:
			/* a PV VCPU between its kernel and user mode: no value moves */
			if (pmuvirt_vpmu_pv_mode(pc_of(f, k), &f->v[k].vp, op & 0x20) !=
			    (flags & PMUVIRT_VPMU_F_PV ? 0 : -EINVAL))
				abort();
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		default:
			if (pmuvirt_vpmu_detach(pc_of(f, k), &f->v[k].vp))
				abort();
			unchanged(f, 0);
			unchanged(f, 1);
			break;
		}
		check_hw(f);
	}

	/* a VCPU that goes away while it runs leaves nothing counting */
	if (pmuvirt_switch(&f->pc, f->v[0].ctx))
		abort();
	pmuvirt_ctx_release(f->v[0].ctx);
	if (f->pc.running)
		abort();
	for (i = 0; i < f->pmu.nr_slots; i++) {
		uint32_t ctr, ctl;
		uint64_t sel;

		if (pmuvirt_x86_slot_msrs(&f->pmu, i, &ctr, &ctl))
			continue;
		if (f->pmu.caps & PMUVIRT_CAP_GLOBAL_CTRL)
			ctl = f->pmu.model < PMUVIRT_X86_AMD_LEGACY ? 0x38f : 0xc0000301u;
		else if (f->pmu.slot[i].cls != PMUVIRT_CLASS_GP)
			continue;
		if (fakehw_peek(f->hw, ctl, &sel))
			abort();
		if ((f->pmu.caps & PMUVIRT_CAP_GLOBAL_CTRL) ? sel != 0 : (sel & (1ull << 22)) != 0)
			abort();
	}
	refresh(f, 0);
	if (fakehw_run(f->hw, FAKEHW_INSTRUCTIONS, 1000, false))
		abort();
	unchanged(f, 0);
	unchanged(f, 1);
	check_hw(f);
	pmuvirt_ctx_release(f->v[1].ctx);
	fakehw_free(f->hw);
	free(f->v[0].ctx);
	free(f->v[1].ctx);
	free(f);
	return 0;
}
