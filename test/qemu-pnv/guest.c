/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A guest of the powernv test hypervisor (hv.c): one VCPU of a domain, in
 * guest real mode at MSR[HV] = 0.  It reaches the hypervisor only through
 * sc 1 (hvcall.h): it turns the performance monitor on and off with
 * H_PERFMON, asks for counters, runs loops of known length and hands every
 * performance monitor exception it takes (vector 0xf00 of its own) to the
 * hypervisor with QPNV_H_PMI.  It never touches a PMU register.  r3 of the
 * entry is the domain number, which selects its part below.
 */
#include "board.h"
#include "hvcall.h"
#include <pmuvirt/abi.h>

struct part {
	bool monitor;		/* enables the performance monitor */
	bool toggle;		/* turns it off and on again in the exception phase */
	uint64_t period;	/* i-mode period in the exception phase */
	uint64_t exact_base;	/* loop length of the exact runs */
	uint64_t exact_more;	/* and what run 1 adds */
	uint64_t seed;
};

static const struct part parts[] = {
	{ true, false, 20011, 3000, 7, 0x9e3779b97f4a7c15ull },
	{ true, true, 33331, 5000, 100, 0xd1b54a32d192ed03ull },
	{ false, false, 0, 2000, 57, 0x8cb92ba72f3d8dd7ull },
};

#define ROUNDS		10
#define CHUNKS		4
#define PMI_CHUNKS	600

static unsigned int dom;
static const struct part *me;
static int failures;
static uint64_t work;		/* loop iterations since the last report */
static uint64_t taken;		/* notifications taken (QPNV_H_TAKE) */
static uint64_t pmis, pmi_notes;
static uint64_t seed;

static void gcheck(bool ok, const char *what)
{
	if (!ok) {
		failures++;
		kprintf("FAIL: %s\n", what);
	}
}

static uint64_t rnd(void)
{
	return qppc_xorshift(&seed);
}

static void spin(uint64_t n)
{
	qppc_spin(n);
	work += n;
}

/* The hypervisor hands each exception to pmuvirt; notifications come with QPNV_H_TAKE. */
static void guest_pmi(void)
{
	unsigned long out[4];

	pmis++;
	if (hcall_out(QPNV_H_PMI, 0, 0, 0, 0, out) != H_SUCCESS)
		failures++;
	if (out[0] & 1)
		pmi_notes++;
}

void board_init(uint64_t r3, uint64_t r8, uint64_t r9)
{
	dom = (unsigned int)r3;
	me = &parts[dom < 3 ? dom : 2];
	seed = me->seed;
	__asm__ __volatile__("mtdec %0" : : "r"(0x7fffffffu));
	board_pmi_hook = guest_pmi;
}

void board_exit(bool pass)
{
	hcall(QPNV_H_DONE, pass ? 0 : (unsigned long)(failures ? failures : 1), taken, 0, 0);
	for (;;)
		;
}

static void report(void)
{
	hcall(QPNV_H_REPORT, work, 0, 0, 0);
	work = 0;
}

static void sync(unsigned int phase)
{
	gcheck(hcall(QPNV_H_SYNC, phase, work, 0, 0) == H_SUCCESS, "sync");
	work = 0;
}

static long set_control(const struct pmuvirt_control *c)
{
	return hcall(QPNV_H_SET_CONTROL, (uintptr_t)c, 0, 0, 0);
}

/* Counters the VCPU has (-1: the call failed). */
static long nr_counters(uint64_t *vals)
{
	uint64_t tmp[PMUVIRT_MAX_COUNTERS];
	unsigned long out[4];

	if (hcall_out(QPNV_H_READ, (uintptr_t)(vals ? vals : tmp), 0, 0, 0, out) != H_SUCCESS)
		return -1;
	return (long)out[0];
}

static void take(void)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	unsigned long out[4];

	if (hcall_out(QPNV_H_TAKE, (uintptr_t)counts, 0, 0, 0, out) != H_SUCCESS) {
		gcheck(false, "QPNV_H_TAKE");
		return;
	}
	if (out[0] & 1)
		taken += counts[0];
}

static void ctl_init(struct pmuvirt_control *c, unsigned int n)
{
	memset(c, 0, sizeof(*c));
	c->version = PMUVIRT_ABI_VERSION;
	c->nr_counters = n;
}

/*
 * Exact runs: instructions twice, a-mode (PMC5 and one of PMC1-4).  Cycles
 * would read QEMU's virtual clock, which under -icount is not exact within
 * a translation block.
 */
static void ctl_exact(struct pmuvirt_control *c)
{
	ctl_init(c, 2);
	c->counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	c->counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	c->counter[1].event = PMUVIRT_EV_INSTRUCTIONS;
	c->counter[1].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
}

/* Exceptions: instructions in i-mode (the domain's reset value) and in a-mode. */
static void ctl_imode(struct pmuvirt_control *c)
{
	ctl_init(c, 2);
	c->counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	c->counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	c->counter[0].period = me->period;
	c->counter[1].event = PMUVIRT_EV_INSTRUCTIONS;
	c->counter[1].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
}

/* The calls' answers to good and bad arguments; nothing changes on a bad one. */
static void phase_calls(void)
{
	static struct pmuvirt_control c;
	unsigned int i;

	ctl_exact(&c);
	gcheck(nr_counters(NULL) == 0, "no counters before H_PERFMON");
	gcheck(set_control(&c) == H_AUTHORITY, "no counters while the monitor is off");
	gcheck(hcall(H_PERFMON, 1ull << 61, 0, 0, 0) == H_PARAMETER, "H_PERFMON: unknown bit set");
	gcheck(hcall(H_PERFMON, 0, 1, 0, 0) == H_PARAMETER, "H_PERFMON: unknown bit reset");
	gcheck(hcall(H_PERFMON, H_PERFMON_ENABLE, H_PERFMON_ENABLE, 0, 0) == H_PARAMETER,
	       "H_PERFMON: one bit set and reset");
	gcheck(set_control(&c) == H_AUTHORITY, "a refused H_PERFMON enables nothing");
	gcheck(hcall(0x1234, 0, 0, 0, 0) == H_FUNCTION, "unknown call: H_FUNCTION");
	if (!me->monitor)
		return;
	for (i = 0; i < 2; i++)
		gcheck(hcall(H_PERFMON, H_PERFMON_ENABLE, 0, 0, 0) == H_SUCCESS, "H_PERFMON: enable");
	c.version = 2;
	gcheck(set_control(&c) == H_PARAMETER, "control: wrong version");
	ctl_exact(&c);
	c.reserved = 1;
	gcheck(set_control(&c) == H_PARAMETER, "control: reserved field");
	ctl_exact(&c);
	c.counter[1].event = 99;
	gcheck(set_control(&c) == H_PARAMETER, "control: unknown event");
	ctl_exact(&c);
	c.nr_counters = PMUVIRT_MAX_COUNTERS + 1;
	gcheck(set_control(&c) == H_PARAMETER, "control: too many counters");
	ctl_exact(&c);
	c.counter[0].period = (1ull << 62) + 1;
	gcheck(set_control(&c) == H_PARAMETER, "control: period too long");
	ctl_exact(&c);
	gcheck(hcall(QPNV_H_SET_CONTROL, (32u << 20) - 8, 0, 0, 0) == H_PARAMETER,
	       "control: address past the real mode area");
	gcheck(hcall(QPNV_H_SET_CONTROL, (uintptr_t)&c + 4, 0, 0, 0) == H_PARAMETER,
	       "control: misaligned address");
	gcheck(hcall(QPNV_H_SET_CONTROL, ~0ul - 7, 0, 0, 0) == H_PARAMETER,
	       "control: address that wraps");
	gcheck(hcall(QPNV_H_READ, 64u << 20, 0, 0, 0) == H_PARAMETER, "read: bad address");
	gcheck(hcall(QPNV_H_TAKE, (32u << 20) - 4, 0, 0, 0) == H_PARAMETER, "take: bad address");
	gcheck(nr_counters(NULL) == 0, "bad controls changed nothing");
}

static void phase_exact(unsigned int run)
{
	static struct pmuvirt_control c;
	unsigned int r, k;

	if (me->monitor) {
		ctl_exact(&c);
		report();
		gcheck(set_control(&c) == H_SUCCESS, "exact control");
	}
	for (r = 0; r < ROUNDS; r++)
		for (k = 0; k < CHUNKS; k++) {
			spin(me->exact_base + (run ? me->exact_more : 0));
			hcall(QPNV_H_YIELD, 0, 0, 0, 0);
		}
}

static void toggle(void)
{
	static struct pmuvirt_control c;

	report();
	take();
	gcheck(hcall(H_PERFMON, 0, H_PERFMON_ENABLE, 0, 0) == H_SUCCESS, "H_PERFMON: disable");
	gcheck(nr_counters(NULL) == 0, "no counters once the monitor is off");
	ctl_imode(&c);
	gcheck(set_control(&c) == H_AUTHORITY, "no new counters while the monitor is off");
	spin(200000);
	report();
	gcheck(hcall(H_PERFMON, H_PERFMON_ENABLE | H_PERFMON_TG, 0, 0, 0) == H_SUCCESS,
	       "H_PERFMON: enable again");
	gcheck(set_control(&c) == H_SUCCESS, "counters again");
}

static void phase_pmi(void)
{
	static struct pmuvirt_control c;
	uint64_t vals[PMUVIRT_MAX_COUNTERS];
	unsigned int i;

	if (me->monitor) {
		ctl_imode(&c);
		report();
		gcheck(set_control(&c) == H_SUCCESS, "i-mode control");
	}
	for (i = 0; i < PMI_CHUNKS; i++) {
		uint64_t r = rnd();

		spin(500 + r % 20000);
		if ((r >> 20) % 3 == 0)
			hcall(QPNV_H_YIELD, 0, 0, 0, 0);
		if ((r >> 24) % 5 == 0)
			take();
		if (me->toggle && i == PMI_CHUNKS / 2)
			toggle();
	}
	take();
	if (me->monitor)
		gcheck(nr_counters(vals) == 2 && vals[0] && vals[1], "counts of the exception phase");
	else
		gcheck(nr_counters(NULL) == 0, "still no counters");
}

void board_main(uint64_t r3, uint64_t r8, uint64_t r9)
{
	board_init(r3, r8, r9);
	kprintf("guest of domain %u: monitor %s\n", dom, me->monitor ? "on" : "off");
	phase_calls();
	sync(QPNV_PHASE_EXACT0);
	phase_exact(0);
	sync(QPNV_PHASE_EXACT1);
	phase_exact(1);
	sync(QPNV_PHASE_PMI);
	phase_pmi();
	sync(QPNV_PHASE_END);
	kprintf("guest of domain %u: %llu exceptions handed over (%llu with news), "
		"%llu notifications taken, %d failure(s)\n", dom, pmis, pmi_notes, taken, failures);
	board_exit(failures == 0);
}
