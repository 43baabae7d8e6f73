/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Validation and register images of x86 controls, valid and malformed. */
#include <stdio.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"
#include "pmuvirt_arch.h"

/* Table rows leave trailing fields zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define USR	(1ull << 16)
#define OS	(1ull << 17)
#define INT	(1ull << 20)
#define EN	(1ull << 22)
#define ON	(INT | EN)
#define FX(j, f) ((uint64_t)(f) << (4 * (j)))	/* FIXED_CTR_CTRL field */
#define G(i)	(1ull << (i))
#define GF(j)	(1ull << (32 + (j)))

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL
#define R	PMUVIRT_CTR_RAW
#define UK	(U | K)
#define GS	PMUVIRT_CTR_GUEST
#define GO	(1ull << 40)	/* AMD GuestOnly */

enum cpu { V1, V2, V4, V5, K8, ZEN, ZEN4, NR_CPU };

static const struct fakehw_x86_config cpus[NR_CPU] = {
	[V1] = FAKEHW_X86_INTEL_V1,
	[V2] = FAKEHW_X86_INTEL_V2,
	[V4] = FAKEHW_X86_INTEL_V4,
	[V5] = FAKEHW_X86_INTEL_V5,
	[K8] = FAKEHW_X86_AMD_K8,
	[ZEN] = FAKEHW_X86_AMD_17H,
	[ZEN4] = FAKEHW_X86_AMD_19H,
};

struct ctr {
	uint64_t ev;
	uint32_t flags;
	uint64_t period;
	uint64_t want;
};

struct enc_case {
	const char *what;
	enum cpu cpu;
	unsigned int n;
	struct ctr c[PMUVIRT_MAX_COUNTERS];
	int ret;
	int err_counter;
};

#define OK	 .ret = 0
#define BAD(r, i) .ret = (r), .err_counter = (i)
/* Expected programming of a counter: an event select, or a fixed field. */
#define WFIXED	(1ull << 63)
#define WF(j, f) (WFIXED | ((uint64_t)(j) << 8) | (f))
#define WTSC	0

static const struct enc_case cases[] = {
	/* Portable events: fixed counters first, general counters for the rest. */
	{ "instructions user -> fixed0", V4, 1, { { 1, U, 0, WF(0, 0xa) } }, OK },
	{ "four portable events", V4, 4,
	  { { 1, UK, 0, WF(0, 0xb) }, { 2, UK, 0, WF(1, 0xb) }, { 3, UK, 0, 0xc4 | USR | OS | ON },
	    { 4, K, 0, 0xc5 | OS | ON } }, OK },
	{ "instructions portable and raw", V4, 3,
	  { { 0xc0, R | K, 0, 0xc0 | OS | ON }, { 1, U, 0, WF(0, 0xa) },
	    { 0xc0, R | UK, 0, 0xc0 | USR | OS | ON } }, OK },
	{ "kernel-only cycles", V4, 1, { { 2, K, 0, WF(1, 0x9) } }, OK },
	{ "raw code with unit mask, cmask, inv, edge", V4, 1,
	  { { 0xff8401c2ull, R | U, 0, 0xff8401c2ull | USR | ON } }, OK },
	{ "TSC and an event", V4, 2, { { PMUVIRT_EV_TSC, 0, 0, WTSC }, { 3, U, 0, 0xc4 | USR | ON } },
	  OK },
	{ "i-mode counter", V4, 1, { { 4, U, 1000, 0xc5 | USR | ON } }, OK },
	{ "v1: general counters only, no global control", V1, 2,
	  { { 1, U, 0, 0xc0 | USR | ON }, { 2, K, 0, 0x3c | OS | ON } }, OK },
	{ "v2: raw goes to a general counter", V2, 2,
	  { { 0x2e, R | U, 0, 0x2e | USR | ON }, { 1, U, 0, WF(0, 0xa) } }, OK },
	{ "v5: every general counter", V5, 8,
	  { { 3, U, 0, 0xc4 | USR | ON }, { 3, U, 0, 0xc4 | USR | ON }, { 3, U, 0, 0xc4 | USR | ON },
	    { 3, U, 0, 0xc4 | USR | ON }, { 3, U, 0, 0xc4 | USR | ON }, { 3, U, 0, 0xc4 | USR | ON },
	    { 3, U, 0, 0xc4 | USR | ON }, { 4, K, 0, 0xc5 | OS | ON } }, OK },
	{ "TSX qualifiers where RTM exists", V4, 1,
	  { { 0x1c9 | (1ull << 32), R | U, 0, 0x1c9 | (1ull << 32) | USR | ON } }, OK },
	{ "IN_TXCP lands on general counter 2", V4, 2,
	  { { 0x3c | (1ull << 33), R | U, 0, 0x3c | (1ull << 33) | USR | ON },
	    { 0xc0, R | U, 0, 0xc0 | USR | ON } }, OK },
	{ "AMD K8 portable events", K8, 2,
	  { { 2, U, 0, 0x76 | USR | ON }, { 4, UK, 0, 0xc3 | USR | OS | ON } }, OK },
	{ "AMD Zen: event bits 35:32", ZEN, 1,
	  { { 0x1000000c0ull, R | K, 0, 0x1000000c0ull | OS | ON } }, OK },
	{ "AMD Zen: six counters", ZEN, 6,
	  { { 1, U, 0, 0xc0 | USR | ON }, { 2, U, 0, 0x76 | USR | ON }, { 3, U, 0, 0xc2 | USR | ON },
	    { 4, U, 0, 0xc3 | USR | ON }, { 1, K, 0, 0xc0 | OS | ON }, { 2, K, 0, 0x76 | OS | ON } },
	  OK },
	{ "AMD PerfMonV2: global enables", ZEN4, 2,
	  { { 1, U, 0, 0xc0 | USR | ON }, { 0x1c2, R | U, 0, 0x1c2 | USR | ON } }, OK },
	/* Guest only: enabled at VM entry alone (Intel), GuestOnly (AMD 10h+). */
	{ "guest-only kernel instructions on a fixed counter", V4, 2,
	  { { 1, K | GS, 0, WF(0, 0x9) }, { 3, U, 0, 0xc4 | USR | ON } }, OK },
	{ "guest-only raw code on v2", V2, 2,
	  { { 0xc0, R | UK | GS, 0, 0xc0 | USR | OS | ON }, { 2, K | GS, 0, WF(1, 0x9) } }, OK },
	{ "AMD family 10h: GuestOnly", ZEN, 2,
	  { { 1, K | GS, 0, 0xc0 | OS | ON | GO }, { 1, K, 0, 0xc0 | OS | ON } }, OK },
	{ "AMD PerfMonV2: GuestOnly and global enable", ZEN4, 1,
	  { { 0x1c2, R | UK | GS, 0, 0x1c2 | USR | OS | ON | GO } }, OK },
	{ "v1: no guest-only counting", V1, 2, { { 1, U }, { 1, K | GS } }, BAD(-EOPNOTSUPP, 1) },
	{ "K8: no guest-only counting", K8, 1, { { 2, K | GS } }, BAD(-EOPNOTSUPP, 0) },
	{ "TSC guest-only", V4, 1, { { PMUVIRT_EV_TSC, GS } }, BAD(-EINVAL, 0) },
	{ "guest only, neither user nor kernel", ZEN, 1, { { 1, GS } }, BAD(-EINVAL, 0) },

	/* Bits pmuvirt owns. */
	{ "raw USR", V4, 1, { { 0xc0 | USR, R | U } }, BAD(-EINVAL, 0) },
	{ "raw OS", V4, 1, { { 0xc0 | OS, R | U } }, BAD(-EINVAL, 0) },
	{ "raw INT", V4, 2, { { 1, U }, { 0xc0 | INT, R | U } }, BAD(-EINVAL, 1) },
	{ "raw EN", ZEN, 1, { { 0xc0 | EN, R | U } }, BAD(-EINVAL, 0) },
	/* Bits nobody may set. */
	{ "AnyThread", V4, 1, { { 0xc0 | (1ull << 21), R | U } }, BAD(-EINVAL, 0) },
	{ "pin control", V4, 1, { { 0xc0 | (1ull << 19), R | U } }, BAD(-EINVAL, 0) },
	{ "AMD bit 21", ZEN, 1, { { 0xc0 | (1ull << 21), R | U } }, BAD(-EINVAL, 0) },
	{ "AMD pin control", K8, 1, { { 0xc0 | (1ull << 19), R | U } }, BAD(-EINVAL, 0) },
	{ "Intel bit 34", V4, 1, { { 0xc0 | (1ull << 34), R | U } }, BAD(-EINVAL, 0) },
	{ "Intel bit 63", V4, 1, { { 0xc0 | (1ull << 63), R | U } }, BAD(-EINVAL, 0) },
	{ "Intel bit 35 (AMD event bits only)", V4, 1, { { 0x8000000c0ull, R | U } },
	  BAD(-EINVAL, 0) },
	{ "TSX without RTM (v5)", V5, 1, { { 0xc0 | (1ull << 32), R | U } },
	  BAD(-EOPNOTSUPP, 0) },
	{ "TSX without RTM (v2)", V2, 1, { { 0xc0 | (1ull << 33), R | U } },
	  BAD(-EOPNOTSUPP, 0) },
	{ "AMD HostOnly", ZEN, 1, { { 0xc0 | (1ull << 41), R | U } }, BAD(-EINVAL, 0) },
	{ "AMD GuestOnly", ZEN4, 1, { { 0xc0 | (1ull << 40), R | U } }, BAD(-EINVAL, 0) },
	{ "AMD reserved bit 36", ZEN, 1, { { 0xc0 | (1ull << 36), R | U } }, BAD(-EINVAL, 0) },
	{ "AMD reserved bit 42", ZEN, 1, { { 0xc0 | (1ull << 42), R | U } }, BAD(-EINVAL, 0) },
	{ "K8 event bits 35:32", K8, 1, { { 0x1000000c0ull, R | U } }, BAD(-EINVAL, 0) },
	/* Too many, unknown, bad flags. */
	{ "five raw codes on four counters", V4, 5,
	  { { 0xc0, R | U }, { 0xc0, R | U }, { 0xc0, R | U }, { 0xc0, R | U }, { 0xc0, R | U } },
	  BAD(-ENOSPC, -2) },
	{ "three general events on v1's two counters", V1, 3, { { 1, U }, { 2, U }, { 3, U } },
	  BAD(-ENOSPC, -2) },
	{ "seven counters on Zen", ZEN, 7,
	  { { 1, U }, { 1, U }, { 1, U }, { 1, U }, { 1, U }, { 1, U }, { 1, U } },
	  BAD(-ENOSPC, -2) },
	{ "two IN_TXCP counters", V4, 2, { { 0x3c | (1ull << 33), R | U }, { 0xc0 | (1ull << 33), R | U } },
	  BAD(-ENOSPC, -2) },
	{ "unknown event", V4, 1, { { 99, U } }, BAD(-EINVAL, 0) },
	{ "event NONE", V4, 1, { { 0, U } }, BAD(-EINVAL, 0) },
	{ "neither user nor kernel", V4, 2, { { 1, U }, { 2, 0 } }, BAD(-EINVAL, 1) },
	{ "unknown flag", V4, 1, { { 1, U | 0x8 } }, BAD(-EINVAL, 0) },
	{ "TSC with a filter", V4, 1, { { PMUVIRT_EV_TSC, U } }, BAD(-EINVAL, 0) },
	{ "TSC in i-mode", V4, 1, { { PMUVIRT_EV_TSC, 0, 100 } }, BAD(-EINVAL, 0) },
	{ "two TSC counters", V4, 2, { { PMUVIRT_EV_TSC, 0 }, { PMUVIRT_EV_TSC, 0 } },
	  BAD(-ENOSPC, -2) },
	{ "legacy-write period above 2^31", V2, 1,
	  { { 0x2e, R | U, (1ull << 31) + 1, 0x2e | USR | ON } }, OK },
	{ "full-width period above 2^47", V4, 1,
	  { { 0x2e, R | U, (1ull << 47) + 1, 0x2e | USR | ON } }, OK },
	{ "period of 2^62", V2, 1, { { 0x2e, R | U, 1ull << 62, 0x2e | USR | ON } }, OK },
	{ "period above 2^62", V4, 1, { { 0x2e, R | U, (1ull << 62) + 1 } }, BAD(-ERANGE, 0) },
	{ "second counter above 2^62", V4, 2, { { 3, U, 0, 0xc4 | USR | ON }, { 0x2e, R | U, ~0ull } },
	  BAD(-ERANGE, 1) },
};

static void probe(enum cpu cpu, struct pmuvirt_pmu *pmu)
{
	rig_hw_free(rig_x86_new(&cpus[cpu], pmu));
}

static void build(struct pmuvirt_control *ctl, const struct enc_case *c)
{
	unsigned int i;

	*ctl = (struct pmuvirt_control){ .version = PMUVIRT_ABI_VERSION, .nr_counters = c->n };
	for (i = 0; i < c->n; i++) {
		ctl->counter[i].event = c->c[i].ev;
		ctl->counter[i].flags = c->c[i].flags;
		ctl->counter[i].period = c->c[i].period;
	}
}

/* The image must hold exactly what the table expects at the slots assigned. */
static void check_image(const struct pmuvirt_pmu *pmu, const struct enc_case *c,
			const uint8_t *slots, const struct pmuvirt_hwctl *img)
{
	uint64_t want[PMUVIRT_HWCTL_REGS] = { 0 };
	uint32_t used = (1u << pmu->nr_gp) - 1;
	bool global = pmu->caps & PMUVIRT_CAP_GLOBAL_CTRL;
	bool intel = cpus[c->cpu].vendor == FAKEHW_INTEL;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		const struct pmuvirt_slot *s = &pmu->slot[slots[i]];
		uint64_t w = c->c[i].want;
		/* Intel: a guest-only counter's enable is loaded at VM entry alone */
		unsigned int g = intel && (c->c[i].flags & GS) ? 10 : 9;

		if (w & WFIXED) {
			assert_int_equal(s->cls, PMUVIRT_CLASS_FIXED);
			assert_int_equal(s->index, (w >> 8) & 0xff);
			want[8] |= FX(s->index, w & 0xf);
			if (global)
				want[g] |= GF(s->index);
		} else if (w) {
			assert_int_equal(s->cls, PMUVIRT_CLASS_GP);
			if (w & (1ull << 33))
				assert_int_equal(s->index, 2);
			want[s->index] = w;
			if (global)
				want[g] |= G(s->index);
		} else {
			assert_int_equal(s->cls, PMUVIRT_CLASS_TSC);
		}
	}
	for (i = 0; i < PMUVIRT_HWCTL_REGS; i++) {
		if (img->reg[i] != want[i])
			print_message("  reg[%u] = 0x%llx, want 0x%llx\n", i,
				      (unsigned long long)img->reg[i], (unsigned long long)want[i]);
		assert_true(img->reg[i] == want[i]);
	}
	/* Every register of the model is in every image. */
	if (pmu->nr_fixed)
		used |= 1u << 8;
	if (global)
		used |= 1u << 9;
	if (global && intel)
		used |= 1u << 10;
	assert_int_equal(img->used, used);
}

static void test_table(void **state)
{
	unsigned int k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct enc_case *c = &cases[k];
		struct pmuvirt_pmu pmu;
		struct pmuvirt_control ctl;
		struct pmuvirt_hwctl img;
		struct pmuvirt_error err = { -7, NULL };
		uint8_t slots[PMUVIRT_MAX_COUNTERS];
		int ret;

		print_message("%s\n", c->what);
		probe(c->cpu, &pmu);
		build(&ctl, c);
		ret = pmuvirt_validate(&pmu, &ctl, PMUVIRT_MAX_COUNTERS, &img, slots, &err);
		if (ret != c->ret)
			print_message("  got %d (%s)\n", ret, err.reason ? err.reason : "");
		assert_int_equal(ret, c->ret);
		if (ret) {
			assert_non_null(err.reason);
			if (c->err_counter != -2)	/* -2: any counter */
				assert_int_equal(err.counter, c->err_counter);
			continue;
		}
		check_image(&pmu, c, slots, &img);
	}
}

/* A CPU whose CPUID.0AH:EBX marks events unavailable. */
struct masked {
	struct fakehw *hw;
	uint32_t ebx;
};

static int masked_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	struct masked *m = arg;
	int ret = fakehw_ops(m->hw)->read_cpuid(m->hw, leaf, sub, out);

	if (!ret && leaf == 0xa)
		out[1] |= m->ebx;
	return ret;
}

static int masked_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct masked *m = arg;

	return fakehw_ops(m->hw)->read_reg(m->hw, reg, val);
}

static void test_unavailable_events(void **state)
{
	static const struct pmuvirt_hw_ops mops = { .read_reg = masked_read_reg,
						    .read_cpuid = masked_cpuid };
	struct masked m = { fakehw_x86_new(&cpus[V4]), (1u << 5) | (1u << 0) };
	struct pmuvirt_pmu pmu;
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 1 };
	struct pmuvirt_error err = { 0 };

	assert_int_equal(pmuvirt_x86_probe(&pmu, &mops, &m), 0);
	ctl.counter[0] = (struct pmuvirt_counter_ctl){ .event = PMUVIRT_EV_BRANCHES, .flags = U };
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 16, NULL, NULL, &err), -EOPNOTSUPP);
	assert_int_equal(err.counter, 0);
	/* Cycles still work on fixed counter 1, but not on a general counter. */
	ctl.counter[0].event = PMUVIRT_EV_CYCLES;
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 16, NULL, NULL, &err), 0);
	ctl.nr_counters = 2;
	ctl.counter[1] = ctl.counter[0];
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 16, NULL, NULL, &err), -EOPNOTSUPP);
	/* Branch misses are available. */
	ctl.nr_counters = 1;
	ctl.counter[0].event = PMUVIRT_EV_BRANCH_MISSES;
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 16, NULL, NULL, &err), 0);
	fakehw_free(m.hw);
}

/* encode() itself refuses slot assignments no assigner may make. */
static void test_encode_direct(void **state)
{
	struct pmuvirt_pmu pmu;
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 1 };
	struct pmuvirt_hwctl img;
	struct pmuvirt_error err = { 0 };
	uint8_t slots[2];

	probe(V4, &pmu);
	ctl.counter[0] = (struct pmuvirt_counter_ctl){ .event = 0xc0, .flags = R | U };
	slots[0] = 4;	/* fixed0 */
	assert_int_equal(pmu.ops->encode(&pmu, &ctl, slots, &img, &err), -EINVAL);
	slots[0] = 7;	/* TSC */
	assert_int_equal(pmu.ops->encode(&pmu, &ctl, slots, &img, &err), -EINVAL);
	ctl.counter[0] = (struct pmuvirt_counter_ctl){ .event = PMUVIRT_EV_CYCLES, .flags = U };
	slots[0] = 4;	/* fixed0 counts instructions only */
	assert_int_equal(pmu.ops->encode(&pmu, &ctl, slots, &img, &err), -EINVAL);
	ctl.counter[0].event = PMUVIRT_EV_TSC;
	ctl.counter[0].flags = 0;
	slots[0] = 0;
	assert_int_equal(pmu.ops->encode(&pmu, &ctl, slots, &img, &err), -EINVAL);
	ctl.nr_counters = 2;
	ctl.counter[0] = (struct pmuvirt_counter_ctl){ .event = PMUVIRT_EV_CYCLES, .flags = U };
	ctl.counter[1] = ctl.counter[0];
	slots[0] = slots[1] = 0;	/* the same slot twice */
	assert_int_equal(pmu.ops->encode(&pmu, &ctl, slots, &img, &err), -EINVAL);
	assert_int_equal(err.counter, 1);
	/* slot_ok: raw codes never on fixed counters; IN_TXCP only on counter 2. */
	assert_false(pmu.ops->slot_ok(&pmu, &ctl.counter[0], 7));
	ctl.counter[0] = (struct pmuvirt_counter_ctl){ .event = 0x3c | (1ull << 33),
						       .flags = R | U };
	assert_false(pmu.ops->slot_ok(&pmu, &ctl.counter[0], 0));
	assert_true(pmu.ops->slot_ok(&pmu, &ctl.counter[0], 2));
	assert_false(pmu.ops->slot_ok(&pmu, &ctl.counter[0], 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_unavailable_events),
		cmocka_unit_test(test_encode_direct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
