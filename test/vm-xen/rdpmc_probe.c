// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * rdpmc_probe.ko: what a guest kernel's rdpmc returns while dom0 runs a
 * system-wide profiling session, whose counters count Xen and every
 * domain.  Loaded in a domU of the vm-xen domu boot after pmuvirt.ko is
 * gone, so this module owns its VCPU's counters.  Prints one line per
 * rdpmc and PMUVIRT-RDPMC-PASSED or PMUVIRT-RDPMC-FAIL ...; the load
 * itself always fails (-EAGAIN), so nothing stays loaded.
 *
 * Expected, with the session running:
 * - PV: every rdpmc raises #GP (the guest kernel runs without CR4.PCE and
 *   Xen does not emulate rdpmc for PV);
 * - HVM and PVH: with no counter of its own, every rdpmc raises #GP (Xen
 *   intercepts it); with one a-mode instructions counter, exactly that
 *   counter's rdpmc index reads, and what it reads between two READ
 *   hypercalls grows by at most what READ says the counter grew; every
 *   other index, the session's counters among them, raises #GP.  An index
 *   that also names a counter of the domain's emulated PMU, which the
 *   guest's kernel used before (its perf), reads that counter instead:
 *   exactly what its MSR reads, the guest's own virtual count, never
 *   the session's.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/preempt.h>
#include <xen/xen.h>
#include <asm/xen/hypercall.h>
#include <asm/asm.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/extable_fixup_types.h>
#include <pmuvirt/xen.h>
#include <pmuvirt/pmuvirt.h>

#define TRAP_GP	13

static long pmuvirt_hcall(unsigned int cmd, void *arg)
{
	return _hypercall2(long, arch_7, cmd, arg);
}

static void hdr(struct pmuvirt_xen_hdr *h, u32 size)
{
	h->version = PMUVIRT_XEN_VERSION;
	h->size = size;
}

/* rdpmc @ecx: 0 and *@val, or the trap number it raised. */
static int probe_rdpmc(u32 ecx, u64 *val)
{
	u32 lo, hi = 0, done = 0;

	asm volatile("1: rdpmc\n"
		     "   movl $1, %2\n"
		     "2:\n"
		     _ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_FAULT)
		     : "=a" (lo), "+d" (hi), "+r" (done)
		     : "c" (ecx));
	if (!done)
		return lo ? lo : -1;
	*val = ((u64)hi << 32) | lo;
	return 0;
}

static int set_control(struct pmuvirt_xen_set_control *sc, unsigned int nr)
{
	memset(sc, 0, sizeof(*sc));
	hdr(&sc->hdr, sizeof(*sc));
	sc->ctl.version = PMUVIRT_ABI_VERSION;
	sc->ctl.nr_counters = nr;
	if (nr) {
		sc->ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
		sc->ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	}
	return pmuvirt_hcall(PMUVIRT_XEN_SET_CONTROL, sc);
}

static int read_count(struct pmuvirt_xen_read *rd, u64 *v)
{
	int rc;

	memset(rd, 0, sizeof(*rd));
	hdr(&rd->hdr, sizeof(*rd));
	rc = pmuvirt_hcall(PMUVIRT_XEN_READ, rd);
	if (!rc && rd->nr_counters != 1)
		rc = -EIO;
	*v = rd->value[0];
	return rc;
}

struct probe {
	struct pmuvirt_xen_query q;
	struct pmuvirt_xen_set_control sc;
	struct pmuvirt_xen_read rd;
	u32 idx[PMUVIRT_MAX_COUNTERS + 1];
	unsigned int nr_idx;
	int fails;
};

#define FAIL(p, ...) do { pr_info("PMUVIRT-RDPMC-FAIL " __VA_ARGS__); (p)->fails++; } while (0)

/*
 * The counter of the emulated PMU that rdpmc @ecx names, read through its
 * MSR: 0 and *@val, or -EIO when the guest's PMU has no such counter (or
 * none at all: PV).  AMD's legacy counters at PERF_CTR0-3; Intel's
 * general counters at IA32_PMC0 and fixed ones at FIXED_CTR0.
 */
static int emulated_counter(u32 ecx, u64 *val)
{
	u32 msr;

	if (xen_pv_domain())
		return -EIO;
	if (boot_cpu_data.x86_vendor == X86_VENDOR_AMD)
		msr = ecx < 4 ? MSR_K7_PERFCTR0 + ecx : 0;
	else
		msr = ecx & (1u << 30) ? MSR_CORE_PERF_FIXED_CTR0 + (ecx & 0xff) :
		      MSR_IA32_PERFCTR0 + ecx;
	return msr && !rdmsrl_safe(msr, val) ? 0 : -EIO;
}

/*
 * Every index but @own (or all, for -1) must raise #GP or read its
 * emulated counter; @own must read.
 */
static void probe_all(struct probe *p, const char *what, int own)
{
	unsigned int i;
	u64 v, e;

	for (i = 0; i < p->nr_idx; i++) {
		int trap = probe_rdpmc(p->idx[i], &v);

		pr_info("PMUVIRT-RDPMC %s ecx=%#x %s %llu\n", what, p->idx[i],
			trap ? "trap" : "value", trap ? (u64)trap : v);
		if (own >= 0 && i == own) {
			if (trap)
				FAIL(p, "%s: its own counter (ecx %#x) raised trap %d\n", what,
				     p->idx[i], trap);
		} else if (!emulated_counter(p->idx[i], &e)) {
			if (trap || v != e)
				FAIL(p, "%s: ecx %#x: %s %llu, not its emulated counter's %llu\n",
				     what, p->idx[i], trap ? "trap" : "value", trap ? (u64)trap : v, e);
		} else if (trap != TRAP_GP) {
			FAIL(p, "%s: ecx %#x: %s %d, not #GP\n", what, p->idx[i],
			     trap ? "trap" : "read a value", trap);
		}
	}
}

static void probe_own(struct probe *p)
{
	u64 r0, r1, v0, v1, sink = 0;
	unsigned int i;
	int own = -1, n = 0;

	if (set_control(&p->sc, 1)) {
		FAIL(p, "SET_CONTROL of one instructions counter refused (counter %d)\n",
		     p->sc.err_counter);
		return;
	}
	/* its own counter reads, and not as the emulated counter of the index */
	for (i = 0; i < p->nr_idx; i++) {
		u64 e;

		if (!probe_rdpmc(p->idx[i], &v0) &&
		    (emulated_counter(p->idx[i], &e) || e != v0)) {
			own = i;
			n++;
		}
	}
	probe_all(p, "own", own);
	if (n != 1) {
		FAIL(p, "%d indexes read with one counter of its own\n", n);
		goto out;
	}
	if (read_count(&p->rd, &r0) || probe_rdpmc(p->idx[own], &v0)) {
		FAIL(p, "READ or rdpmc of its own counter failed\n");
		goto out;
	}
	for (i = 0; i < 100000; i++)
		sink += i;
	barrier_data(&sink);
	if (probe_rdpmc(p->idx[own], &v1) || read_count(&p->rd, &r1)) {
		FAIL(p, "READ or rdpmc of its own counter failed\n");
		goto out;
	}
	pr_info("PMUVIRT-RDPMC own ecx=%#x: rdpmc grew %llu, READ %llu\n", p->idx[own], v1 - v0,
		r1 - r0);
	if (v1 <= v0 || v1 - v0 > r1 - r0)
		FAIL(p, "own counter: rdpmc grew %llu, READ %llu\n", v1 - v0, r1 - r0);
out:
	set_control(&p->sc, 0);
}

static int __init rdpmc_probe_init(void)
{
	struct probe *p = kzalloc(sizeof(*p), GFP_KERNEL);
	unsigned int i;
	u32 absent = 0;

	if (!p)
		return -ENOMEM;
	preempt_disable();
	hdr(&p->q.hdr, sizeof(p->q));
	if (pmuvirt_hcall(PMUVIRT_XEN_QUERY, &p->q)) {
		FAIL(p, "QUERY failed\n");
		goto out;
	}
	for (i = 0; i < p->q.nr_slots && i < PMUVIRT_MAX_COUNTERS; i++) {
		const struct pmuvirt_xen_slot *s = &p->q.slot[i];

		if (s->cls == PMUVIRT_CLASS_TSC || !s->user_index)
			continue;
		p->idx[p->nr_idx++] = s->user_index - 1;
		if (s->cls == PMUVIRT_CLASS_GP && s->user_index > absent)
			absent = s->user_index;
	}
	/* the general counter after the last one: absent on every PMU */
	p->idx[p->nr_idx++] = absent;
	pr_info("PMUVIRT-RDPMC %s domain, VCPU %u, %u indexes\n", xen_pv_domain() ? "PV" : "HVM/PVH",
		p->q.vcpu_id, p->nr_idx);
	if (set_control(&p->sc, 0)) {
		FAIL(p, "SET_CONTROL without counters refused\n");
		goto out;
	}
	probe_all(p, "none", -1);
	if (xen_pv_domain()) {
		/* even its own counter: a PV kernel's rdpmc is never served */
		if (!set_control(&p->sc, 1))
			probe_all(p, "own-pv", -1);
		set_control(&p->sc, 0);
	} else {
		probe_own(p);
	}
out:
	preempt_enable();
	if (!p->fails)
		pr_info("PMUVIRT-RDPMC-PASSED\n");
	kfree(p);
	return -EAGAIN;
}

module_init(rdpmc_probe_init);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("pmuvirt test: a guest kernel's rdpmc during a profiling session");
