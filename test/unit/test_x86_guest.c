/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Guest-only counting (PMUVIRT_CTR_GUEST) on the fake x86 PMUs: the
 * hypervisor's own events stay out of a guest's kernel-mode counters.
 * AMD family 10h and later by the GuestOnly event-select bit; Intel by
 * IA32_PERF_GLOBAL_CTRL values the host loads at VM entry and exit
 * (pmuvirt_x86_vm_global_ctrl()), which the fake loads as VMX's controls
 * would.
 */
#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL
#define R	PMUVIRT_CTR_RAW
#define GS	PMUVIRT_CTR_GUEST

/* A CPU that runs a guest: what the hypervisor does around VM entry and exit. */
struct vm_cpu {
	struct rig_cpu c;
	bool load;		/* Intel: load GLOBAL_CTRL at entry and exit */
	bool in_guest;
	unsigned int pmis_in_guest;
};

/* VM entry (@enter) or exit: the fake loads the guest's or the host's GLOBAL_CTRL when v->load. */
static void vm_switch(struct vm_cpu *v, bool enter)
{
	uint64_t host = 0, guest = 0;

	if (v->load)
		assert_int_equal(pmuvirt_x86_vm_global_ctrl(&v->c.pc, &host, &guest), 0);
	if (enter)
		assert_int_equal(fakehw_x86_vm_entry(v->c.hw, v->load, guest), 0);
	else
		assert_int_equal(fakehw_x86_vm_exit(v->c.hw, v->load, host), 0);
	v->in_guest = enter;
}

/* A PMI in the guest exits to the host first; the host then enters again. */
static void vm_pmi(void *arg)
{
	struct vm_cpu *v = arg;
	bool guest = v->in_guest;
	uint32_t mask = 0;
	int ret;

	if (guest) {
		v->pmis_in_guest++;
		vm_switch(v, false);
	}
	ret = pmuvirt_pmi(&v->c.pc, &mask);
	if (ret)
		v->c.pmi_ret = ret;
	v->c.ovf |= mask;
	if (guest)
		vm_switch(v, true);
}

static void vm_cpu_start(struct vm_cpu *v, const struct fakehw_x86_config *cfg, bool load)
{
	memset(v, 0, sizeof(*v));
	v->c.hw = rig_x86_new(cfg, &v->c.pmu);
	rig_cpu_start(&v->c, 0);
	fakehw_set_pmi(v->c.hw, vm_pmi, v);
	v->load = load;
}

/* AMD: GuestOnly counters leave the host's events out; others count both. */
static void test_amd_guest_bits(void **state)
{
	static const struct pmuvirt_counter_ctl c[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K | GS },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K },
		{ .event = 0xc0, .flags = R | U | K | GS },
		{ .event = PMUVIRT_EV_TSC },
	};
	struct vm_cpu v;
	struct pmuvirt_ctx *ctx;
	uint64_t host, guest;

	(void)state;
	vm_cpu_start(&v, &rig_amd_17h, false);
	assert_true(v.c.pmu.caps & PMUVIRT_CAP_GUEST_ONLY);
	assert_int_equal(pmuvirt_x86_guest_only(&v.c.pmu), PMUVIRT_X86_GUEST_BITS);
	/* nothing for the host to load */
	assert_int_equal(pmuvirt_x86_vm_global_ctrl(&v.c.pc, &host, &guest), -ENODEV);

	ctx = rig_ctx_new_n(&v.c.pmu, 4, c);
	assert_int_equal(pmuvirt_switch_in(&v.c.pc, ctx), 0);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 1000, true);	/* the hypervisor */
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 300, true);	/* the guest's kernel */
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 50, false);	/* the guest's user mode */
	vm_switch(&v, false);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 700, true);
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 20, true);
	vm_switch(&v, false);
	assert_int_equal(rig_val(ctx, 0), 320);
	assert_int_equal(rig_val(ctx, 1), 1000 + 300 + 700 + 20);
	assert_int_equal(rig_val(ctx, 2), 370);
	assert_int_equal(pmuvirt_switch_out(&v.c.pc), 0);
	assert_int_equal(rig_val(ctx, 0), 320);
	rig_ctx_free(ctx);
	rig_cpu_finish(&v.c);
}

/*
 * Intel: a guest-only counter is enabled only by the value loaded at VM
 * entry; the value loaded at exit is what the register holds for the
 * host.  Fixed and general counters alike; a counter without the flag
 * counts in both.
 */
static void test_intel_switch(void **state)
{
	static const struct pmuvirt_counter_ctl c[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K | GS },	/* fixed 0 */
		{ .event = PMUVIRT_EV_CYCLES, .flags = U | K | GS },	/* fixed 1 */
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U | K },	/* general */
		{ .event = 0xc0, .flags = R | K | GS },			/* general */
	};
	const struct fakehw_stats *st;
	struct vm_cpu v;
	struct pmuvirt_ctx *ctx;
	uint64_t host, guest, reg;

	(void)state;
	vm_cpu_start(&v, &rig_intel_v4, true);
	st = fakehw_stats(v.c.hw);
	assert_int_equal(pmuvirt_x86_guest_only(&v.c.pmu), PMUVIRT_X86_GUEST_SWITCH);
	ctx = rig_ctx_new_n(&v.c.pmu, 4, c);
	assert_int_equal(pmuvirt_switch_in(&v.c.pc, ctx), 0);
	assert_int_equal(pmuvirt_x86_vm_global_ctrl(&v.c.pc, &host, &guest), 0);
	/* the host value is what pmuvirt wrote; the guest value adds the rest */
	assert_int_equal(fakehw_peek(v.c.hw, 0x38f, &reg), 0);
	assert_int_equal(host, reg);
	assert_int_equal(__builtin_popcountll(host), 1);
	assert_int_equal(__builtin_popcountll(guest), 4);
	assert_int_equal(host & ~guest, 0);

	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 1000, true);
	rig_run(v.c.hw, FAKEHW_CYCLES, 90, true);
	rig_run(v.c.hw, FAKEHW_BRANCHES, 3, true);
	fakehw_reset_stats(v.c.hw);
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 300, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 5, false);
	rig_run(v.c.hw, FAKEHW_CYCLES, 40, false);
	rig_run(v.c.hw, FAKEHW_BRANCHES, 4, false);
	vm_switch(&v, false);
	/* entry and exit cost no register access: the values come from the cache */
	assert_int_equal(st->reg_reads + st->reg_writes, 0);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 700, true);
	rig_run(v.c.hw, FAKEHW_CYCLES, 10, true);
	assert_int_equal(rig_val(ctx, 0), 300);
	assert_int_equal(rig_val(ctx, 1), 40);
	assert_int_equal(rig_val(ctx, 2), 3 + 4);
	assert_int_equal(rig_val(ctx, 3), 300);

	/* stopped, the guest value enables nothing either */
	assert_int_equal(pmuvirt_switch_out(&v.c.pc), 0);
	assert_int_equal(pmuvirt_x86_vm_global_ctrl(&v.c.pc, &host, &guest), 0);
	assert_int_equal(host, 0);
	assert_int_equal(guest, 0);
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 1000, true);
	vm_switch(&v, false);
	assert_int_equal(rig_val(ctx, 0), 300);
	rig_ctx_free(ctx);
	rig_cpu_finish(&v.c);
}

/*
 * A VCPU switched in after one with guest-only counters: its own guest
 * runs without them.  Then the first again, and the cache is forgotten:
 * the value of the register is read back, never made up.
 */
static void test_intel_switch_vcpus(void **state)
{
	static const struct pmuvirt_counter_ctl ca[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K | GS },
	};
	static const struct pmuvirt_counter_ctl cb[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	};
	const struct fakehw_stats *st;
	struct pmuvirt_ctx *a, *b;
	uint64_t host, guest;
	struct vm_cpu v;

	(void)state;
	vm_cpu_start(&v, &rig_intel_v4, true);
	st = fakehw_stats(v.c.hw);
	a = rig_ctx_new_n(&v.c.pmu, 1, ca);
	b = rig_ctx_new_n(&v.c.pmu, 1, cb);
	assert_int_equal(pmuvirt_switch_in(&v.c.pc, a), 0);
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 100, true);
	vm_switch(&v, false);
	assert_int_equal(pmuvirt_switch(&v.c.pc, b), 0);
	assert_int_equal(pmuvirt_x86_vm_global_ctrl(&v.c.pc, &host, &guest), 0);
	assert_int_equal(host, guest);
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 1000, true);
	rig_run(v.c.hw, FAKEHW_BRANCHES, 9, false);
	vm_switch(&v, false);
	assert_int_equal(pmuvirt_switch(&v.c.pc, a), 0);
	assert_int_equal(rig_val(a, 0), 100);
	assert_int_equal(rig_val(b, 0), 9);

	/* after invalidation: GLOBAL_CTRL read back, no guest-only bit known */
	assert_int_equal(pmuvirt_switch_out(&v.c.pc), 0);
	pmuvirt_pcpu_invalidate(&v.c.pc);
	assert_int_equal(fakehw_poke(v.c.hw, 0x38f, 0x1), 0);
	fakehw_reset_stats(v.c.hw);
	assert_int_equal(pmuvirt_x86_vm_global_ctrl(&v.c.pc, &host, &guest), 0);
	assert_int_equal(st->reg_reads, 1);
	assert_int_equal(host, 0x1);
	assert_int_equal(guest, 0x1);
	assert_int_equal(pmuvirt_switch_in(&v.c.pc, a), 0);
	vm_switch(&v, true);
	rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 5, true);
	vm_switch(&v, false);
	assert_int_equal(rig_val(a, 0), 105);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_cpu_finish(&v.c);
}

/*
 * i-mode guest-only counters overflow in the guest: the PMI exits to the
 * host, which enters again with what the PMI left.  Every notification
 * arrives once, and the count stays exact.
 */
static void test_guest_pmi(void **state)
{
	static const struct pmuvirt_counter_ctl c[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K | GS, .period = 100 },
		{ .event = PMUVIRT_EV_CYCLES, .flags = U | K | GS, .period = 37 },
	};
	const struct fakehw_x86_config *cfgs[] = { &rig_intel_v4, &rig_amd_17h };
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	unsigned int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct pmuvirt_ctx *ctx;
		struct vm_cpu v;

		vm_cpu_start(&v, cfgs[k], k == 0);
		ctx = rig_ctx_new_n(&v.c.pmu, 2, c);
		assert_int_equal(pmuvirt_switch_in(&v.c.pc, ctx), 0);
		rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 5000, true);	/* the host: no overflow */
		rig_run(v.c.hw, FAKEHW_CYCLES, 5000, true);
		assert_int_equal(v.pmis_in_guest, 0);
		vm_switch(&v, true);
		rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 1050, true);
		rig_run(v.c.hw, FAKEHW_CYCLES, 400, false);
		vm_switch(&v, false);
		rig_run(v.c.hw, FAKEHW_INSTRUCTIONS, 5000, true);
		assert_true(v.pmis_in_guest >= 1);
		assert_int_equal(v.c.ovf, 3);
		assert_int_equal(rig_val(ctx, 0), 1050);
		assert_int_equal(rig_val(ctx, 1), 400);
		assert_int_equal(pmuvirt_take_overflows(ctx, counts), 3);
		assert_int_equal(counts[0], 10);
		assert_int_equal(counts[1], 10);
		assert_int_equal(pmuvirt_switch_out(&v.c.pc), 0);
		rig_ctx_free(ctx);
		rig_cpu_finish(&v.c);
	}
}

/* Without the capability the flag is refused, whatever the vendor. */
static void test_no_capability(void **state)
{
	static const struct fakehw_x86_config v1 = FAKEHW_X86_INTEL_V1;
	static const struct fakehw_x86_config k8 = FAKEHW_X86_AMD_K8;
	const struct fakehw_x86_config *cfgs[] = { &v1, &k8 };
	struct pmuvirt_counter_ctl c = { .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K | GS };
	struct pmuvirt_error err = { -1, NULL };
	struct pmuvirt_control ctl;
	struct pmuvirt_pmu pmu;
	unsigned int k;

	(void)state;
	rig_control(&ctl, 1, &c);
	for (k = 0; k < 2; k++) {
		rig_hw_free(rig_x86_new(cfgs[k], &pmu));
		assert_false(pmu.caps & PMUVIRT_CAP_GUEST_ONLY);
		assert_int_equal(pmuvirt_x86_guest_only(&pmu), PMUVIRT_X86_GUEST_NONE);
		assert_int_equal(pmuvirt_validate(&pmu, &ctl, 0, NULL, NULL, &err), -EOPNOTSUPP);
		assert_int_equal(err.counter, 0);
	}
	/* a host that cannot load the values takes the capability away */
	rig_hw_free(rig_x86_new(&rig_intel_v4, &pmu));
	pmu.caps &= ~PMUVIRT_CAP_GUEST_ONLY;
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 0, NULL, NULL, &err), -EOPNOTSUPP);
	assert_int_equal(pmuvirt_x86_guest_only(&pmu), PMUVIRT_X86_GUEST_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd_guest_bits),
		cmocka_unit_test(test_intel_switch),
		cmocka_unit_test(test_intel_switch_vcpus),
		cmocka_unit_test(test_guest_pmi),
		cmocka_unit_test(test_no_capability),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
