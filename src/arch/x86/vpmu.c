/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The emulated architectural PMU of a stock guest's VCPU (pmuvirt/vpmu.h,
 * docs/vpmu.md).  The guest's registers live in struct pmuvirt_vpmu; its
 * counting counters are counters of the VCPU's context, after the host's
 * own.  Guest counter g that counts sits on context counter idx[g], and its
 * value is (value[g] + that counter's logical count) modulo its width, so a
 * guest's write of a counter changes value[g] and no register.  A counter
 * whose overflow the guest can see (its interrupt bit, or a GLOBAL_STATUS
 * the model has) is an i-mode counter of period 2^width whose next
 * notification is the guest counter's wrap.
 */
#include "pmuvirt_x86_pmu.h"
#include <pmuvirt/vpmu.h>

_Static_assert(sizeof(struct pmuvirt_vpmu_saved) == 224, "the saved vPMU's layout is part of the ABI");
_Static_assert(sizeof(struct pmuvirt_vpmu_model) == 16, "the vPMU model's layout is part of the ABI");

#define NONE		0xffu
#define FIXED0		PMUVIRT_VPMU_MAX_GP
#define NR		PMUVIRT_VPMU_COUNTERS

/* vp->state: the context counts the emulator's control (while its stamp is vp->stamp) */
#define ST_ATTACHED	0x1u

#define MSR_INTEL_STATUS_SET	0x391u		/* IA32_PERF_GLOBAL_STATUS_SET, v4 */
#define MSR_AMD_STATUS_SET	0xc0000303u	/* PerfCntrGlobalStatusSet */

/* GLOBAL_STATUS bits beside the counters' that RESET and SET take (SDM, "v4") */
#define INTEL_STATUS_OTHER	((1ull << 55) | (1ull << 58) | (1ull << 59) | (1ull << 61) | \
				 (1ull << 62) | (1ull << 63))
/* AMD LbrFreeze: Linux clears it at every CPU's reset (amd_pmu_cpu_reset()). */
#define AMD_STATUS_OTHER	(1ull << 58)

#define INTEL_CODE_BITS		PMUVIRT_EVSEL_LOW_FREE
#define AMD_CODE_BITS		(PMUVIRT_EVSEL_LOW_FREE | PMUVIRT_EVSEL_AMD_EVENT_HI)
#define AMD_HG			(PMUVIRT_EVSEL_AMD_GUEST_ONLY | PMUVIRT_EVSEL_AMD_HOST_ONLY)

/* CPUID bits of PMU features (SDM vol. 2A, CPUID; APM vol. 3, appendix E) */
#define CPUID1_ECX_DTES64		(1u << 2)
#define CPUID1_ECX_DSCPL		(1u << 4)
#define CPUID1_ECX_PDCM			(1u << 15)
#define CPUID1_EDX_DS			(1u << 21)
#define CPUID7_EDX_ARCH_LBR		(1u << 19)
#define CPUID7_1_EAX_PERFMON_EXT	(1u << 8)	/* leaf 23H */
#define CPUIDX1_ECX_IBS			(1u << 10)
#define CPUIDX1_ECX_PERFCTR_CORE	(1u << 23)
#define CPUIDX1_ECX_PERFCTR_NB		(1u << 24)
#define CPUIDX1_ECX_PERFCTR_LLC		(1u << 28)

/* IA32_FIXED_CTR_CTRL field bits */
#define FX_EN			(PMUVIRT_FIXED_OS | PMUVIRT_FIXED_USR)

/* What a guest's MSR is. */
enum vreg {
	V_NONE,
	V_EVTSEL,	/* IA32_PERFEVTSELx, PERF_CTLx */
	V_PMC,		/* IA32_PMCx: 32-bit writes, sign-extended */
	V_CTR,		/* IA32_A_PMCx, IA32_FIXED_CTRx, PERF_CTRx: full width */
	V_FIXED_CTRL,
	V_STATUS,
	V_CTRL,
	V_CLEAR,	/* GLOBAL_OVF_CTRL / STATUS_RESET, PerfCntrGlobalStatusClr */
	V_SET,		/* GLOBAL_STATUS_SET, PerfCntrGlobalStatusSet */
	V_CAPS,		/* IA32_PERF_CAPABILITIES */
};

static inline bool intel(const struct pmuvirt_vpmu_model *m)
{
	return m->vendor == PMUVIRT_VPMU_INTEL;
}

static inline bool has_global(const struct pmuvirt_vpmu_model *m)
{
	return intel(m) ? m->version >= 2 : m->version == PMUVIRT_VPMU_AMD_PERFMON_V2;
}

static inline bool has_caps(const struct pmuvirt_vpmu_model *m)
{
	return intel(m) && (m->version >= 2 || (m->flags & PMUVIRT_VPMU_M_FW_WRITE));
}

static bool fixed_present(const struct pmuvirt_vpmu_model *m, unsigned int j)
{
	if (!intel(m) || m->version < 2 || j >= PMUVIRT_VPMU_MAX_FIXED)
		return false;
	return j < m->nr_fixed || (m->version >= 5 && ((m->fixed_mask >> j) & 1));
}

static inline bool present(const struct pmuvirt_vpmu_model *m, unsigned int g)
{
	return g < FIXED0 ? g < m->nr_gp : fixed_present(m, g - FIXED0);
}

static inline unsigned int width(const struct pmuvirt_vpmu_model *m, unsigned int g)
{
	return g < FIXED0 ? m->width : m->fixed_width;
}

static inline uint64_t wmask(const struct pmuvirt_vpmu_model *m, unsigned int g)
{
	return pmuvirt_width_mask(width(m, g));
}

/* GLOBAL_CTRL / GLOBAL_STATUS bit of guest counter @g */
static inline uint64_t gbit(unsigned int g)
{
	return g < FIXED0 ? (uint64_t)1 << g : (uint64_t)1 << (32 + g - FIXED0);
}

static uint64_t counter_bits(const struct pmuvirt_vpmu_model *m)
{
	uint64_t b = ((uint64_t)1 << m->nr_gp) - 1;
	unsigned int j;

	for (j = 0; intel(m) && m->version >= 2 && j < PMUVIRT_VPMU_MAX_FIXED; j++)
		if (fixed_present(m, j))
			b |= gbit(FIXED0 + j);
	return b;
}

/* Bits an event select may hold (the rest is #GP). */
static uint64_t evtsel_valid(const struct pmuvirt_vpmu_model *m)
{
	/* AnyThread (Intel), bit 21 (AMD) never; pin control only on Intel */
	uint64_t v = 0xffffffffull & ~PMUVIRT_EVSEL_ANY;

	if (intel(m))
		return v;
	v &= ~PMUVIRT_EVSEL_PC;
	if (m->family >= 0x10)
		v |= PMUVIRT_EVSEL_AMD_EVENT_HI | AMD_HG;
	return v;
}

/* OS, USR and PMI of each fixed counter; AnyThread (bit 2) is #GP. */
static uint64_t fixed_ctrl_valid(const struct pmuvirt_vpmu_model *m)
{
	uint64_t v = 0;
	unsigned int j;

	for (j = 0; j < PMUVIRT_VPMU_MAX_FIXED; j++)
		if (fixed_present(m, j))
			v |= (uint64_t)(FX_EN | PMUVIRT_FIXED_PMI) << (4 * j);
	return v;
}

/* Bits GLOBAL_STATUS can hold: what the RESET and SET registers take. */
static uint64_t status_valid(const struct pmuvirt_vpmu_model *m)
{
	if (!has_global(m))
		return 0;
	if (!intel(m))
		return counter_bits(m) | AMD_STATUS_OTHER;
	return counter_bits(m) | (m->version >= 4 ? INTEL_STATUS_OTHER :
				  (1ull << 62) | (1ull << 63));
}

/* GLOBAL_CTRL's enable bits at power-on: the general counters' (SDM; APM PerfCntrGlobalCtl). */
static uint64_t global_reset(const struct pmuvirt_vpmu_model *m)
{
	return has_global(m) ? ((uint64_t)1 << m->nr_gp) - 1 : 0;
}

static enum vreg decode(const struct pmuvirt_vpmu_model *m, uint32_t msr, unsigned int *g)
{
	if (intel(m)) {
		if (msr - PMUVIRT_MSR_IA32_PMC0 < m->nr_gp) {
			*g = msr - PMUVIRT_MSR_IA32_PMC0;
			return V_PMC;
		}
		if ((m->flags & PMUVIRT_VPMU_M_FW_WRITE) && msr - PMUVIRT_MSR_IA32_A_PMC0 < m->nr_gp) {
			*g = msr - PMUVIRT_MSR_IA32_A_PMC0;
			return V_CTR;
		}
		if (msr - PMUVIRT_MSR_IA32_PERFEVTSEL0 < m->nr_gp) {
			*g = msr - PMUVIRT_MSR_IA32_PERFEVTSEL0;
			return V_EVTSEL;
		}
		if (msr == PMUVIRT_MSR_IA32_PERF_CAPABILITIES && has_caps(m))
			return V_CAPS;
		if (m->version < 2)
			return V_NONE;
		if (msr - PMUVIRT_MSR_IA32_FIXED_CTR0 < PMUVIRT_VPMU_MAX_FIXED &&
		    fixed_present(m, msr - PMUVIRT_MSR_IA32_FIXED_CTR0)) {
			*g = FIXED0 + msr - PMUVIRT_MSR_IA32_FIXED_CTR0;
			return V_CTR;
		}
		switch (msr) {
		case PMUVIRT_MSR_IA32_FIXED_CTR_CTRL:
			return V_FIXED_CTRL;
		case PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS:
			return V_STATUS;
		case PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL:
			return V_CTRL;
		case PMUVIRT_MSR_IA32_PERF_GLOBAL_OVF_CTRL:
			return V_CLEAR;
		case MSR_INTEL_STATUS_SET:
			return m->version >= 4 ? V_SET : V_NONE;
		}
		return V_NONE;
	}
	/* The legacy addresses name counters 0-3 on every AMD model. */
	if (msr - PMUVIRT_MSR_AMD_PERF_CTL0 < 4 && msr - PMUVIRT_MSR_AMD_PERF_CTL0 < m->nr_gp) {
		*g = msr - PMUVIRT_MSR_AMD_PERF_CTL0;
		return V_EVTSEL;
	}
	if (msr - PMUVIRT_MSR_AMD_PERF_CTR0 < 4 && msr - PMUVIRT_MSR_AMD_PERF_CTR0 < m->nr_gp) {
		*g = msr - PMUVIRT_MSR_AMD_PERF_CTR0;
		return V_CTR;
	}
	if (m->version >= PMUVIRT_VPMU_AMD_CORE_EXT &&
	    msr - PMUVIRT_MSR_AMD_EXT_PERF_CTL0 < 2u * m->nr_gp) {
		*g = (msr - PMUVIRT_MSR_AMD_EXT_PERF_CTL0) / 2;
		return (msr & 1) ? V_CTR : V_EVTSEL;
	}
	if (m->version != PMUVIRT_VPMU_AMD_PERFMON_V2)
		return V_NONE;
	switch (msr) {
	case PMUVIRT_MSR_AMD_GLOBAL_STATUS:
		return V_STATUS;
	case PMUVIRT_MSR_AMD_GLOBAL_CTL:
		return V_CTRL;
	case PMUVIRT_MSR_AMD_GLOBAL_STATUS_CLR:
		return V_CLEAR;
	case MSR_AMD_STATUS_SET:
		return V_SET;
	}
	return V_NONE;
}

/* Models */

static inline bool host_intel(const struct pmuvirt_pmu *pmu)
{
	return pmu->model >= PMUVIRT_X86_INTEL_V1 && pmu->model < PMUVIRT_X86_AMD_LEGACY;
}

static inline bool host_amd(const struct pmuvirt_pmu *pmu)
{
	return pmu->model >= PMUVIRT_X86_AMD_LEGACY && pmu->model < PMUVIRT_X86_TSC_ONLY;
}

int pmuvirt_vpmu_model_host(const struct pmuvirt_pmu *pmu, struct pmuvirt_vpmu_model *m)
{
	const struct pmuvirt_x86_layout *l;
	unsigned int s, j;

	if (!pmu || !m || pmu->arch != PMUVIRT_ARCH_X86 || !pmu->nr_gp)
		return -ENODEV;
	l = pmuvirt_x86_layout(pmu);
	*m = (struct pmuvirt_vpmu_model){ 0 };
	m->nr_gp = (uint8_t)(pmu->nr_gp > PMUVIRT_VPMU_MAX_GP ? PMUVIRT_VPMU_MAX_GP : pmu->nr_gp);
	if (host_amd(pmu)) {
		m->vendor = PMUVIRT_VPMU_AMD;
		m->version = pmu->model == PMUVIRT_X86_AMD_LEGACY ? PMUVIRT_VPMU_AMD_LEGACY :
			     pmu->model == PMUVIRT_X86_AMD_CORE_EXT ? PMUVIRT_VPMU_AMD_CORE_EXT :
								       PMUVIRT_VPMU_AMD_PERFMON_V2;
		if (m->version == PMUVIRT_VPMU_AMD_LEGACY && m->nr_gp != 4)
			return -ENODEV;
		if (m->version == PMUVIRT_VPMU_AMD_CORE_EXT && m->nr_gp != 6)
			return -ENODEV;
		m->width = 48;
		m->family = l->family;
		return 0;
	}
	if (!host_intel(pmu))
		return -ENODEV;
	m->vendor = PMUVIRT_VPMU_INTEL;
	m->version = (uint8_t)(pmu->model - PMUVIRT_X86_INTEL_V1 + 1);
	m->width = l->cpuid_width > 48 ? 48 : l->cpuid_width;
	m->arch_unavail = l->arch_unavail;
	if (pmu->caps & PMUVIRT_CAP_FW_WRITE)
		m->flags |= PMUVIRT_VPMU_M_FW_WRITE;
	/* fixed counters 0-2: the architectural trio */
	for (s = 0; s < pmu->nr_slots; s++) {
		const struct pmuvirt_slot *sl = &pmu->slot[s];

		if (sl->cls != PMUVIRT_CLASS_FIXED || sl->index > 2)
			continue;
		j = sl->index;
		m->fixed_width = sl->width > 48 ? 48 : sl->width;
		if (j == m->nr_fixed)
			m->nr_fixed++;
		else if (m->version >= 5)
			m->fixed_mask |= (uint8_t)(1u << j);
	}
	if (!m->nr_fixed && !m->fixed_mask)
		m->fixed_width = 0;
	return 0;
}

int pmuvirt_vpmu_model_check(const struct pmuvirt_vpmu_model *m)
{
	unsigned int i;

	if (!m)
		return -EINVAL;
	for (i = 0; i < sizeof(m->reserved); i++)
		if (m->reserved[i])
			return -EINVAL;
	if (m->vendor == PMUVIRT_VPMU_AMD) {
		if (m->nr_fixed || m->fixed_width || m->fixed_mask || m->arch_unavail || m->flags ||
		    m->width != 48 || m->family < 6)
			return -EINVAL;
		switch (m->version) {
		case PMUVIRT_VPMU_AMD_LEGACY:
			return m->nr_gp == 4 ? 0 : -EINVAL;
		case PMUVIRT_VPMU_AMD_CORE_EXT:
			return m->nr_gp == 6 ? 0 : -EINVAL;
		case PMUVIRT_VPMU_AMD_PERFMON_V2:
			return m->nr_gp >= 1 && m->nr_gp <= PMUVIRT_VPMU_MAX_GP ? 0 : -EINVAL;
		}
		return -EINVAL;
	}
	if (m->vendor != PMUVIRT_VPMU_INTEL || m->version < 1 || m->version > 5 || m->family ||
	    m->nr_gp < 1 || m->nr_gp > PMUVIRT_VPMU_MAX_GP || m->width < 32 || m->width > 48 ||
	    (m->flags & ~PMUVIRT_VPMU_M_FW_WRITE) || m->nr_fixed > PMUVIRT_VPMU_MAX_FIXED ||
	    (m->fixed_mask & ~0xfu))
		return -EINVAL;
	if (m->version < 2 && (m->nr_fixed || m->fixed_mask || m->fixed_width))
		return -EINVAL;
	if (m->version < 5 && m->fixed_mask)
		return -EINVAL;
	if (m->nr_fixed || m->fixed_mask)
		return m->fixed_width >= 32 && m->fixed_width <= 48 ? 0 : -EINVAL;
	return m->fixed_width ? -EINVAL : 0;
}

unsigned int pmuvirt_vpmu_counters(const struct pmuvirt_vpmu_model *m)
{
	unsigned int g, n = 0;

	for (g = 0; g < NR; g++)
		n += present(m, g);
	return n;
}

void pmuvirt_vpmu_cpuid(const struct pmuvirt_vpmu_model *m, uint32_t leaf, uint32_t sub,
			uint32_t regs[4])
{
	unsigned int len;

	switch (leaf) {
	case 1:
		/* PDCM; DTES64, DS-CPL and DS: no debug store (PEBS, BTS) */
		regs[2] = (regs[2] & ~(CPUID1_ECX_PDCM | CPUID1_ECX_DTES64 | CPUID1_ECX_DSCPL)) |
			  (has_caps(m) ? CPUID1_ECX_PDCM : 0);
		regs[3] &= ~CPUID1_EDX_DS;
		return;
	case 7:
		/* architectural LBR (leaf 1CH); leaf 23H's counters beyond leaf 0AH's */
		if (sub == 0)
			regs[3] &= ~CPUID7_EDX_ARCH_LBR;
		else if (sub == 1)
			regs[0] &= ~CPUID7_1_EAX_PERFMON_EXT;
		return;
	case 0x1c:
	case 0x23:
	case 0x8000001bu:
		/* architectural LBR, the extended perfmon leaf, IBS: not modelled */
		regs[0] = regs[1] = regs[2] = regs[3] = 0;
		return;
	case 0xa:
		regs[0] = regs[1] = regs[2] = regs[3] = 0;
		if (!intel(m))
			return;
		len = m->version >= 5 ? 8 : 7;
		regs[0] = m->version | (uint32_t)m->nr_gp << 8 | (uint32_t)m->width << 16 | len << 24;
		regs[1] = m->arch_unavail & ((1u << len) - 1);
		if (m->version >= 2)
			regs[3] = m->nr_fixed | (uint32_t)m->fixed_width << 5;
		if (m->version >= 5) {
			regs[2] = m->fixed_mask;
			regs[3] |= 1u << 15;	/* AnyThread deprecated */
		}
		return;
	case 0x80000001u:
		/* IBS and the northbridge and L3 counters are not modelled */
		regs[2] &= ~(CPUIDX1_ECX_IBS | CPUIDX1_ECX_PERFCTR_CORE | CPUIDX1_ECX_PERFCTR_NB |
			     CPUIDX1_ECX_PERFCTR_LLC);
		if (!intel(m) && m->version >= PMUVIRT_VPMU_AMD_CORE_EXT)
			regs[2] |= CPUIDX1_ECX_PERFCTR_CORE;
		return;
	case 0x80000022u:
		regs[0] = regs[1] = regs[2] = regs[3] = 0;
		if (!intel(m) && m->version == PMUVIRT_VPMU_AMD_PERFMON_V2) {
			regs[0] = 1;		/* PerfMonV2 */
			regs[1] = m->nr_gp;	/* NumPerfCtrCore */
		}
		return;
	}
}

bool pmuvirt_vpmu_has_msr(const struct pmuvirt_vpmu_model *m, uint32_t msr)
{
	unsigned int g;

	return decode(m, msr, &g) != V_NONE;
}

/* What counts */

/* Guest counter @g's setting while it counts; 0 while it does not. */
static uint64_t cfg(const struct pmuvirt_vpmu *vp, unsigned int g)
{
	const struct pmuvirt_vpmu_model *m = &vp->model;
	uint64_t f;

	if (!present(m, g))
		return 0;
	if (g < FIXED0) {
		if (!(vp->evtsel[g] & PMUVIRT_EVSEL_EN) ||
		    (has_global(m) && !(vp->global_ctrl & gbit(g))))
			return 0;
		return vp->evtsel[g];
	}
	f = (vp->fixed_ctrl >> (4 * (g - FIXED0))) & 0xf;
	if (!(f & FX_EN) || !(vp->global_ctrl & gbit(g)))
		return 0;
	return f | 0x100;
}

/* The guest counters whose interrupt bit is set. */
static uint64_t irq_mask(const struct pmuvirt_vpmu *vp)
{
	uint64_t b = 0;
	unsigned int g;

	for (g = 0; g < FIXED0; g++)
		if (vp->evtsel[g] & PMUVIRT_EVSEL_INT)
			b |= gbit(g);
	for (g = FIXED0; g < NR; g++)
		if ((vp->fixed_ctrl >> (4 * (g - FIXED0))) & PMUVIRT_FIXED_PMI)
			b |= gbit(g);
	return b;
}

/* The portable event of an architectural event code without qualifiers, or 0. */
static unsigned int portable(const struct pmuvirt_vpmu_model *m, uint64_t code)
{
	switch (code) {
	case 0xc0:
		return PMUVIRT_EV_INSTRUCTIONS;
	case 0x3c:
		return intel(m) ? PMUVIRT_EV_CYCLES : 0;
	case 0x76:
		return intel(m) ? 0 : PMUVIRT_EV_CYCLES;
	case 0xc4:
		return intel(m) ? PMUVIRT_EV_BRANCHES : 0;
	case 0xc2:
		return intel(m) ? 0 : PMUVIRT_EV_BRANCHES;
	case 0xc5:
		return intel(m) ? PMUVIRT_EV_BRANCH_MISSES : 0;
	case 0xc3:
		return intel(m) ? 0 : PMUVIRT_EV_BRANCH_MISSES;
	}
	return 0;
}

/* Does the event policy turn the emulated PMU off (PMUVIRT_POLICY_NO_VPMU)? */
static bool vpmu_off(const struct pmuvirt_vpmu *vp)
{
	return vp->policy && (vp->policy->flags & PMUVIRT_POLICY_NO_VPMU);
}

bool pmuvirt_vpmu_off(const struct pmuvirt_vpmu *vp)
{
	return vp && vpmu_off(vp);
}

/*
 * The counter that counts guest counter @g's setting @c on the host, under
 * the event policy; false when the host cannot give it or the policy
 * turns the emulated PMU off (it counts nothing).
 */
static bool translate(const struct pmuvirt_vpmu *vp, unsigned int g, uint64_t c,
		      struct pmuvirt_counter_ctl *cc)
{
	const struct pmuvirt_vpmu_model *m = &vp->model;
	const struct pmuvirt_pmu *pmu = vp->ctx->pmu;
	bool usr, os, irq;
	uint64_t ev;
	uint32_t flags = 0;

	*cc = (struct pmuvirt_counter_ctl){ 0 };
	if (vpmu_off(vp))
		return false;
	if (g < FIXED0) {
		uint64_t code = c & (intel(m) ? INTEL_CODE_BITS : AMD_CODE_BITS);

		usr = c & PMUVIRT_EVSEL_USR;
		os = c & PMUVIRT_EVSEL_OS;
		irq = c & PMUVIRT_EVSEL_INT;
		/* GuestOnly alone: the guest's own guests' events; it has none */
		if (!intel(m) && (c & AMD_HG) == PMUVIRT_EVSEL_AMD_GUEST_ONLY)
			return false;
		ev = portable(m, code);
		if (!ev) {
			if (intel(m) ? !host_intel(pmu) : !host_amd(pmu))
				return false;
			ev = code;
			flags |= PMUVIRT_CTR_RAW;
		}
	} else {
		const struct pmuvirt_x86_layout *l = pmuvirt_x86_layout(pmu);
		unsigned int j = g - FIXED0;

		usr = c & PMUVIRT_FIXED_USR;
		os = c & PMUVIRT_FIXED_OS;
		irq = c & PMUVIRT_FIXED_PMI;
		if (j == 0) {
			ev = PMUVIRT_EV_INSTRUCTIONS;
		} else if (j == 1) {
			ev = PMUVIRT_EV_CYCLES;
		} else {
			/* reference cycles, topdown slots: their architectural events */
			unsigned int bit = j == 2 ? 2 : 7;

			if (!host_intel(pmu) || (l->arch_unavail & (1u << bit)))
				return false;
			ev = j == 2 ? 0x013c : 0x01a4;
			flags |= PMUVIRT_CTR_RAW;
		}
	}
	if (!usr && !os)
		return false;
	if (vp->flags & PMUVIRT_VPMU_F_PV) {
		flags |= PMUVIRT_CTR_USER;
	} else {
		if (usr)
			flags |= PMUVIRT_CTR_USER;
		if (os)
			flags |= PMUVIRT_CTR_KERNEL |
				 (vp->flags & PMUVIRT_VPMU_F_GUEST_ONLY ? PMUVIRT_CTR_GUEST : 0);
	}
	cc->event = ev;
	cc->flags = flags;
	if (irq || has_global(m))
		cc->period = (uint64_t)1 << width(m, g);
	return pmuvirt_policy_permits(vp->policy, cc);
}

/* State of the context */

/*
 * Does the context count the emulator's control?  A host that gave it
 * another control meanwhile took the emulator's counters away: their
 * events since the last fold are lost, and they count nothing until
 * pmuvirt_vpmu_set_host().
 */
static bool attached(struct pmuvirt_vpmu *vp)
{
	unsigned int g;

	if (!(vp->state & ST_ATTACHED))
		return false;
	if (vp->ctx->stamp == vp->stamp)
		return true;
	vp->state &= (uint8_t)~ST_ATTACHED;
	for (g = 0; g < NR; g++)
		vp->idx[g] = NONE;
	vp->nr_host = 0;
	vp->host = NULL;
	return false;
}

static inline bool counting(const struct pmuvirt_vpmu *vp, unsigned int g)
{
	return vp->idx[g] != NONE;
}

/* 0, or -EBUSY when the context runs on a pcpu other than @pc. */
static int on_cpu(const struct pmuvirt_pcpu *pc, const struct pmuvirt_vpmu *vp)
{
	const struct pmuvirt_pcpu *on = vp->ctx->running_on;

	return on && on != pc ? -EBUSY : 0;
}

static int value_of(struct pmuvirt_vpmu *vp, unsigned int g, uint64_t *val)
{
	uint64_t n = 0;
	int ret = 0;

	if (attached(vp) && counting(vp, g))
		ret = pmuvirt_read_counter(vp->ctx, vp->idx[g], &n);
	*val = (vp->value[g] + n) & wmask(&vp->model, g);
	return ret;
}

/*
 * Overflows found: set their GLOBAL_STATUS bits and raise the guest's
 * interrupt for those whose interrupt bit (in @irq) was set.
 */
static void give(struct pmuvirt_vpmu *vp, uint64_t ovf, uint64_t irq)
{
	if (!ovf)
		return;
	if (has_global(&vp->model))
		vp->global_status |= ovf;
	if ((ovf & irq) && vp->pmi)
		vp->pmi(vp->pmi_arg, ovf & irq);
}

/* Take the emulator's pending notifications off the context: their counters' bits. */
static uint64_t take(struct pmuvirt_vpmu *vp)
{
	uint32_t which = 0, got;
	uint64_t ovf = 0;
	unsigned int g;

	if (!attached(vp))
		return 0;
	/* a look first: the exchange only for counters with notifications */
	for (g = 0; g < NR; g++)
		if (counting(vp, g) && PMUVIRT_READ_ONCE32(&vp->ctx->counter[vp->idx[g]].pending))
			which |= 1u << vp->idx[g];
	if (!which)
		return 0;
	got = pmuvirt_take_overflows_mask(vp->ctx, which, NULL);
	for (g = 0; got && g < NR; g++)
		if (counting(vp, g) && (got & (1u << vp->idx[g])))
			ovf |= gbit(g);
	return ovf;
}

/*
 * Give the guest the overflows its counting counters have reached, their
 * PMI in flight or not: before GLOBAL_STATUS is read or cleared.  Nothing
 * to read when none counts (perf's handler runs with GLOBAL_CTRL at 0).
 */
static int take_reached(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp)
{
	unsigned int g;
	int ret = 0;

	if (!attached(vp))
		return 0;
	for (g = 0; g < NR; g++)
		if (counting(vp, g))
			break;
	if (g < NR && vp->ctx->running_on)
		ret = pmuvirt_collect(pc, vp->ctx);
	give(vp, take(vp), irq_mask(vp));
	return ret;
}

/* The context's new control: the host's counters, then the guest's that count. */
struct plan {
	struct pmuvirt_control ctl;
	struct pmuvirt_hwctl img;
	uint8_t slots[PMUVIRT_MAX_COUNTERS];
	uint8_t who[PMUVIRT_MAX_COUNTERS];	/* guest counter of control counter n + k */
	unsigned int n;				/* the host's counters */
};

/*
 * Plan @host's counters and every guest counter that asks to count, those
 * counting now first: a guest counter the PMU cannot take beside the
 * others (events, room, policy) counts nothing; on a lack of room the last
 * one asking goes first.  With @host_asks the guest counters counting now
 * must all fit, or -EBUSY: the host asked second.
 */
static int plan(struct pmuvirt_vpmu *vp, const struct pmuvirt_control *host, bool host_asks,
		struct plan *p, struct pmuvirt_error *err)
{
	struct pmuvirt_ctx *ctx = vp->ctx;
	unsigned int g, k, i, nr_new = 0, must = 0, n = host ? host->nr_counters : 0;
	bool live = attached(vp);
	uint8_t later[NR];
	uint64_t c[NR];
	struct pmuvirt_error e;
	int ret;

	/* the header; counters past nr_counters are never looked at */
	p->ctl.version = PMUVIRT_ABI_VERSION;
	p->ctl.flags = 0;
	p->ctl.reserved = 0;
	for (k = 0; k < n; k++)
		p->ctl.counter[k] = host->counter[k];
	p->n = n;
	/* those counting now, then the others */
	for (g = 0; g < NR; g++) {
		c[g] = cfg(vp, g);
		if (!c[g])
			continue;
		if (!live || !counting(vp, g)) {
			later[nr_new++] = (uint8_t)g;
			continue;
		}
		if (k < PMUVIRT_MAX_COUNTERS && translate(vp, g, c[g], &p->ctl.counter[k]))
			p->who[k++ - n] = (uint8_t)g;
	}
	if (host_asks)
		must = k - n;
	for (i = 0; i < nr_new; i++) {
		g = later[i];
		if (k < PMUVIRT_MAX_COUNTERS && translate(vp, g, c[g], &p->ctl.counter[k]))
			p->who[k++ - n] = (uint8_t)g;
	}
	for (;;) {
		unsigned int drop;

		p->ctl.nr_counters = k;
		e.counter = -1;
		e.reason = NULL;
		ret = pmuvirt_validate(ctx->pmu, &p->ctl, ctx->max_counters, &p->img, p->slots, &e);
		if (!ret)
			return 0;
		if (k == n)
			return pmuvirt_fail(err, e.counter, e.reason, ret);
		/* a lack of room, or the host's counters' place taken: the last asking */
		drop = ret == -ENOSPC || e.counter < (int)n || e.counter >= (int)k ?
		       k - 1 : (unsigned int)e.counter;
		if (drop < n + must)
			return pmuvirt_fail(err, -1,
					    "the PMU has no counters for both the host's control and the guest's counting PMU counters",
					    -EBUSY);
		for (; drop + 1 < k; drop++) {
			p->ctl.counter[drop] = p->ctl.counter[drop + 1];
			p->who[drop - n] = p->who[drop + 1 - n];
		}
		k--;
	}
}

/*
 * A PV guest's counting counters that select one mode only (USR or OS):
 * the context's counters to mute in the guest's kernel and in its user
 * mode.  Its kernel runs in ring 3 too; the host counts both there.
 */
static void pv_masks(struct pmuvirt_vpmu *vp)
{
	unsigned int g;

	vp->mute_user = vp->mute_kernel = 0;
	if (!(vp->flags & PMUVIRT_VPMU_F_PV))
		return;
	for (g = 0; g < NR; g++) {
		uint64_t c, u, o;

		if (!counting(vp, g))
			continue;
		c = cfg(vp, g);
		u = g < FIXED0 ? PMUVIRT_EVSEL_USR : PMUVIRT_FIXED_USR;
		o = g < FIXED0 ? PMUVIRT_EVSEL_OS : PMUVIRT_FIXED_OS;
		if ((c & (u | o)) == u)
			vp->mute_kernel |= 1u << vp->idx[g];
		else if ((c & (u | o)) == o)
			vp->mute_user |= 1u << vp->idx[g];
	}
}

static inline uint32_t pv_mute(const struct pmuvirt_vpmu *vp)
{
	return vp->pv_kernel ? vp->mute_kernel : vp->mute_user;
}

/* The context's counters past the host's: the guest's. */
static inline uint32_t own_counters(const struct pmuvirt_vpmu *vp)
{
	unsigned int n = vp->ctx->nr_counters;
	uint32_t all = n >= 32 ? ~(uint32_t)0 : (1u << n) - 1;

	return all & ~((1u << vp->nr_host) - 1);
}

/*
 * Take the context off its CPU (a last sample) and fold the guest's
 * counting counters into their values.  *@ovf receives the overflows their
 * counters had reached.
 */
static int begin(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, bool *was_running,
		 uint64_t *ovf)
{
	struct pmuvirt_ctx *ctx = vp->ctx;
	unsigned int g;
	int ret;

	*was_running = ctx->running_on != NULL;
	ret = pmuvirt_ctx_suspend(pc, ctx);
	*ovf = take(vp);
	if (attached(vp))
		for (g = 0; g < NR; g++)
			if (counting(vp, g))
				vp->value[g] = (vp->value[g] + ctx->counter[vp->idx[g]].count) &
					       wmask(&vp->model, g);
	for (g = 0; g < NR; g++)
		vp->idx[g] = NONE;
	return ret;
}

/*
 * Give the context plan @p: the host's first @keep counters go on as they
 * are, the rest start now, each guest counter from its value; the context
 * goes back on its CPU.  Raises the overflows @ovf found, by the interrupt
 * bits @irq in force when they happened.
 */
static int finish(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, const struct plan *p,
		  const struct pmuvirt_control *host, unsigned int keep, unsigned int nr_shared,
		  bool was_running, int ret, uint64_t ovf, uint64_t irq)
{
	struct pmuvirt_ctx *ctx = vp->ctx;
	struct pmuvirt_counter kept[PMUVIRT_MAX_COUNTERS];
	uint32_t muted = 0;
	unsigned int k;

	for (k = 0; k < keep; k++)
		kept[k] = ctx->counter[k];
	pmuvirt_ctx_apply(ctx, &p->ctl, &p->img, p->slots);
	for (k = 0; k < keep; k++) {
		struct pmuvirt_counter *c = &ctx->counter[k];

		c->count = kept[k].count;
		if (kept[k].muted)
			muted |= 1u << k;
		if (c->period) {
			c->period = kept[k].period;
			c->next_ovf = kept[k].next_ovf;
			c->pending = kept[k].pending;
		}
	}
	for (k = p->n; k < p->ctl.nr_counters; k++) {
		unsigned int g = p->who[k - p->n];
		struct pmuvirt_counter *c = &ctx->counter[k];

		vp->idx[g] = (uint8_t)k;
		/* the next wrap: 2^width - value events from now (2^width from 0) */
		if (c->period)
			c->next_ovf = c->period - vp->value[g];
	}
	ctx->nr_shared = (uint16_t)nr_shared;
	vp->host = p->n ? host : NULL;
	vp->nr_host = (uint8_t)p->n;
	vp->nr_shared = (uint8_t)nr_shared;
	vp->stamp = ctx->stamp;
	vp->state |= ST_ATTACHED;
	pv_masks(vp);
	/* off the CPU, every counter unmuted: the host's keep their state */
	if (muted)
		(void)pmuvirt_mute(NULL, ctx, (uint32_t)((1ull << keep) - 1), muted);
	if (pv_mute(vp))
		(void)pmuvirt_mute(NULL, ctx, own_counters(vp), pv_mute(vp));
	pmuvirt_ctx_publish(ctx);
	if (was_running && !ret)
		ret = pmuvirt_switch(pc, ctx);
	give(vp, ovf, irq);
	return ret;
}

/* The guest's settings changed what counts: a new control, the host's counters kept. */
static int recount(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint64_t irq)
{
	struct plan p;
	bool was_running;
	uint64_t ovf;
	int ret;

	if (!attached(vp))
		return 0;
	ret = plan(vp, vp->host, false, &p, NULL);
	if (ret)
		return ret;
	ret = begin(pc, vp, &was_running, &ovf);
	return finish(pc, vp, &p, vp->host, vp->nr_host, vp->nr_shared, was_running, ret, ovf, irq);
}

int pmuvirt_vpmu_init(struct pmuvirt_vpmu *vp, struct pmuvirt_ctx *ctx,
		      const struct pmuvirt_vpmu_model *m, uint32_t flags, pmuvirt_vpmu_pmi_fn pmi,
		      void *arg)
{
	unsigned int g;

	if (!vp || !ctx || !ctx->pmu || pmuvirt_vpmu_model_check(m) || (flags & ~PMUVIRT_VPMU_F_ALL) ||
	    (flags & PMUVIRT_VPMU_F_GUEST_ONLY && flags & PMUVIRT_VPMU_F_PV))
		return -EINVAL;
	if (ctx->pmu->arch != PMUVIRT_ARCH_X86)
		return -ENODEV;
	*vp = (struct pmuvirt_vpmu){ 0 };
	vp->model = *m;
	vp->ctx = ctx;
	vp->pmi = pmi;
	vp->pmi_arg = arg;
	vp->flags = (uint8_t)flags;
	vp->global_ctrl = global_reset(m);
	for (g = 0; g < NR; g++)
		vp->idx[g] = NONE;
	/* A context that counts the host's control waits for pmuvirt_vpmu_set_host(). */
	if (!ctx->nr_counters) {
		vp->stamp = ctx->stamp;
		vp->state = ST_ATTACHED;
	}
	return 0;
}

/* The settings of the guest counters in @which, to tell whether a write changes what counts. */
static void cfgs(const struct pmuvirt_vpmu *vp, uint32_t which, uint64_t *c)
{
	for (; which; which &= which - 1)
		c[__builtin_ctz(which)] = cfg(vp, (unsigned int)__builtin_ctz(which));
}

static bool cfgs_differ(const struct pmuvirt_vpmu *vp, uint32_t which, const uint64_t *old)
{
	for (; which; which &= which - 1)
		if (cfg(vp, (unsigned int)__builtin_ctz(which)) != old[__builtin_ctz(which)])
			return true;
	return false;
}

/* The guest writes counter @g: @v (within its width) from now on. */
static int set_value(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, unsigned int g, uint64_t v)
{
	struct pmuvirt_ctx *ctx = vp->ctx;
	uint64_t n, remaining[PMUVIRT_MAX_COUNTERS], period[PMUVIRT_MAX_COUNTERS];
	unsigned int i;
	int ret;

	if (!attached(vp) || !counting(vp, g)) {
		vp->value[g] = v;
		return 0;
	}
	i = vp->idx[g];
	if (ctx->counter[i].period) {
		/* re-armed at the new wrap; the count is sampled by the arming */
		period[i] = ctx->counter[i].period;
		remaining[i] = period[i] - v;
		ret = pmuvirt_arm_counters(pc, ctx, 1u << i, remaining, period);
		n = ctx->counter[i].count;
	} else {
		ret = pmuvirt_read_counter(ctx, i, &n);
	}
	vp->value[g] = (v - n) & wmask(&vp->model, g);
	return ret;
}

int pmuvirt_vpmu_rdmsr(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint32_t msr,
		       uint64_t *val)
{
	const struct pmuvirt_vpmu_model *m = &vp->model;
	unsigned int g = 0;
	int ret;

	*val = 0;
	if (vpmu_off(vp))
		return -EINVAL;
	switch (decode(m, msr, &g)) {
	case V_NONE:
		return -EINVAL;
	case V_EVTSEL:
		*val = vp->evtsel[g];
		return 0;
	case V_PMC:
	case V_CTR:
		ret = on_cpu(pc, vp);
		if (ret)
			return ret;
		return value_of(vp, g, val);
	case V_FIXED_CTRL:
		*val = vp->fixed_ctrl;
		return 0;
	case V_CTRL:
		*val = vp->global_ctrl;
		return 0;
	case V_STATUS:
		ret = on_cpu(pc, vp);
		if (ret)
			return ret;
		ret = take_reached(pc, vp);
		*val = vp->global_status;
		return ret;
	case V_CLEAR:
	case V_SET:
		return 0;
	case V_CAPS:
		*val = (m->flags & PMUVIRT_VPMU_M_FW_WRITE) ? PMUVIRT_PERF_CAP_FW_WRITE : 0;
		return 0;
	}
	return -EINVAL;
}

/* The rules of a guest write of @val to register @r (counter @g): 0 or -EINVAL. */
static int write_check(const struct pmuvirt_vpmu_model *m, enum vreg r, unsigned int g,
		       uint64_t val)
{
	switch (r) {
	case V_NONE:
	case V_STATUS:
	case V_CAPS:
		return -EINVAL;
	case V_CLEAR:
	case V_SET:
		return val & ~status_valid(m) ? -EINVAL : 0;
	case V_PMC:
		return 0;
	case V_CTR:
		return val & ~wmask(m, g) ? -EINVAL : 0;
	case V_EVTSEL:
		return val & ~evtsel_valid(m) ? -EINVAL : 0;
	case V_FIXED_CTRL:
		return val & ~fixed_ctrl_valid(m) ? -EINVAL : 0;
	case V_CTRL:
		return val & ~counter_bits(m) ? -EINVAL : 0;
	}
	return -EINVAL;
}

int pmuvirt_vpmu_wrmsr(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint32_t msr,
		       uint64_t val)
{
	const struct pmuvirt_vpmu_model *m = &vp->model;
	uint64_t old[NR], irq, prev, *reg;
	unsigned int g = 0;
	enum vreg r = decode(m, msr, &g);
	uint32_t which;
	int ret;

	if (vpmu_off(vp))
		return -EINVAL;
	ret = write_check(m, r, g, val);
	if (ret)
		return ret;
	switch (r) {
	case V_NONE:
	case V_STATUS:
	case V_CAPS:
		return -EINVAL;
	case V_CLEAR:
	case V_SET:
		if (r == V_SET) {
			vp->global_status |= val;
			return 0;
		}
		ret = on_cpu(pc, vp);
		if (ret)
			return ret;
		/* an overflow before the clear is cleared by it, not set again after */
		ret = take_reached(pc, vp);
		vp->global_status &= ~val;
		return ret;
	case V_PMC:
		/* bits 31:0, sign-extended, cut to the width (SDM: IA32_PMCx writes) */
		val = (uint64_t)(int64_t)(int32_t)(uint32_t)val & wmask(m, g);
		break;
	case V_CTR:
		break;
	case V_EVTSEL:
		reg = &vp->evtsel[g];
		which = 1u << g;
		goto control;
	case V_FIXED_CTRL:
		reg = &vp->fixed_ctrl;
		which = ((1u << PMUVIRT_VPMU_MAX_FIXED) - 1) << FIXED0;
		goto control;
	case V_CTRL:
		reg = &vp->global_ctrl;
		which = (1u << NR) - 1;
		goto control;
	}
	ret = on_cpu(pc, vp);
	if (ret)
		return ret;
	return set_value(pc, vp, g, val);

control:
	ret = on_cpu(pc, vp);
	if (ret)
		return ret;
	cfgs(vp, which, old);
	prev = *reg;
	*reg = val;
	if (!cfgs_differ(vp, which, old))
		return 0;
	/* overflows found on the way are raised by the interrupt bits before the write */
	*reg = prev;
	irq = irq_mask(vp);
	*reg = val;
	return recount(pc, vp, irq);
}

int pmuvirt_vpmu_wrmsr_check(const struct pmuvirt_vpmu *vp, uint32_t msr, uint64_t val)
{
	unsigned int g = 0;
	enum vreg r = decode(&vp->model, msr, &g);

	if (vpmu_off(vp))
		return -EINVAL;
	return write_check(&vp->model, r, g, val);
}

int pmuvirt_vpmu_rdpmc(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint32_t ecx,
		       uint64_t *val)
{
	const struct pmuvirt_vpmu_model *m = &vp->model;
	unsigned int g;
	int ret;

	*val = 0;
	if (vpmu_off(vp))
		return -EINVAL;
	if (intel(m) && (ecx & PMUVIRT_RDPMC_FIXED)) {
		g = ecx & ~PMUVIRT_RDPMC_FIXED;
		if (g >= PMUVIRT_VPMU_MAX_FIXED || !fixed_present(m, g))
			return -EINVAL;
		g += FIXED0;
	} else if (ecx < m->nr_gp) {
		g = ecx;
	} else {
		return -EINVAL;
	}
	ret = on_cpu(pc, vp);
	if (ret)
		return ret;
	return value_of(vp, g, val);
}

bool pmuvirt_vpmu_counts(const struct pmuvirt_vpmu *vp)
{
	unsigned int g;

	for (g = 0; g < NR; g++)
		if (cfg(vp, g))
			return true;
	return false;
}

bool pmuvirt_vpmu_attached(struct pmuvirt_vpmu *vp)
{
	return vp && vp->ctx && attached(vp);
}

int pmuvirt_vpmu_pv_mode(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, bool kernel)
{
	if (!vp || !(vp->flags & PMUVIRT_VPMU_F_PV))
		return -EINVAL;
	vp->pv_kernel = kernel;
	if (!(vp->mute_user | vp->mute_kernel) || !attached(vp))
		return 0;
	return pmuvirt_mute(pc, vp->ctx, own_counters(vp), pv_mute(vp));
}

int pmuvirt_vpmu_deliver(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp)
{
	int ret = on_cpu(pc, vp);
	uint64_t ovf;

	if (ret)
		return ret;
	ovf = take(vp);
	if (ovf)
		give(vp, ovf, irq_mask(vp));
	return 0;
}

/* Do the first @keep counters of the context count @ctl's first ones? */
static bool keeps(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
		  unsigned int keep)
{
	unsigned int k;

	if (keep > ctx->nr_counters)
		return false;
	for (k = 0; k < keep; k++) {
		const struct pmuvirt_counter_ctl *cc = &ctl->counter[k];

		if (ctx->counter[k].event != pmuvirt_ctl_event(cc) ||
		    !ctx->counter[k].period != !cc->period)
			return false;
	}
	return true;
}

int pmuvirt_vpmu_set_host(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp,
			  const struct pmuvirt_control *ctl, unsigned int keep,
			  unsigned int nr_shared, struct pmuvirt_error *err)
{
	struct pmuvirt_ctx *ctx = vp->ctx;
	unsigned int n = ctl ? ctl->nr_counters : 0;
	bool was_running, live = attached(vp);
	struct plan p;
	uint64_t ovf;
	int ret;

	if (on_cpu(pc, vp))
		return pmuvirt_fail(err, -1, "context runs on another CPU", -EBUSY);
	if (ctl) {
		ret = pmuvirt_validate(ctx->pmu, ctl, ctx->max_counters, NULL, NULL, err);
		if (ret)
			return ret;
	}
	if (keep > n || nr_shared > n || (live && keep > vp->nr_host) ||
	    (ctx->flags & PMUVIRT_CTX_FAULTED && keep))
		return pmuvirt_fail(err, -1, "bad arguments", -EINVAL);
	if (keep && !keeps(ctx, ctl, keep))
		return pmuvirt_fail(err, -1, "the context does not count those counters", -EINVAL);
	ret = plan(vp, n ? ctl : NULL, true, &p, err);
	if (ret)
		return ret;
	ret = begin(pc, vp, &was_running, &ovf);
	return finish(pc, vp, &p, ctl, keep, nr_shared, was_running, ret, ovf, irq_mask(vp));
}

int pmuvirt_vpmu_set_policy(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp,
			    const struct pmuvirt_policy *pol)
{
	int ret = on_cpu(pc, vp);

	if (ret)
		return ret;
	vp->policy = pol;
	return recount(pc, vp, irq_mask(vp));
}

int pmuvirt_vpmu_reset(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp)
{
	uint64_t irq = irq_mask(vp), ovf;
	unsigned int g;
	bool was_running;
	struct plan p;
	int ret = on_cpu(pc, vp);

	if (ret)
		return ret;
	for (g = 0; g < FIXED0; g++)
		vp->evtsel[g] = 0;
	vp->fixed_ctrl = 0;
	vp->global_ctrl = global_reset(&vp->model);
	if (!attached(vp)) {
		for (g = 0; g < NR; g++)
			vp->value[g] = 0;
		vp->global_status = 0;
		return 0;
	}
	ret = plan(vp, vp->host, false, &p, NULL);
	if (ret)
		return ret;
	ret = begin(pc, vp, &was_running, &ovf);
	/* overflows before the reset happened before it */
	give(vp, ovf, irq);
	for (g = 0; g < NR; g++)
		vp->value[g] = 0;
	vp->global_status = 0;
	return finish(pc, vp, &p, vp->host, vp->nr_host, vp->nr_shared, was_running, ret, 0, 0);
}

int pmuvirt_vpmu_detach(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp)
{
	struct pmuvirt_ctx *ctx = vp->ctx;
	uint64_t ovf, irq = irq_mask(vp);
	bool was_running;
	struct plan p;
	int ret = on_cpu(pc, vp);

	if (ret)
		return ret;
	if (!attached(vp))
		return 0;
	p.ctl = (struct pmuvirt_control){ .version = PMUVIRT_ABI_VERSION };
	if (vp->host)
		p.ctl = *vp->host;
	p.n = p.ctl.nr_counters;
	ret = pmuvirt_validate(ctx->pmu, &p.ctl, ctx->max_counters, &p.img, p.slots, NULL);
	if (ret)
		return ret;
	ret = begin(pc, vp, &was_running, &ovf);
	ret = finish(pc, vp, &p, vp->host, vp->nr_host, vp->nr_shared, was_running, ret, ovf, irq);
	vp->state &= (uint8_t)~ST_ATTACHED;
	vp->host = NULL;
	vp->nr_host = 0;
	return ret;
}

/* Save and restore */

uint32_t pmuvirt_vpmu_saved_check(const struct pmuvirt_vpmu_saved *s)
{
	const uint8_t *b = (const uint8_t *)s;
	const uint8_t *end = b + __builtin_offsetof(struct pmuvirt_vpmu_saved, check);
	uint32_t h = 0x811c9dc5u;

	while (b < end) {
		h ^= *b++;
		h *= 0x01000193u;
	}
	return h;
}

int pmuvirt_vpmu_save(struct pmuvirt_vpmu *vp, struct pmuvirt_vpmu_saved *out)
{
	unsigned int g;

	if (!vp || !out)
		return -EINVAL;
	if (vp->ctx->running_on)
		return -EBUSY;
	give(vp, take(vp), irq_mask(vp));
	*out = (struct pmuvirt_vpmu_saved){ 0 };
	out->magic = PMUVIRT_VPMU_SAVED_MAGIC;
	out->version = PMUVIRT_VPMU_SAVED_VERSION;
	out->size = sizeof(*out);
	out->model = vp->model;
	for (g = 0; g < FIXED0; g++)
		out->evtsel[g] = vp->evtsel[g];
	out->fixed_ctrl = vp->fixed_ctrl;
	out->global_ctrl = vp->global_ctrl;
	out->global_status = vp->global_status;
	for (g = 0; g < NR; g++)
		(void)value_of(vp, g, &out->value[g]);	/* not running: no register read */
	out->check = pmuvirt_vpmu_saved_check(out);
	return 0;
}

static int refuse(struct pmuvirt_error *err, int counter, const char *reason)
{
	return pmuvirt_fail(err, counter, reason, -EINVAL);
}

/* Is @in a blob pmuvirt_vpmu_save() makes for @vp's model? */
static int check_saved(const struct pmuvirt_vpmu *vp, const struct pmuvirt_vpmu_saved *in,
		       struct pmuvirt_error *err)
{
	const struct pmuvirt_vpmu_model *m = &vp->model;
	const uint8_t *a = (const uint8_t *)&in->model, *b = (const uint8_t *)m;
	unsigned int g;

	if (in->magic != PMUVIRT_VPMU_SAVED_MAGIC)
		return refuse(err, -1, "not a saved vPMU (magic or byte order)");
	if (in->version != PMUVIRT_VPMU_SAVED_VERSION)
		return refuse(err, -1, "saved vPMU of another version");
	if (in->size != sizeof(*in) || in->flags || in->reserved)
		return refuse(err, -1, "saved vPMU: bad size or reserved field");
	if (in->check != pmuvirt_vpmu_saved_check(in))
		return refuse(err, -1, "saved vPMU is corrupted (check)");
	for (g = 0; g < sizeof(*m); g++)
		if (a[g] != b[g])
			return refuse(err, -1, "saved vPMU of another guest model");
	for (g = 0; g < NR; g++) {
		if (!present(m, g)) {
			if (in->value[g] || (g < FIXED0 && in->evtsel[g]))
				return refuse(err, (int)g, "saved vPMU: state of a counter the model lacks");
			continue;
		}
		if (in->value[g] & ~wmask(m, g))
			return refuse(err, (int)g, "saved vPMU: counter value above its width");
		if (g < FIXED0 && (in->evtsel[g] & ~evtsel_valid(m)))
			return refuse(err, (int)g, "saved vPMU: reserved event-select bits");
	}
	if (in->fixed_ctrl & ~fixed_ctrl_valid(m))
		return refuse(err, -1, "saved vPMU: reserved FIXED_CTR_CTRL bits");
	if (in->global_ctrl & ~(has_global(m) ? counter_bits(m) : 0))
		return refuse(err, -1, "saved vPMU: reserved global control bits");
	if (in->global_status & ~status_valid(m))
		return refuse(err, -1, "saved vPMU: reserved global status bits");
	return 0;
}

int pmuvirt_vpmu_restore(struct pmuvirt_vpmu *vp, const struct pmuvirt_vpmu_saved *in,
			 struct pmuvirt_error *err)
{
	struct pmuvirt_vpmu old;
	uint64_t ovf;
	unsigned int g;
	bool was_running;
	struct plan p;
	int ret;

	if (!vp || !in)
		return refuse(err, -1, "no vPMU or blob");
	if (vp->ctx->running_on)
		return pmuvirt_fail(err, -1, "context runs on a CPU", -EBUSY);
	ret = check_saved(vp, in, err);
	if (ret)
		return ret;
	old = *vp;
	for (g = 0; g < FIXED0; g++)
		vp->evtsel[g] = in->evtsel[g];
	vp->fixed_ctrl = in->fixed_ctrl;
	vp->global_ctrl = in->global_ctrl;
	if (!attached(vp)) {
		for (g = 0; g < NR; g++)
			vp->value[g] = in->value[g];
		vp->global_status = in->global_status;
		return 0;
	}
	ret = plan(vp, vp->host, false, &p, err);
	if (ret) {
		*vp = old;
		return ret;
	}
	/* the state before goes, its overflows with it */
	ret = begin(NULL, vp, &was_running, &ovf);
	for (g = 0; g < NR; g++)
		vp->value[g] = in->value[g];
	vp->global_status = in->global_status;
	return finish(NULL, vp, &p, vp->host, vp->nr_host, vp->nr_shared, was_running, ret, 0, 0);
}

int pmuvirt_vpmu_save_host(const struct pmuvirt_vpmu *vp, struct pmuvirt_saved_ctx *out)
{
	if (!vp || !out || !(vp->state & ST_ATTACHED) || vp->ctx->stamp != vp->stamp ||
	    !vp->host || !vp->nr_host)
		return -EINVAL;
	return pmuvirt_ctx_save_part(vp->ctx, vp->host, out);
}
