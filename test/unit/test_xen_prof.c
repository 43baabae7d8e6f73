// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * System-wide profiling, the host-neutral parts: the check of a session's
 * description (PROF_START), the ring geometry, the mode of an interrupted
 * context (Xen, guest kernel, guest user), what a record holds, the
 * arbitration rule between a session and a context's own counters, a
 * context that joins and leaves a session on a strict fake PMU while its
 * own counts, notifications and shared record go on untouched, and a PV
 * guest's call chains: the stack bounds, a hostile stack, and the records
 * of a ring with chains.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pmuvirt/xen.h>
#include <pmuvirt/user.h>
#include "rig.h"
#include "pmuvirt_abi_check.h"
#include "../common/prof_start.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL
#define S	PMUVIRT_CTR_SAMPLE
#define V	PMUVIRT_CTR_SAMPLE_VALUES

static void valid_start(struct pmuvirt_xen_prof_start *op)
{
	prof_start_one(op, 16, PMUVIRT_EV_CYCLES, U | K | S, 100000);
	op->nr_domains = 2;
	op->domains[1] = 7;
}

enum start_bad {
	SB_NONE, SB_DOMAINS33, SB_DOMAINS32, SB_TWICE, SB_DOMID_RESERVED, SB_DOMID_LAST,
	SB_PAST_COUNT, SB_PAGES1, SB_PAGES3, SB_PAGES512, SB_PAGES256, SB_PAGES2, SB_HW0,
	SB_HW101, SB_HW100, SB_VERSION, SB_NO_COUNTERS, SB_NINE, SB_EIGHT, SB_AMODE,
	SB_NO_SAMPLE, SB_TSC, SB_RAW_FE, SB_NO_DOMAINS, SB_FMT_IP, SB_FMT_ALL_BUT_CHAIN, SB_FMT_CHAIN,
	SB_FMT_UNKNOWN, SB_ACTIVE, SB_ACTIVE_PAST, SB_ACTIVE_ALL32, SB_CHAIN1, SB_CHAIN127,
	SB_CHAIN128, SB_DEPTH_NO_CHAIN, SB_DEPTH_DEFAULT,
};

static const struct {
	enum start_bad bad;
	int expect;
	int counter;
} start_cases[] = {
	{ SB_NONE, 0, -1 },
	{ SB_NO_DOMAINS, 0, -1 },
	{ SB_DOMAINS32, 0, -1 },
	{ SB_DOMAINS33, -EINVAL, -1 },
	{ SB_TWICE, -EINVAL, -1 },
	{ SB_DOMID_RESERVED, -EINVAL, -1 },
	{ SB_DOMID_LAST, 0, -1 },
	{ SB_PAST_COUNT, -EINVAL, -1 },
	{ SB_PAGES1, -EINVAL, -1 },
	{ SB_PAGES3, -EINVAL, -1 },
	{ SB_PAGES512, -EINVAL, -1 },
	{ SB_PAGES256, 0, -1 },
	{ SB_PAGES2, 0, -1 },
	{ SB_HW0, -EINVAL, -1 },
	{ SB_HW101, -EINVAL, -1 },
	{ SB_HW100, 0, -1 },
	{ SB_VERSION, -EINVAL, -1 },
	{ SB_NO_COUNTERS, -EINVAL, -1 },
	{ SB_NINE, -EINVAL, -1 },
	{ SB_EIGHT, 0, -1 },
	{ SB_AMODE, -EINVAL, 1 },
	{ SB_NO_SAMPLE, -EINVAL, 1 },
	{ SB_TSC, -EINVAL, 1 },
	{ SB_RAW_FE, 0, -1 },	/* a raw code, even the TSC's number, is the PMU's to judge */
	{ SB_FMT_IP, 0, -1 },
	{ SB_FMT_ALL_BUT_CHAIN, 0, -1 },
	{ SB_FMT_CHAIN, -EINVAL, -1 },	/* call chains without a depth */
	{ SB_CHAIN1, 0, -1 },
	{ SB_CHAIN127, 0, -1 },
	{ SB_CHAIN128, -EINVAL, -1 },
	{ SB_DEPTH_NO_CHAIN, -EINVAL, -1 },	/* a depth without call chains */
	{ SB_DEPTH_DEFAULT, -EINVAL, -1 },	/* ... nor with the default format */
	{ SB_FMT_UNKNOWN, -EINVAL, -1 },
	{ SB_ACTIVE, 0, -1 },		/* both listed domains active */
	{ SB_ACTIVE_PAST, -EINVAL, -1 },	/* a bit past the two listed */
	{ SB_ACTIVE_ALL32, 0, -1 },	/* 32 domains, all active */
};

static void test_start_check(void **state)
{
	struct pmuvirt_xen_prof_start op, before;
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(start_cases) / sizeof(start_cases[0]); i++) {
		struct pmuvirt_error err = { .counter = -7, .reason = NULL };
		int ret;

		valid_start(&op);
		op.ctl.nr_counters = 2;
		op.ctl.counter[1] = op.ctl.counter[0];
		op.ctl.counter[1].event = PMUVIRT_EV_BRANCHES;
		switch (start_cases[i].bad) {
		case SB_NONE: break;
		case SB_NO_DOMAINS: op.nr_domains = 0; op.domains[0] = op.domains[1] = 0; break;
		case SB_DOMAINS32:
		case SB_DOMAINS33:
			op.nr_domains = start_cases[i].bad == SB_DOMAINS32 ? 32 : 33;
			for (k = 0; k < 32; k++)
				op.domains[k] = (uint16_t)(k * 3);
			break;
		case SB_TWICE: op.domains[1] = 0; break;
		case SB_DOMID_RESERVED: op.domains[1] = 0x7ff0; break;
		case SB_DOMID_LAST: op.domains[1] = 0x7fef; break;
		case SB_PAST_COUNT: op.domains[5] = 9; break;
		case SB_PAGES1: op.ring_pages = 1; break;
		case SB_PAGES3: op.ring_pages = 3; break;
		case SB_PAGES512: op.ring_pages = 512; break;
		case SB_PAGES256: op.ring_pages = 256; break;
		case SB_PAGES2: op.ring_pages = 2; break;
		case SB_HW0: op.high_water_pct = 0; break;
		case SB_HW101: op.high_water_pct = 101; break;
		case SB_HW100: op.high_water_pct = 100; break;
		case SB_VERSION: op.ctl.version = 2; break;
		case SB_NO_COUNTERS: op.ctl.nr_counters = 0; break;
		case SB_NINE:
		case SB_EIGHT:
			op.ctl.nr_counters = start_cases[i].bad == SB_NINE ? 9 : 8;
			for (k = 0; k < op.ctl.nr_counters; k++)
				op.ctl.counter[k] = op.ctl.counter[0];
			break;
		case SB_AMODE: op.ctl.counter[1].period = 0; break;
		case SB_NO_SAMPLE: op.ctl.counter[1].flags = U | K; break;
		case SB_TSC: op.ctl.counter[1].event = PMUVIRT_EV_TSC; break;
		case SB_RAW_FE:
			op.ctl.counter[1].event = PMUVIRT_EV_TSC;
			op.ctl.counter[1].flags |= PMUVIRT_CTR_RAW;
			break;
		case SB_FMT_IP: op.sample_format = PMUVIRT_SAMPLE_FMT_IP; break;
		case SB_FMT_ALL_BUT_CHAIN:
			op.sample_format = PMUVIRT_SAMPLE_FMT_ALL & ~PMUVIRT_SAMPLE_FMT_CHAIN;
			break;
		case SB_FMT_CHAIN: op.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT |
						       PMUVIRT_SAMPLE_FMT_CHAIN; break;
		case SB_FMT_UNKNOWN: op.sample_format = 0x20; break;
		case SB_CHAIN1:
		case SB_CHAIN127:
		case SB_CHAIN128:
			op.sample_format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE |
					   PMUVIRT_SAMPLE_FMT_CHAIN;
			op.chain_depth = start_cases[i].bad == SB_CHAIN1 ? 1 :
					 start_cases[i].bad == SB_CHAIN127 ? 127 : 128;
			break;
		case SB_DEPTH_NO_CHAIN:
			op.sample_format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE;
			op.chain_depth = 8;
			break;
		case SB_DEPTH_DEFAULT: op.chain_depth = 1; break;
		case SB_ACTIVE: op.active = 0x3; break;
		case SB_ACTIVE_PAST: op.active = 0x5; break;
		case SB_ACTIVE_ALL32:
			op.nr_domains = 32;
			for (k = 0; k < 32; k++)
				op.domains[k] = (uint16_t)(k * 3);
			op.active = ~0u;
			break;
		}
		before = op;
		assert_int_equal(pmuvirt_xen_check_arg(PMUVIRT_XEN_PROF_START, &op, sizeof(op)), 0);
		ret = pmuvirt_xen_check_prof_start(&op, &err);
		if (ret != start_cases[i].expect)
			fail_msg("case %u (%d): got %d, expected %d", i, start_cases[i].bad, ret,
				 start_cases[i].expect);
		assert_memory_equal(&op, &before, sizeof(op));
		if (ret) {
			assert_int_equal(err.counter, start_cases[i].counter);
			assert_non_null(err.reason);
		}
	}
	/* The checker reads nothing but the argument: no error pointer is fine. */
	valid_start(&op);
	op.ring_pages = 0;
	assert_int_equal(pmuvirt_xen_check_prof_start(&op, NULL), -EINVAL);
}

/* Records per ring: the largest power of two after the header. */
static void test_ring_geometry(void **state)
{
	uint32_t pages;

	(void)state;
	assert_int_equal(sizeof(struct pmuvirt_sample_ring), PMUVIRT_XEN_PROF_DATA_OFFSET);
	struct pmuvirt_xen_prof_start op;
	struct pmuvirt_sample_format fmt;

	memset(&op, 0, sizeof(op));
	op.ctl.nr_counters = 2;
	pmuvirt_xen_prof_format(&op, &fmt);	/* 0: the default, 16 values */
	assert_int_equal(fmt.format, PMUVIRT_SAMPLE_FMT_DEFAULT);
	assert_int_equal(fmt.nr_values, 16);
	assert_int_equal(pmuvirt_xen_prof_records(2, &fmt), 32);
	assert_int_equal(pmuvirt_xen_prof_records(16, &fmt), 256);
	assert_int_equal(pmuvirt_xen_prof_records(256, &fmt), 4096);
	for (pages = PMUVIRT_XEN_PROF_MIN_PAGES; pages <= PMUVIRT_XEN_PROF_MAX_PAGES; pages *= 2) {
		uint32_t n = pmuvirt_xen_prof_records(pages, &fmt);
		size_t bytes = pmuvirt_sample_ring_bytes(n, PMUVIRT_XEN_PROF_DATA_OFFSET, &fmt);

		assert_true(n && !(n & (n - 1)));
		assert_true(bytes && bytes <= (size_t)pages * 4096);
		assert_true(pmuvirt_sample_ring_bytes(2 * n, PMUVIRT_XEN_PROF_DATA_OFFSET, &fmt) >
			    (size_t)pages * 4096);
	}
	/* a chosen format: a value slot per session counter; 48-byte records */
	op.sample_format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_VALUES;
	pmuvirt_xen_prof_format(&op, &fmt);
	assert_int_equal(fmt.nr_values, 2);
	assert_int_equal(pmuvirt_sample_record_size(fmt.format, fmt.nr_values, 0), 48);
	assert_int_equal(pmuvirt_xen_prof_records(2, &fmt), 128);
	op.sample_format = PMUVIRT_SAMPLE_FMT_IP;
	pmuvirt_xen_prof_format(&op, &fmt);
	assert_int_equal(fmt.nr_values, 0);
	assert_int_equal(pmuvirt_xen_prof_records(2, &fmt), 128);	/* 32-byte records: 252 fit */
	/* call chains: the depth's slots; 32 + 8 * 16 = 160-byte records */
	op.sample_format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE | PMUVIRT_SAMPLE_FMT_CHAIN;
	op.chain_depth = 16;
	pmuvirt_xen_prof_format(&op, &fmt);
	assert_int_equal(fmt.chain_depth, 16);
	assert_int_equal(pmuvirt_sample_record_size(fmt.format, fmt.nr_values, fmt.chain_depth), 160);
	assert_int_equal(pmuvirt_xen_prof_records(2, &fmt), 32);	/* 50 fit */
	op.chain_depth = 127;
	pmuvirt_xen_prof_format(&op, &fmt);
	assert_int_equal(pmuvirt_xen_prof_records(2, &fmt), 4);	/* 1048-byte records: 7 fit */
}

/* Xen's PV ABI: ring 0 is Xen; a 64-bit PV kernel shares ring 3 with its user code. */
static void test_mode(void **state)
{
	static const struct {
		struct pmuvirt_xen_prof_where w;
		uint32_t mode;
	} cases[] = {
		{ { .ip = 0xffff82d040200000ull, .cs = 0xe008 }, PMUVIRT_SAMPLE_HYPERVISOR },
		/* not a guest frame: Xen, whatever the VCPU is */
		{ { .cs = 0xe033, .kernel = true }, PMUVIRT_SAMPLE_HYPERVISOR },
		{ { .cs = 0xe033, .hvm = true }, PMUVIRT_SAMPLE_HYPERVISOR },
		{ { .guest = true, .cs = 0xe033, .kernel = true }, 0 },
		{ { .guest = true, .cs = 0xe033 }, PMUVIRT_SAMPLE_USER },
		{ { .guest = true, .cs = 0xe02b }, PMUVIRT_SAMPLE_USER },
		{ { .guest = true, .pv32 = true, .cs = 0xe019 }, 0 },
		{ { .guest = true, .pv32 = true, .cs = 0xe02b }, PMUVIRT_SAMPLE_USER },
		/* a 32-bit kernel is in ring 1 whatever a stale flag says */
		{ { .guest = true, .pv32 = true, .cs = 0xe02b, .kernel = true }, PMUVIRT_SAMPLE_USER },
		{ { .guest = true, .hvm = true, .cs = 0x10 }, 0 },
		{ { .guest = true, .hvm = true, .cs = 0x33 }, PMUVIRT_SAMPLE_USER },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (pmuvirt_xen_prof_mode(&cases[i].w) != cases[i].mode)
			fail_msg("case %u: mode %#x, expected %#x", i,
				 pmuvirt_xen_prof_mode(&cases[i].w), cases[i].mode);
}

/*
 * A strict fake VMCB or VMCS: the fields it holds; reading any other is a
 * failure of the test (the decoder asked for something it should not).
 */
struct fake_vm_state {
	unsigned int nr;
	struct {
		uint32_t field;
		uint64_t val;
	} f[4];
	int fail_field;		/* a field whose read fails (-EIO), or -1 */
	unsigned int reads;
};

static int fake_vm_read(void *arg, uint32_t field, uint64_t *val)
{
	struct fake_vm_state *st = arg;
	unsigned int i;

	st->reads++;
	if ((int)field == st->fail_field)
		return -EIO;
	for (i = 0; i < st->nr; i++)
		if (st->f[i].field == field) {
			*val = st->f[i].val;
			return 0;
		}
	fail_msg("read of field %#x the fake does not hold", field);
	return -ENOENT;
}

static const struct pmuvirt_xen_prof_where xen_at_exit = { .ip = 0xffff82d040345678ull,
							   .cs = 0xe008, .hvm = true };

/* The guest's RIP and CPL as the VM exit left them: SVM from the VMCB. */
static void test_hvm_svm(void **state)
{
	struct fake_vm_state st = { 2, { { PMUVIRT_XEN_VMCB_RIP, 0x401234 },
					 { PMUVIRT_XEN_VMCB_CPL, 3 } }, -1, 0 };
	struct pmuvirt_xen_prof_where w = xen_at_exit;

	(void)state;
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, PMUVIRT_XEN_HVM_SVM, fake_vm_read, &st), 0);
	assert_int_equal(w.ip, 0x401234);
	assert_true(w.guest && w.hvm && !w.kernel && !w.pv32);
	assert_int_equal(pmuvirt_xen_prof_mode(&w), PMUVIRT_SAMPLE_USER);

	st.f[0].val = 0xffffffff81abcdefull;
	st.f[1].val = 0;
	w = xen_at_exit;
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, PMUVIRT_XEN_HVM_SVM, fake_vm_read, &st), 0);
	assert_int_equal(w.ip, 0xffffffff81abcdefull);
	assert_int_equal(pmuvirt_xen_prof_mode(&w), 0);

	/* a CPL no CPU has, or a field that cannot be read: the record stays Xen's */
	st.f[1].val = 4;
	w = xen_at_exit;
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, PMUVIRT_XEN_HVM_SVM, fake_vm_read, &st),
			 -EINVAL);
	assert_memory_equal(&w, &xen_at_exit, sizeof(w));
	st.f[1].val = 0;
	st.fail_field = PMUVIRT_XEN_VMCB_CPL;
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, PMUVIRT_XEN_HVM_SVM, fake_vm_read, &st),
			 -EIO);
	assert_memory_equal(&w, &xen_at_exit, sizeof(w));
	assert_int_equal(pmuvirt_xen_prof_mode(&w), PMUVIRT_SAMPLE_HYPERVISOR);
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, 0, fake_vm_read, &st), -EINVAL);
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, 3, fake_vm_read, &st), -EINVAL);
}

/* VMX: the RIP from the VMCS, the CPL from SS's access rights (its DPL). */
static void test_hvm_vmx(void **state)
{
	static const struct {
		uint64_t ss_ar;
		uint32_t mode;
	} ar[] = {
		{ 0x0093, 0 },				/* ring 0 data, present */
		{ 0x00f3, PMUVIRT_SAMPLE_USER },	/* DPL 3 */
		{ 0x10000, 0 },				/* unusable, DPL 0: a 64-bit kernel's null SS */
		{ 0x10060, PMUVIRT_SAMPLE_USER },	/* unusable, DPL 3 */
		{ 0xffffffffffffff9full, 0 },		/* every other bit set: DPL 0 */
		{ 0x0020, 0 },				/* DPL 1: a ring-1 kernel is a kernel */
		{ 0x0040, 0 },				/* DPL 2 */
	};
	struct fake_vm_state st = { 2, { { PMUVIRT_XEN_VMCS_GUEST_RIP, 0x7f0012345678ull },
					 { PMUVIRT_XEN_VMCS_GUEST_SS_AR, 0 } }, -1, 0 };
	struct pmuvirt_xen_prof_where w;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ar) / sizeof(ar[0]); i++) {
		st.f[1].val = ar[i].ss_ar;
		w = xen_at_exit;
		assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, PMUVIRT_XEN_HVM_VMX, fake_vm_read,
							    &st), 0);
		assert_int_equal(w.ip, 0x7f0012345678ull);
		assert_int_equal(w.cs, (ar[i].ss_ar >> 5) & 3);
		if (pmuvirt_xen_prof_mode(&w) != ar[i].mode)
			fail_msg("SS access rights %#llx: mode %#x, expected %#x",
				 (unsigned long long)ar[i].ss_ar, pmuvirt_xen_prof_mode(&w), ar[i].mode);
	}
	/* A VMCS that cannot be read (not current here): nothing changes. */
	st.fail_field = PMUVIRT_XEN_VMCS_GUEST_RIP;
	st.reads = 0;
	w = xen_at_exit;
	assert_int_equal(pmuvirt_xen_prof_hvm_guest(&w, PMUVIRT_XEN_HVM_VMX, fake_vm_read, &st),
			 -EIO);
	assert_int_equal(st.reads, 1);
	assert_memory_equal(&w, &xen_at_exit, sizeof(w));
}

/* What the core puts in a record with PMUVIRT_CTR_SAMPLE_VALUES, before the host's part. */
static void with_values(struct pmuvirt_sample *s)
{
	s->flags = PMUVIRT_SAMPLE_VALUES;
	s->nr_values = 2;
	s->value[0] = 99;
	s->value[1] = 4242;
	s->tid = 0x55;
}

static void assert_no_values(const struct pmuvirt_sample *s)
{
	unsigned int i;

	assert_int_equal(s->flags & PMUVIRT_SAMPLE_VALUES, 0);
	assert_int_equal(s->nr_values, 0);
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++)
		assert_int_equal(s->value[i], 0);
	assert_int_equal(s->tid, 0);
}

/* A record names the domain, the VCPU and the mode; guest IPs only of named domains. */
static void test_record(void **state)
{
	struct pmuvirt_xen_prof_where xen = { .ip = 0xffff82d040312345ull, .cs = 0xe008 };
	struct pmuvirt_xen_prof_where kern = { .ip = 0xffffffff81234567ull, .cs = 0xe033,
					       .guest = true, .kernel = true };
	struct pmuvirt_xen_prof_where user = { .ip = 0x401000, .cs = 0xe033, .guest = true };
	struct pmuvirt_sample s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.cpu = 1;
	s.counter = 2;
	s.weight = 3;
	s.flags = PMUVIRT_SAMPLE_VALUES | PMUVIRT_SAMPLE_USER;	/* a stale user bit goes */
	s.nr_values = 1;
	s.value[0] = 99;
	pmuvirt_xen_prof_record(&s, &kern, 5, 1, true, 777);
	assert_int_equal(s.ip, 0xffffffff81234567ull);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_VALUES);
	assert_int_equal(s.domain, 5);
	assert_int_equal(s.tid, 1);
	assert_int_equal(s.time, 777);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.counter, 2);
	assert_int_equal(s.weight, 3);
	assert_int_equal(s.value[0], 99);

	pmuvirt_xen_prof_record(&s, &user, 5, 0, true, 778);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_VALUES | PMUVIRT_SAMPLE_USER);

	/*
	 * A domain the session does not name: mode and domain only, no guest
	 * IP, no VCPU, none of the counter values the core put in.
	 */
	with_values(&s);
	pmuvirt_xen_prof_record(&s, &user, 9, 1, false, 779);
	assert_int_equal(s.ip, 0);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP);
	assert_int_equal(s.domain, 9);
	assert_no_values(&s);
	with_values(&s);
	pmuvirt_xen_prof_record(&s, &kern, 9, 1, false, 779);
	assert_int_equal(s.ip, 0);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_NO_IP);
	assert_no_values(&s);
	/* ... but Xen's own work on its behalf is Xen's, named: its IP, still no values. */
	with_values(&s);
	pmuvirt_xen_prof_record(&s, &xen, 9, 1, false, 780);
	assert_int_equal(s.ip, 0xffff82d040312345ull);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_HYPERVISOR);
	assert_int_equal(s.domain, 9);
	assert_no_values(&s);
	/* An idle PCPU is Xen's: the PCPU and the values stay. */
	with_values(&s);
	pmuvirt_xen_prof_record(&s, &xen, PMUVIRT_XEN_DOMID_IDLE, 3, false, 781);
	assert_int_equal(s.domain, PMUVIRT_XEN_DOMID_IDLE);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_HYPERVISOR | PMUVIRT_SAMPLE_VALUES);
	assert_int_equal(s.tid, 3);
	assert_int_equal(s.nr_values, 2);
	assert_int_equal(s.value[1], 4242);
}

/* An active domain reads its own records: Xen's IPs withheld, its own kept. */
static void test_record_for_guest(void **state)
{
	struct pmuvirt_sample s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.ip = 0xffff82d040312345ull;
	s.flags = PMUVIRT_SAMPLE_HYPERVISOR | PMUVIRT_SAMPLE_VALUES;
	pmuvirt_xen_prof_for_guest(&s);
	assert_int_equal(s.ip, 0);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_HYPERVISOR | PMUVIRT_SAMPLE_VALUES |
				  PMUVIRT_SAMPLE_NO_IP);
	s.ip = 0xffffffff81001234ull;
	s.flags = PMUVIRT_SAMPLE_VALUES;
	pmuvirt_xen_prof_for_guest(&s);
	assert_int_equal(s.ip, 0xffffffff81001234ull);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_VALUES);
	s.ip = 0x401000;
	s.flags = PMUVIRT_SAMPLE_USER;
	pmuvirt_xen_prof_for_guest(&s);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.flags, PMUVIRT_SAMPLE_USER);
}


/*
 * A guest's memory for the frame walk: 64 words from @base.  Every read
 * must lie in [@lo, @hi) (the stack the bounds allow); one that does not
 * is a failure, whatever the memory holds there.
 */
struct fake_guest {
	uint64_t base;
	uint64_t word[64];
	uint64_t lo, hi;
	unsigned int reads;
};

static int fake_guest_read(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	struct fake_guest *g = arg;

	g->reads++;
	if (addr < g->lo || addr + len > g->hi || addr + len < addr)
		fail_msg("read of %#llx (%u bytes) outside [%#llx, %#llx)",
			 (unsigned long long)addr, len, (unsigned long long)g->lo,
			 (unsigned long long)g->hi);
	if (addr < g->base || addr - g->base + len > sizeof(g->word))
		return -EFAULT;
	memcpy(buf, (const char *)g->word + (addr - g->base), len);
	return 0;
}

/* The frame {@next, @ret} at @fp. */
static void put_frame(struct fake_guest *g, uint64_t fp, uint64_t next, uint64_t ret)
{
	g->word[(fp - g->base) / 8] = next;
	g->word[(fp - g->base) / 8 + 1] = ret;
}

#define KTOP	0xffffc90000010000ull	/* the top of a guest task's kernel stack */
#define UTOP	0x00007ffd00001000ull	/* somewhere in a user stack */

/*
 * A guest kernel stack below @KTOP, rsp at KTOP - 0x1f0: four frames, the
 * last at the top's very end, then a saved frame pointer past the top.
 */
static void kernel_stack(struct fake_guest *g, struct pmuvirt_xen_pv_stack *st)
{
	memset(g, 0, sizeof(*g));
	g->base = KTOP - 0x200;
	g->lo = KTOP - 0x1f0;
	g->hi = KTOP;
	put_frame(g, KTOP - 0x1c0, KTOP - 0x180, 0xffffffffc0001111ull);
	put_frame(g, KTOP - 0x180, KTOP - 0x100, 0xffffffffc0002222ull);
	put_frame(g, KTOP - 0x100, KTOP - 0x10, 0xffffffff81003333ull);
	put_frame(g, KTOP - 0x10, KTOP + 0x100, 0xffffffff81004444ull);
	*st = (struct pmuvirt_xen_pv_stack){ .bp = KTOP - 0x1c0, .sp = KTOP - 0x1f0,
					     .kernel_sp = KTOP };
}

/* A user stack: two frames, then a return address of 0. */
static void user_stack(struct fake_guest *g, struct pmuvirt_xen_pv_stack *st)
{
	memset(g, 0, sizeof(*g));
	g->base = UTOP - 0x100;
	g->lo = UTOP - 0xf8;
	g->hi = PMUVIRT_XEN_PV_USER_END;
	put_frame(g, UTOP - 0xe0, UTOP - 0x80, 0x401234);
	put_frame(g, UTOP - 0x80, UTOP - 0x40, 0x405678);
	put_frame(g, UTOP - 0x40, UTOP - 0x20, 0);
	*st = (struct pmuvirt_xen_pv_stack){ .bp = UTOP - 0xe0, .sp = UTOP - 0xf8,
					     .kernel_sp = KTOP };
}

/* The guest's own halves; never a byte of Xen's range between them. */
static void test_pv_guest_addr(void **state)
{
	(void)state;
	assert_true(pmuvirt_xen_pv_guest_addr(0, 16));
	assert_true(pmuvirt_xen_pv_guest_addr(PMUVIRT_XEN_PV_USER_END - 16, 16));
	assert_false(pmuvirt_xen_pv_guest_addr(PMUVIRT_XEN_PV_USER_END - 8, 16));
	assert_false(pmuvirt_xen_pv_guest_addr(PMUVIRT_XEN_PV_USER_END, 16));
	assert_false(pmuvirt_xen_pv_guest_addr(0xffff82d040200000ull, 16));	/* Xen's text */
	assert_false(pmuvirt_xen_pv_guest_addr(PMUVIRT_XEN_PV_KERNEL_START - 8, 16));
	assert_true(pmuvirt_xen_pv_guest_addr(PMUVIRT_XEN_PV_KERNEL_START, 16));
	assert_true(pmuvirt_xen_pv_guest_addr(0xfffffffffffffff0ull, 16));
	assert_false(pmuvirt_xen_pv_guest_addr(0xfffffffffffffff8ull, 16));	/* wraps to 0 */
}

/* Which stack a PV guest's walk may read: the bounds, and every case without one. */
static void test_pv_limit(void **state)
{
	static const struct {
		struct pmuvirt_xen_prof_where w;
		uint64_t sp, kernel_sp, limit;
	} cases[] = {
		{ { .guest = true, .kernel = true }, KTOP - 0x1f0, KTOP, KTOP },
		{ { .guest = true, .kernel = true }, KTOP - PMUVIRT_XEN_PV_KSTACK_MAX, KTOP, KTOP },
		/* deeper than a kernel stack: an interrupt stack, or not the task's */
		{ { .guest = true, .kernel = true }, KTOP - PMUVIRT_XEN_PV_KSTACK_MAX - 8, KTOP, 0 },
		{ { .guest = true, .kernel = true }, KTOP + 0x100, KTOP, 0 },
		{ { .guest = true, .kernel = true }, KTOP, KTOP, 0 },
		{ { .guest = true, .kernel = true }, KTOP - 0x100, 0, 0 },
		/* a kernel whose rsp is in the user half, or in Xen's range */
		{ { .guest = true, .kernel = true }, UTOP, UTOP + 0x100, 0 },
		{ { .guest = true, .kernel = true }, 0xffff830000001000ull, 0xffff830000002000ull, 0 },
		{ { .guest = true, .kernel = true }, PMUVIRT_XEN_PV_KERNEL_START - 0x10,
		  PMUVIRT_XEN_PV_KERNEL_START + 0x1000, 0 },
		{ { .guest = true, .kernel = true }, PMUVIRT_XEN_PV_KERNEL_START,
		  PMUVIRT_XEN_PV_KERNEL_START + 0x1000, PMUVIRT_XEN_PV_KERNEL_START + 0x1000 },
		{ { .guest = true }, UTOP, 0, PMUVIRT_XEN_PV_USER_END },
		{ { .guest = true }, PMUVIRT_XEN_PV_USER_END - 8, 0, PMUVIRT_XEN_PV_USER_END },
		{ { .guest = true }, PMUVIRT_XEN_PV_USER_END, 0, 0 },
		{ { .guest = true }, KTOP - 0x100, KTOP, 0 },
		/* never: Xen, an HVM or PVH guest, a 32-bit PV one */
		{ { .kernel = true }, KTOP - 0x100, KTOP, 0 },
		{ { 0 }, UTOP, KTOP, 0 },
		{ { .guest = true, .hvm = true }, UTOP, KTOP, 0 },
		{ { .guest = true, .hvm = true, .kernel = true }, KTOP - 0x100, KTOP, 0 },
		{ { .guest = true, .pv32 = true }, 0x8000000, KTOP, 0 },
		{ { .guest = true, .pv32 = true, .kernel = true }, KTOP - 0x100, KTOP, 0 },
	};
	struct pmuvirt_xen_pv_stack st;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st = (struct pmuvirt_xen_pv_stack){ .bp = cases[i].sp, .sp = cases[i].sp,
						    .kernel_sp = cases[i].kernel_sp };
		if (pmuvirt_xen_prof_pv_limit(&cases[i].w, &st) != cases[i].limit)
			fail_msg("case %u: limit %#llx, expected %#llx", i,
				 (unsigned long long)pmuvirt_xen_prof_pv_limit(&cases[i].w, &st),
				 (unsigned long long)cases[i].limit);
	}
}

static void no_chain(const struct pmuvirt_xen_prof_where *w, bool profiled,
		     const struct pmuvirt_xen_pv_stack *st, struct fake_guest *g, uint64_t *frames,
		     unsigned int max)
{
	struct pmuvirt_sample s;

	memset(&s, 0, sizeof(s));
	s.nr_kernel = 5;	/* whatever was there goes */
	s.nr_user = 6;
	g->reads = 0;
	pmuvirt_xen_prof_pv_chain(&s, w, profiled, st, fake_guest_read, g, frames, max);
	assert_int_equal(s.nr_kernel, 0);
	assert_int_equal(s.nr_user, 0);
	assert_int_equal(g->reads, 0);
}

/* A PV guest's call chains: kernel and user frames, bounded, and none where none may be read. */
static void test_pv_chain(void **state)
{
	const struct pmuvirt_xen_prof_where kern = { .guest = true, .kernel = true, .cs = 0xe033,
						     .ip = 0xffffffffc0000abcull };
	const struct pmuvirt_xen_prof_where user = { .guest = true, .cs = 0xe02b, .ip = 0x401000 };
	struct pmuvirt_xen_prof_where w;
	struct pmuvirt_xen_pv_stack st;
	struct pmuvirt_sample s;
	struct fake_guest g;
	uint64_t frames[8];

	(void)state;
	/* the kernel's callers up to its stack's top, which the walk never passes */
	kernel_stack(&g, &st);
	memset(&s, 0, sizeof(s));
	memset(frames, 0, sizeof(frames));
	pmuvirt_xen_prof_pv_chain(&s, &kern, true, &st, fake_guest_read, &g, frames, 8);
	assert_int_equal(s.nr_kernel, 4);
	assert_int_equal(s.nr_user, 0);
	assert_int_equal(frames[0], 0xffffffffc0001111ull);
	assert_int_equal(frames[1], 0xffffffffc0002222ull);
	assert_int_equal(frames[2], 0xffffffff81003333ull);
	assert_int_equal(frames[3], 0xffffffff81004444ull);
	assert_int_equal(g.reads, 4);
	/* as many as there is room for */
	memset(&s, 0, sizeof(s));
	pmuvirt_xen_prof_pv_chain(&s, &kern, true, &st, fake_guest_read, &g, frames, 2);
	assert_int_equal(s.nr_kernel, 2);
	/* a hostile stack: a frame that points at itself, then one that goes down */
	put_frame(&g, KTOP - 0x1c0, KTOP - 0x1c0, 0xffffffffc0001111ull);
	memset(&s, 0, sizeof(s));
	pmuvirt_xen_prof_pv_chain(&s, &kern, true, &st, fake_guest_read, &g, frames, 8);
	assert_int_equal(s.nr_kernel, 1);
	put_frame(&g, KTOP - 0x1c0, KTOP - 0x1e0, 0xffffffffc0001111ull);
	memset(&s, 0, sizeof(s));
	pmuvirt_xen_prof_pv_chain(&s, &kern, true, &st, fake_guest_read, &g, frames, 8);
	assert_int_equal(s.nr_kernel, 1);
	/* a frame pointer below rsp, misaligned, or in the last 8 bytes: none read */
	kernel_stack(&g, &st);
	st.bp = KTOP - 0x1f8;
	no_chain(&kern, true, &st, &g, frames, 8);
	st.bp = KTOP - 0x1c4;
	no_chain(&kern, true, &st, &g, frames, 8);
	st.bp = KTOP - 8;
	no_chain(&kern, true, &st, &g, frames, 8);
	/* rsp off the task's kernel stack (an interrupt stack): no frames */
	kernel_stack(&g, &st);
	st.kernel_sp = KTOP + 2 * PMUVIRT_XEN_PV_KSTACK_MAX;
	no_chain(&kern, true, &st, &g, frames, 8);

	/* user mode: the user frames, up to a return address of 0 */
	user_stack(&g, &st);
	memset(&s, 0, sizeof(s));
	pmuvirt_xen_prof_pv_chain(&s, &user, true, &st, fake_guest_read, &g, frames, 8);
	assert_int_equal(s.nr_kernel, 0);
	assert_int_equal(s.nr_user, 2);
	assert_int_equal(frames[0], 0x401234);
	assert_int_equal(frames[1], 0x405678);
	/* a user frame pointer at the user half's end: the walk stays below it */
	g.lo = PMUVIRT_XEN_PV_USER_END - 0x100;
	st.sp = PMUVIRT_XEN_PV_USER_END - 0x100;
	st.bp = PMUVIRT_XEN_PV_USER_END - 8;
	no_chain(&user, true, &st, &g, frames, 8);

	/* a domain the session does not name, no room, Xen, HVM, PVH, 32-bit PV: nothing read */
	kernel_stack(&g, &st);
	no_chain(&kern, false, &st, &g, frames, 8);
	no_chain(&kern, true, &st, &g, NULL, 8);
	no_chain(&kern, true, &st, &g, frames, 0);
	w = kern;
	w.guest = false;
	no_chain(&w, true, &st, &g, frames, 8);
	w = kern;
	w.hvm = true;
	no_chain(&w, true, &st, &g, frames, 8);
	w = user;
	w.pv32 = true;
	user_stack(&g, &st);
	no_chain(&w, true, &st, &g, frames, 8);
}

static void ctl_of(struct pmuvirt_control *ctl, unsigned int n, const struct pmuvirt_counter_ctl *c)
{
	rig_control(ctl, n, c);
}

/* The counters of a fake Intel v4 (4 general, 3 fixed) shared by a session and a context. */
static void test_fits(void **state)
{
	static const struct pmuvirt_counter_ctl gp4[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
		{ .event = PMUVIRT_EV_BRANCH_MISSES, .flags = U },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U | K },
		{ .event = PMUVIRT_EV_BRANCH_MISSES, .flags = U | K, .period = 5000 },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },	/* fixed 0 */
		{ .event = PMUVIRT_EV_TSC },
	};
	static const struct pmuvirt_counter_ctl sess_branches = {
		.event = PMUVIRT_EV_BRANCHES, .flags = U | K | S, .period = 10000 };
	static const struct pmuvirt_counter_ctl sess_cycles = {
		.event = PMUVIRT_EV_CYCLES, .flags = U | K | S, .period = 10000 };
	struct pmuvirt_control own, sess, merged, bad;
	struct pmuvirt_error err;
	struct pmuvirt_pmu pmu;
	struct fakehw *hw = rig_x86_new(&rig_intel_v4, &pmu);
	unsigned int i;

	(void)state;
	ctl_of(&sess, 1, &sess_branches);
	/* A context holds four general counters: a session that needs one more is refused... */
	ctl_of(&own, 6, gp4);
	err.reason = NULL;
	assert_int_equal(pmuvirt_session_fits(&pmu, &own, &sess, PMUVIRT_MAX_COUNTERS, &err),
			 -EBUSY);
	assert_non_null(err.reason);
	/* ... one that samples cycles takes the free fixed counter. */
	ctl_of(&sess, 1, &sess_cycles);
	assert_int_equal(pmuvirt_session_fits(&pmu, &own, &sess, PMUVIRT_MAX_COUNTERS, NULL), 0);
	/* With three general counters left to the context, both fit. */
	ctl_of(&sess, 1, &sess_branches);
	own.counter[2].event = PMUVIRT_EV_CYCLES;	/* fixed 1 */
	assert_int_equal(pmuvirt_session_fits(&pmu, &own, &sess, PMUVIRT_MAX_COUNTERS, NULL), 0);
	/* And the other way round: with the session there, the fourth is refused. */
	ctl_of(&own, 6, gp4);
	assert_int_equal(pmuvirt_session_fits(&pmu, &own, &sess, PMUVIRT_MAX_COUNTERS, NULL),
			 -EBUSY);
	/* No counters at all, or none of the PMU's: always fits. */
	assert_int_equal(pmuvirt_session_fits(&pmu, NULL, &sess, PMUVIRT_MAX_COUNTERS, NULL), 0);
	ctl_of(&own, 1, &gp4[5]);
	assert_int_equal(pmuvirt_session_fits(&pmu, &own, &sess, PMUVIRT_MAX_COUNTERS, NULL), 0);
	/* A context too small for both is as busy as a PMU too small. */
	assert_int_equal(pmuvirt_session_fits(&pmu, &own, &sess, 1, NULL), -EBUSY);
	/* More than 16 counters together. */
	rig_control(&own, 0, NULL);
	own.nr_counters = 16;
	for (i = 0; i < 16; i++)
		own.counter[i] = gp4[5];
	assert_int_equal(pmuvirt_session_merge(&own, &sess, &merged), -EBUSY);
	/* A malformed control stays what it is: -EINVAL, not -EBUSY. */
	ctl_of(&bad, 1, &gp4[0]);
	bad.counter[0].flags = 0;
	assert_int_equal(pmuvirt_session_fits(&pmu, &bad, &sess, PMUVIRT_MAX_COUNTERS, NULL),
			 -EINVAL);

	/* The merge: own counters first without their sampling flags, then the session's. */
	ctl_of(&own, 2, gp4);
	own.counter[1].flags |= S | V;
	own.counter[1].period = 300;
	assert_int_equal(pmuvirt_session_merge(&own, &sess, &merged), 0);
	assert_int_equal(merged.version, PMUVIRT_ABI_VERSION);
	assert_int_equal(merged.nr_counters, 3);
	assert_int_equal(merged.counter[0].event, PMUVIRT_EV_BRANCHES);
	assert_int_equal(merged.counter[1].flags, U);
	assert_int_equal(merged.counter[1].period, 300);
	assert_memory_equal(&merged.counter[2], &sess_branches, sizeof(sess_branches));
	rig_hw_free(hw);
}

/* The session's view of where the PMI hit, set by the test before it runs events. */
struct spot {
	struct pmuvirt_xen_prof_where w;
	uint32_t domain, vcpu;
	bool profiled;
	bool for_guest;		/* an active domain's own ring */
	uint64_t time;
	unsigned int fills;
	struct fake_guest *g;	/* with call chains: the guest's memory */
	struct pmuvirt_xen_pv_stack st;
};

static void spot_fill(void *arg, const struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx,
		      struct pmuvirt_sample *s, uint64_t *frames,
		 unsigned int max_frames)
{
	struct spot *sp = arg;

	(void)pc;
	(void)ctx;
	sp->fills++;
	pmuvirt_xen_prof_record(s, &sp->w, sp->domain, sp->vcpu, sp->profiled, ++sp->time);
	if (sp->g)
		pmuvirt_xen_prof_pv_chain(s, &sp->w, sp->profiled, &sp->st, fake_guest_read, sp->g,
					  frames, max_frames);
	else
		assert_null(frames);
	if (sp->for_guest)
		pmuvirt_xen_prof_for_guest(s);
}

static uint32_t own_taken(struct pmuvirt_ctx *ctx, unsigned int i)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS];

	pmuvirt_take_overflows(ctx, counts);
	return counts[i];
}

/* A CPU, a session ring of @nr records and the scratch blob of a join. */
struct join_rig {
	struct rig_cpu c;
	struct pmuvirt_saved_ctx *scratch;
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r;
	void *mem;
};

static void join_rig_start(struct join_rig *s, unsigned int cpu, unsigned int nr)
{
	size_t bytes = pmuvirt_sample_ring_bytes(nr, 128, NULL);

	memset(s, 0, sizeof(*s));
	s->scratch = calloc(1, sizeof(*s->scratch));
	s->mem = aligned_alloc(64, bytes);
	assert_non_null(s->scratch);
	assert_non_null(s->mem);
	s->c.hw = rig_x86_new(&rig_intel_v4, &s->c.pmu);
	rig_cpu_start(&s->c, cpu);
	assert_int_equal(pmuvirt_sample_init(&s->w, s->mem, bytes, nr, 128, NULL), 0);
	assert_int_equal(pmuvirt_sample_reader_init(&s->r, s->mem, bytes), 0);
}

static void join_rig_finish(struct join_rig *s, struct pmuvirt_ctx *ctx)
{
	free(s->scratch);
	free(s->mem);
	rig_ctx_free(ctx);
	rig_cpu_finish(&s->c);
}

/*
 * A VCPU's context counts instructions (a-mode), cycles (i-mode, every 500)
 * and instructions again with its own sampling flag; it joins a session
 * that samples branches every 100 (with values) and branch misses every
 * 1000, and leaves it.  Its own counts and notifications go on exactly;
 * its record shows its own counters only; the ring gets the session's
 * records alone, each with the group's counter index and values.
 */
static void test_join_leave(void **state)
{
	static const struct pmuvirt_counter_ctl own_c[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | K },
		{ .event = PMUVIRT_EV_CYCLES, .flags = U | K, .period = 500 },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U | K | S, .period = 300 },
	};
	static const struct pmuvirt_counter_ctl sess_c[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U | K | S | V, .period = 100 },
		{ .event = PMUVIRT_EV_BRANCH_MISSES, .flags = U | K | S, .period = 1000 },
	};
	struct pmuvirt_control own, sess, merged;
	struct pmuvirt_sample out[64];
	struct pmuvirt_shared_ctx rec;
	struct spot sp = { .domain = 3, .vcpu = 1, .profiled = true };
	struct join_rig s;
	struct pmuvirt_ctx *ctx;
	struct pmuvirt_xen_arm arm;
	uint8_t *snap;
	uint32_t seq;
	int n, i;

	(void)state;
	join_rig_start(&s, 2, 64);
	ctl_of(&own, 3, own_c);
	ctl_of(&sess, 2, sess_c);
	assert_int_equal(pmuvirt_session_merge(&own, &sess, &merged), 0);
	ctx = rig_ctx_new(&s.c.pmu, &own);
	memset(&rec, 0, sizeof(rec));
	pmuvirt_ctx_attach_shared(ctx, &rec);

	/* Before: 1200 instructions and cycles (two notifications pending), 50 branches. */
	assert_int_equal(pmuvirt_switch_in(&s.c.pc, ctx), 0);
	rig_run(s.c.hw, FAKEHW_INSTRUCTIONS, 1200, false);
	rig_run(s.c.hw, FAKEHW_CYCLES, 1200, false);
	rig_run(s.c.hw, FAKEHW_BRANCHES, 50, false);
	/* Joining needs the context off the CPU; refused while it runs, nothing changed. */
	snap = malloc(pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS));
	memcpy(snap, ctx, pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS));
	assert_int_equal(pmuvirt_ctx_join(ctx, &own, &merged, &s.w, spot_fill, &sp, s.scratch,
					  NULL), -EBUSY);
	assert_memory_equal(snap, ctx, pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS));
	assert_int_equal(pmuvirt_switch_out(&s.c.pc), 0);
	/* A merged control the PMU cannot hold is refused, the context unchanged. */
	{
		struct pmuvirt_control big = merged;
		unsigned int k;

		for (k = 0; k < 4; k++) {
			big.counter[big.nr_counters] = sess_c[1];
			big.nr_counters++;
		}
		memcpy(snap, ctx, pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS));
		assert_int_equal(pmuvirt_ctx_join(ctx, &own, &big, &s.w, spot_fill, &sp, s.scratch,
						  NULL), -ENOSPC);
		assert_memory_equal(snap, ctx, pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS));
	}
	/*
	 * A reader of the record (another VCPU's thread) sees every publication:
	 * there is one, with the final state, so never a count dropped to zero
	 * or the session's counters on the way.
	 */
	seq = rec.seq;
	assert_int_equal(pmuvirt_ctx_join(ctx, &own, &merged, &s.w, spot_fill, &sp, s.scratch,
					  NULL), 0);
	assert_int_equal(rec.seq, seq + 2);
	assert_int_equal(ctx->nr_counters, 5);
	assert_int_equal(ctx->nr_shared, 3);
	assert_int_equal(rec.nr_counters, 3);
	assert_int_equal(rec.counter[0].count, 1200);
	assert_int_equal(rec.counter[1].count, 1200);
	assert_int_equal(rec.counter[2].count, 50);

	/* In the session: 800 more, a 64-bit PV guest's kernel, 1050 branches, 2500 misses. */
	sp.w = (struct pmuvirt_xen_prof_where){ .ip = 0xffffffff81000100ull, .cs = 0xe033,
						.guest = true, .kernel = true };
	assert_int_equal(pmuvirt_switch_in(&s.c.pc, ctx), 0);
	rig_run(s.c.hw, FAKEHW_INSTRUCTIONS, 800, false);
	rig_run(s.c.hw, FAKEHW_CYCLES, 800, false);
	rig_run(s.c.hw, FAKEHW_BRANCHES, 1050, false);
	rig_run(s.c.hw, FAKEHW_BRANCH_MISSES, 2500, false);
	assert_int_equal(rig_val(ctx, 0), 2000);
	assert_int_equal(rig_val(ctx, 1), 2000);
	assert_int_equal(rig_val(ctx, 2), 1100);
	assert_int_equal(rig_val(ctx, 3), 1050);	/* the session's count starts at the join */
	assert_int_equal(rig_val(ctx, 4), 2500);
	/* The record still shows the own counters alone, running. */
	assert_int_equal(rec.nr_counters, 3);
	n = pmuvirt_sample_read(&s.r, out, 64);
	assert_int_equal(n, 10 + 2);
	assert_int_equal(sp.fills, 12);
	for (i = 0; i < n; i++) {
		assert_int_equal(out[i].domain, 3);
		assert_int_equal(out[i].tid, 1);
		assert_int_equal(out[i].cpu, 2);
		assert_int_equal(out[i].ip, 0xffffffff81000100ull);
		assert_int_equal(out[i].weight, 1);
		if (out[i].counter == 0) {
			/* values: the session's two counters, not the context's */
			assert_int_equal(out[i].flags, PMUVIRT_SAMPLE_VALUES);
			assert_int_equal(out[i].nr_values, 2);
			assert_int_equal(out[i].value[0] % 100, 0);
		} else {
			assert_int_equal(out[i].counter, 1);
			assert_int_equal(out[i].flags, 0);
			assert_int_equal(out[i].nr_values, 0);
		}
	}
	pmuvirt_sample_publish(&s.r);
	/* What a host may ask of the joined context: the owner's three of five. */
	assert_int_equal(pmuvirt_ctx_nr_counters(ctx), 5);
	assert_int_equal(pmuvirt_ctx_nr_own(ctx), 3);
	assert_int_equal(pmuvirt_ctx_own_mask(ctx), 0x7);
	assert_int_equal(pmuvirt_ctx_imode_mask(ctx), ctx->imode_mask);
	assert_ptr_equal(pmuvirt_ctx_running_on(ctx), &s.c.pc);
	assert_ptr_equal(pmuvirt_ctx_samples(ctx), ctx->samples);
	assert_int_equal(pmuvirt_ctx_max_counters(ctx), ctx->max_counters);
	for (i = 0; i < 5; i++) {
		const struct pmuvirt_slot *sl = &ctx->pmu->slot[ctx->counter[i].slot];
		bool mine = false;
		unsigned int j;

		if (sl->cls == PMUVIRT_CLASS_TSC || !sl->user_index)
			continue;
		for (j = 0; j < 3; j++)
			mine |= ctx->pmu->slot[ctx->counter[j].slot].user_index == sl->user_index &&
				ctx->pmu->slot[ctx->counter[j].slot].cls != PMUVIRT_CLASS_TSC;
		assert_int_equal(pmuvirt_ctx_own_user_index(ctx, sl->user_index - 1), mine);
		assert_int_equal(mine, i < 3);
	}
	assert_false(pmuvirt_ctx_own_user_index(ctx, 0x7fffffffu));
	/* The guest may not arm the session's counters, only its own. */
	memset(&arm, 0, sizeof(arm));
	arm.mask = 1u << 3;
	arm.remaining[3] = arm.period[3] = 100;
	assert_int_equal(pmuvirt_xen_check_arm(&arm, ctx), -EINVAL);
	arm.mask = 1u << 1;
	arm.remaining[1] = arm.period[1] = 500;
	assert_int_equal(pmuvirt_xen_check_arm(&arm, ctx), 0);
	/* Its own cycles: floor(2000 / 500) notifications, those before the join kept. */
	assert_int_equal(own_taken(ctx, 1), 4);

	/* Leave: the own counters go on, the session's records stop. */
	assert_int_equal(pmuvirt_switch_out(&s.c.pc), 0);
	/* Missing arguments: refused, the context untouched. */
	assert_int_equal(pmuvirt_ctx_leave(ctx, NULL, &merged, s.scratch, NULL), -EINVAL);
	assert_int_equal(pmuvirt_ctx_leave(ctx, &own, NULL, s.scratch, NULL), -EINVAL);
	assert_int_equal(ctx->nr_counters, 5);
	/* The host's copy of a guest's control may hold anything past its counters. */
	own.counter[7] = sess_c[1];
	seq = rec.seq;
	assert_int_equal(pmuvirt_ctx_leave(ctx, &own, &merged, s.scratch, NULL), 0);
	assert_int_equal(rec.seq, seq + 2);
	assert_int_equal(rec.nr_counters, 3);
	assert_int_equal(rec.counter[0].count, 2000);
	assert_int_equal(rec.counter[1].count, 2000);
	assert_int_equal(rec.counter[2].count, 1100);
	assert_int_equal(ctx->nr_counters, 3);
	assert_int_equal(ctx->nr_shared, 3);
	assert_null(ctx->samples);
	assert_int_equal(pmuvirt_switch_in(&s.c.pc, ctx), 0);
	rig_run(s.c.hw, FAKEHW_INSTRUCTIONS, 700, false);
	rig_run(s.c.hw, FAKEHW_CYCLES, 700, false);
	rig_run(s.c.hw, FAKEHW_BRANCHES, 500, false);
	assert_int_equal(rig_val(ctx, 0), 2700);
	assert_int_equal(rig_val(ctx, 1), 2700);
	assert_int_equal(rig_val(ctx, 2), 1600);
	assert_int_equal(own_taken(ctx, 1), 1);
	assert_int_equal(pmuvirt_sample_read(&s.r, out, 64), 0);
	assert_int_equal(rec.nr_counters, 3);
	assert_int_equal(pmuvirt_switch_out(&s.c.pc), 0);
	assert_int_equal(pmuvirt_sample_lost(&s.r), 0);
	free(snap);
	join_rig_finish(&s, ctx);
}

/*
 * A context that never had a control (a new VCPU, an idle PCPU's) joins
 * with the session's counters alone: its record shows nothing, a domain
 * the session does not name gets no guest IP, VCPU or counter values,
 * Xen's IPs always.
 */
static void test_join_fresh(void **state)
{
	static const struct pmuvirt_counter_ctl sess_c = {
		.event = PMUVIRT_EV_CYCLES, .flags = U | K | S | V, .period = 1000 };
	struct pmuvirt_control sess;
	struct pmuvirt_sample out[16];
	uint32_t seq;
	int i;
	struct pmuvirt_shared_ctx rec;
	struct spot sp = { .domain = 4, .vcpu = 2, .profiled = false };
	struct join_rig s;
	struct pmuvirt_ctx *ctx;

	(void)state;
	join_rig_start(&s, 0, 16);
	ctl_of(&sess, 1, &sess_c);
	ctx = rig_ctx_alloc(&s.c.pmu, PMUVIRT_MAX_COUNTERS);
	memset(&rec, 0xff, sizeof(rec));
	pmuvirt_ctx_attach_shared(ctx, &rec);
	seq = rec.seq;
	assert_int_equal(pmuvirt_ctx_join(ctx, NULL, &sess, &s.w, spot_fill, &sp, s.scratch, NULL),
			 0);
	/* One publication, which never showed the session's counter. */
	assert_int_equal(rec.seq, seq + 2);
	assert_int_equal(rec.nr_counters, 0);
	assert_int_equal(pmuvirt_switch_in(&s.c.pc, ctx), 0);
	sp.w = (struct pmuvirt_xen_prof_where){ .ip = 0x7f0000001000ull, .cs = 0xe033, .guest = true };
	rig_run(s.c.hw, FAKEHW_CYCLES, 2000, false);
	sp.w = (struct pmuvirt_xen_prof_where){ .ip = 0xffff82d040200000ull, .cs = 0xe008 };
	rig_run(s.c.hw, FAKEHW_CYCLES, 1000, true);
	assert_int_equal(rec.nr_counters, 0);
	assert_int_equal(pmuvirt_sample_read(&s.r, out, 16), 3);
	assert_int_equal(out[0].ip, 0);
	assert_int_equal(out[0].flags, PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP);
	assert_int_equal(out[1].flags, PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP);
	assert_int_equal(out[2].ip, 0xffff82d040200000ull);
	assert_int_equal(out[2].flags, PMUVIRT_SAMPLE_HYPERVISOR);
	assert_int_equal(out[2].domain, 4);
	/* The session asked for values; the domain's counts are not the controller's to see. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(out[i].domain, 4);
		assert_no_values(&out[i]);
	}
	/* No notification reaches the owner: the session's counters are not its. */
	assert_int_equal(pmuvirt_ctx_pending(ctx) & ((1u << ctx->nr_shared) - 1), 0);
	assert_int_equal(pmuvirt_switch_out(&s.c.pc), 0);
	join_rig_finish(&s, ctx);
}


/*
 * A session ring with call chains (16 frame slots): a VCPU of a PV guest
 * sampled in its kernel, in user mode and in Xen.  The records hold the
 * guest's frames as kernel or user frames, Xen's none; in an active
 * domain's own ring too, where Xen's IP is withheld.
 */
static void test_chain_ring(void **state)
{
	static const struct pmuvirt_counter_ctl sess_c = {
		.event = PMUVIRT_EV_CYCLES, .flags = U | K | S, .period = 1000 };
	const struct pmuvirt_sample_format fmt = {
		PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE | PMUVIRT_SAMPLE_FMT_CHAIN, 0, 16 };
	struct pmuvirt_sample_chain chains[8];
	struct pmuvirt_sample out[8];
	struct pmuvirt_control sess;
	struct spot sp = { .domain = 4, .vcpu = 1, .profiled = true };
	struct fake_guest kg, ug;
	struct join_rig s;
	struct pmuvirt_ctx *ctx;
	unsigned int pass;
	size_t bytes = pmuvirt_sample_ring_bytes(8, 128, &fmt);

	(void)state;
	assert_int_equal(pmuvirt_sample_record_size(fmt.format, 0, 16), 24 + 8 + 8 * 16);
	for (pass = 0; pass < 2; pass++) {
		join_rig_start(&s, 0, 8);
		/* the same ring memory, made again with the chain format */
		free(s.mem);
		s.mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
		assert_non_null(s.mem);
		memset(s.mem, 0, bytes);
		assert_int_equal(pmuvirt_sample_init(&s.w, s.mem, bytes, 8, 128, &fmt), 0);
		assert_int_equal(pmuvirt_sample_reader_init(&s.r, s.mem, bytes), 0);
		assert_int_equal(s.r.chain_depth, 16);
		sp.for_guest = pass == 1;
		ctl_of(&sess, 1, &sess_c);
		ctx = rig_ctx_alloc(&s.c.pmu, PMUVIRT_MAX_COUNTERS);
		assert_int_equal(pmuvirt_ctx_join(ctx, NULL, &sess, &s.w, spot_fill, &sp, s.scratch,
						  NULL), 0);
		assert_int_equal(pmuvirt_switch_in(&s.c.pc, ctx), 0);
		kernel_stack(&kg, &sp.st);
		sp.g = &kg;
		sp.w = (struct pmuvirt_xen_prof_where){ .ip = 0xffffffffc0000abcull, .cs = 0xe033,
							.guest = true, .kernel = true };
		rig_run(s.c.hw, FAKEHW_CYCLES, 1000, true);
		user_stack(&ug, &sp.st);
		sp.g = &ug;
		sp.w = (struct pmuvirt_xen_prof_where){ .ip = 0x400100, .cs = 0xe02b, .guest = true };
		rig_run(s.c.hw, FAKEHW_CYCLES, 1000, true);
		/* Xen at work for the VCPU: its registers are Xen's, nothing of the guest is read */
		ug.reads = 0;
		sp.w = (struct pmuvirt_xen_prof_where){ .ip = 0xffff82d040200000ull, .cs = 0xe008 };
		rig_run(s.c.hw, FAKEHW_CYCLES, 1000, true);
		assert_int_equal(ug.reads, 0);
		assert_int_equal(pmuvirt_switch_out(&s.c.pc), 0);

		memset(chains, 0xee, sizeof(chains));
		assert_int_equal(pmuvirt_sample_read_chain(&s.r, out, chains, 8), 3);
		assert_int_equal(out[0].flags, 0);
		assert_int_equal(out[0].ip, 0xffffffffc0000abcull);
		assert_int_equal(out[0].nr_kernel, 4);
		assert_int_equal(out[0].nr_user, 0);
		assert_int_equal(chains[0].frame[0], 0xffffffffc0001111ull);
		assert_int_equal(chains[0].frame[3], 0xffffffff81004444ull);
		assert_int_equal(out[1].flags, PMUVIRT_SAMPLE_USER);
		assert_int_equal(out[1].nr_kernel, 0);
		assert_int_equal(out[1].nr_user, 2);
		assert_int_equal(chains[1].frame[0], 0x401234);
		assert_int_equal(chains[1].frame[1], 0x405678);
		assert_int_equal(out[2].nr_kernel + out[2].nr_user, 0);
		if (pass == 1) {
			assert_int_equal(out[2].flags, PMUVIRT_SAMPLE_HYPERVISOR | PMUVIRT_SAMPLE_NO_IP);
			assert_int_equal(out[2].ip, 0);
		} else {
			assert_int_equal(out[2].flags, PMUVIRT_SAMPLE_HYPERVISOR);
			assert_int_equal(out[2].ip, 0xffff82d040200000ull);
		}
		join_rig_finish(&s, ctx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_check),
		cmocka_unit_test(test_ring_geometry),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_hvm_svm),
		cmocka_unit_test(test_hvm_vmx),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_record_for_guest),
		cmocka_unit_test(test_pv_guest_addr),
		cmocka_unit_test(test_pv_limit),
		cmocka_unit_test(test_pv_chain),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_join_leave),
		cmocka_unit_test(test_join_fresh),
		cmocka_unit_test(test_chain_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
