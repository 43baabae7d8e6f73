// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The host-neutral argument checks of the Xen hypercall and the Linux
 * ioctls (src/abi): tables of valid and malformed arguments with the exact
 * error each must get, and the ARM check against pmuvirt_arm_counters()
 * on a context of a strict fake PMU.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pmuvirt/xen.h>
#include <pmuvirt/linux.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"
#include "pmuvirt_abi_check.h"
#include "../common/xen_arg_fields.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* What a malformed case changes in an otherwise valid argument. */
enum xen_bad {
	XB_NONE,
	XB_VERSION0,
	XB_VERSION2,
	XB_SIZE_SHORT,
	XB_SIZE_LONG,
	XB_SIZE_ZERO,
	XB_LEN_SHORT,
	XB_LEN_LONG,
	XB_RESERVED,
	XB_OUTPUTS,	/* garbage in output-only fields and inputs of any value */
	XB_DOMID,	/* a domid past 16 bits */
	XB_DOMID_MAX,	/* domid 0xffff, the largest that fits */
	XB_FLAGS,	/* a flags field that must be zero */
};

struct xen_case {
	unsigned int cmd;
	enum xen_bad bad;
	int expect;
};

static const struct xen_case xen_cases[] = {
	{ 0, XB_NONE, -EOPNOTSUPP },
	{ 12, XB_NONE, -EOPNOTSUPP },
	{ 0xffffffffu, XB_NONE, -EOPNOTSUPP },
	{ PMUVIRT_XEN_QUERY, XB_NONE, 0 },
	{ PMUVIRT_XEN_QUERY, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_QUERY, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_QUERY, XB_SIZE_SHORT, -EINVAL },
	{ PMUVIRT_XEN_QUERY, XB_LEN_SHORT, -EINVAL },
	{ PMUVIRT_XEN_SET_CONTROL, XB_NONE, 0 },
	{ PMUVIRT_XEN_SET_CONTROL, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_SET_CONTROL, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_SET_CONTROL, XB_SIZE_LONG, -EINVAL },
	{ PMUVIRT_XEN_SET_CONTROL, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_SET_CONTROL, XB_LEN_LONG, -EINVAL },
	{ PMUVIRT_XEN_ARM, XB_NONE, 0 },
	{ PMUVIRT_XEN_ARM, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_ARM, XB_SIZE_ZERO, -EINVAL },
	{ PMUVIRT_XEN_ARM, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_MAP_SHARED, XB_NONE, 0 },
	{ PMUVIRT_XEN_MAP_SHARED, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_MAP_SHARED, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_MAP_SHARED, XB_SIZE_SHORT, -EINVAL },
	{ PMUVIRT_XEN_MAP_SHARED, XB_LEN_SHORT, -EINVAL },
	{ PMUVIRT_XEN_READ, XB_NONE, 0 },
	{ PMUVIRT_XEN_READ, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_READ, XB_SIZE_LONG, -EINVAL },
	{ PMUVIRT_XEN_READ, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_TAKE_OVERFLOWS, XB_NONE, 0 },
	{ PMUVIRT_XEN_TAKE_OVERFLOWS, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_TAKE_OVERFLOWS, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_TAKE_OVERFLOWS, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_SET_POLICY, XB_NONE, 0 },
	{ PMUVIRT_XEN_SET_POLICY, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_SET_POLICY, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_SET_POLICY, XB_SIZE_SHORT, -EINVAL },
	{ PMUVIRT_XEN_SET_POLICY, XB_LEN_LONG, -EINVAL },
	{ PMUVIRT_XEN_SET_POLICY, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_VCPU_READ, XB_NONE, 0 },
	{ PMUVIRT_XEN_VCPU_READ, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_VCPU_READ, XB_DOMID_MAX, 0 },
	{ PMUVIRT_XEN_VCPU_READ, XB_DOMID, -EINVAL },
	{ PMUVIRT_XEN_VCPU_READ, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_VCPU_READ, XB_SIZE_LONG, -EINVAL },
	{ PMUVIRT_XEN_VCPU_READ, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_NONE, 0 },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_DOMID_MAX, 0 },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_DOMID, -EINVAL },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_LEN_SHORT, -EINVAL },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_PROF_START, XB_NONE, 0 },
	{ PMUVIRT_XEN_PROF_START, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_PROF_START, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_PROF_START, XB_SIZE_SHORT, -EINVAL },
	{ PMUVIRT_XEN_PROF_START, XB_LEN_LONG, -EINVAL },
	{ PMUVIRT_XEN_PROF_START, XB_FLAGS, -EINVAL },
	{ PMUVIRT_XEN_PROF_STOP, XB_NONE, 0 },
	{ PMUVIRT_XEN_PROF_STOP, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_PROF_STOP, XB_SIZE_LONG, -EINVAL },
	{ PMUVIRT_XEN_PROF_STOP, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_PROF_STOP, XB_FLAGS, -EINVAL },
	{ PMUVIRT_XEN_PROF_MAP, XB_NONE, 0 },
	{ PMUVIRT_XEN_PROF_MAP, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_PROF_MAP, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_PROF_MAP, XB_LEN_SHORT, -EINVAL },
	{ PMUVIRT_XEN_PROF_TAIL, XB_NONE, 0 },
	{ PMUVIRT_XEN_PROF_TAIL, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_PROF_TAIL, XB_SIZE_ZERO, -EINVAL },
	{ PMUVIRT_XEN_PROF_TAIL, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_PROF_RELEASE, XB_NONE, 0 },
	{ PMUVIRT_XEN_PROF_RELEASE, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_PROF_RELEASE, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_PROF_RELEASE, XB_FLAGS, -EINVAL },
	{ PMUVIRT_XEN_PROF_UNMAP, XB_NONE, 0 },
	{ PMUVIRT_XEN_PROF_UNMAP, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_PROF_UNMAP, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_PROF_UNMAP, XB_FLAGS, -EINVAL },
	{ 22, XB_NONE, -EOPNOTSUPP },
	{ PMUVIRT_XEN_MAP_PHYS, XB_NONE, 0 },
	{ PMUVIRT_XEN_MAP_PHYS, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_MAP_PHYS, XB_VERSION0, -EINVAL },
	{ PMUVIRT_XEN_MAP_PHYS, XB_SIZE_LONG, -EINVAL },
	{ PMUVIRT_XEN_MAP_PHYS, XB_LEN_SHORT, -EINVAL },
	{ PMUVIRT_XEN_MAP_PHYS, XB_RESERVED, -EINVAL },
	{ PMUVIRT_XEN_MAP_PHYS, XB_FLAGS, -EINVAL },
	{ PMUVIRT_XEN_UNMAP_PHYS, XB_NONE, 0 },
	{ PMUVIRT_XEN_UNMAP_PHYS, XB_OUTPUTS, 0 },
	{ PMUVIRT_XEN_UNMAP_PHYS, XB_VERSION2, -EINVAL },
	{ PMUVIRT_XEN_UNMAP_PHYS, XB_SIZE_ZERO, -EINVAL },
	{ PMUVIRT_XEN_UNMAP_PHYS, XB_LEN_LONG, -EINVAL },
	{ PMUVIRT_XEN_UNMAP_PHYS, XB_RESERVED, -EINVAL },
};

/* Sizes from include/pmuvirt/xen.h and docs/xen.md, not from the checker. */
static uint32_t doc_size(unsigned int cmd)
{
	switch (cmd) {
	case PMUVIRT_XEN_QUERY: return 488;
	case PMUVIRT_XEN_SET_CONTROL: return 416;
	case PMUVIRT_XEN_ARM: return 272;
	case PMUVIRT_XEN_MAP_SHARED: return 32;
	case PMUVIRT_XEN_READ: return 144;
	case PMUVIRT_XEN_TAKE_OVERFLOWS: return 80;
	case PMUVIRT_XEN_SET_POLICY: return 808;
	case PMUVIRT_XEN_VCPU_READ: return 152;
	case PMUVIRT_XEN_VCPU_SET_CONTROL: return 424;
	case PMUVIRT_XEN_PROF_START: return 512;
	case PMUVIRT_XEN_PROF_STOP: return 16;
	case PMUVIRT_XEN_PROF_MAP: return 40;
	case PMUVIRT_XEN_PROF_TAIL: return 24;
	case PMUVIRT_XEN_PROF_RELEASE: return 16;
	case PMUVIRT_XEN_PROF_UNMAP: return 16;
	case PMUVIRT_XEN_MAP_PHYS: return 40;
	case PMUVIRT_XEN_UNMAP_PHYS: return 16;
	default: return 0;
	}
}

static void set_reserved(union pmuvirt_xen_any_arg *u, unsigned int cmd, uint32_t v)
{
	uint32_t *f = xen_arg_field(u, cmd, XEN_RESERVED);

	if (!f)
		fail_msg("command %u has no reserved field", cmd);
	*f = v;
}

static void fill_outputs(union pmuvirt_xen_any_arg *u, unsigned int cmd)
{
	switch (cmd) {
	case PMUVIRT_XEN_QUERY:
		memset((char *)u + sizeof(u->hdr), 0xa5, sizeof(u->query) - sizeof(u->hdr));
		break;
	case PMUVIRT_XEN_SET_CONTROL:
		u->set_control.err_counter = 12345;
		/* the control is pmuvirt_validate()'s business */
		memset(&u->set_control.ctl, 0xff, sizeof(u->set_control.ctl));
		break;
	case PMUVIRT_XEN_MAP_SHARED:
		u->map_shared.nr_records = ~0u;
		u->map_shared.record_size = ~0u;
		u->map_shared.per_frame = ~0u;
		u->map_shared.nr_frames = ~0u;
		u->map_shared.frames = ~0ull;
		break;
	case PMUVIRT_XEN_READ:
		u->read.nr_counters = ~0u;
		memset(u->read.value, 0xee, sizeof(u->read.value));
		break;
	case PMUVIRT_XEN_TAKE_OVERFLOWS:
		u->take_overflows.mask = ~0u;
		memset(u->take_overflows.count, 0xee, sizeof(u->take_overflows.count));
		break;
	case PMUVIRT_XEN_SET_POLICY:
		/* the domain is the glue's, the policy pmuvirt_policy_validate()'s */
		u->set_policy.domid = ~0u;
		memset(&u->set_policy.policy, 0xff, sizeof(u->set_policy.policy));
		break;
	case PMUVIRT_XEN_VCPU_READ:
		/* which VCPU exists is the glue's business */
		u->vcpu_read.vcpu = ~0u;
		u->vcpu_read.nr_counters = ~0u;
		memset(u->vcpu_read.value, 0xee, sizeof(u->vcpu_read.value));
		break;
	case PMUVIRT_XEN_VCPU_SET_CONTROL:
		u->vcpu_set_control.vcpu = ~0u;
		u->vcpu_set_control.err_counter = 12345;
		memset(&u->vcpu_set_control.ctl, 0xff, sizeof(u->vcpu_set_control.ctl));
		break;
	case PMUVIRT_XEN_PROF_START:
		/* the description is pmuvirt_xen_check_prof_start()'s business */
		u->prof_start.nr_rings = ~0u;
		u->prof_start.nr_records = ~0u;
		u->prof_start.err_counter = 12345;
		u->prof_start.nr_domains = ~0u;
		u->prof_start.sample_format = ~0u;
		u->prof_start.active = ~0u;
		u->prof_start.chain_depth = ~0u;
		memset(&u->prof_start.ctl, 0xff, sizeof(u->prof_start.ctl));
		break;
	case PMUVIRT_XEN_PROF_MAP:
		memset((char *)u + sizeof(u->hdr), 0xa5, sizeof(u->prof_map) - sizeof(u->hdr));
		break;
	case PMUVIRT_XEN_PROF_TAIL:
		/* the tails are checked against the rings by the glue */
		u->prof_tail.nr_rings = ~0u;
		u->prof_tail.tails = ~0ull;
		break;
	case PMUVIRT_XEN_MAP_PHYS:
		/* the count is checked against the domain, the frames once copied */
		u->map_phys.nr_records = ~0u;
		u->map_phys.record_size = ~0u;
		u->map_phys.per_frame = ~0u;
		u->map_phys.nr_frames = ~0u;
		u->map_phys.gfns = ~0ull;
		break;
	case PMUVIRT_XEN_UNMAP_PHYS:
		u->unmap_phys.nr_frames = ~0u;
		break;
	}
}

static void set_flags(union pmuvirt_xen_any_arg *u, unsigned int cmd, uint32_t v)
{
	uint32_t *f = xen_arg_field(u, cmd, XEN_FLAGS);

	if (!f)
		fail_msg("command %u has no flags field", cmd);
	*f = v;
}

static void set_domid(union pmuvirt_xen_any_arg *u, unsigned int cmd, uint32_t v)
{
	uint32_t *f = xen_arg_field(u, cmd, XEN_DOMID);

	if (!f)
		fail_msg("command %u names no domain it checks", cmd);
	*f = v;
}

/* Offset of @f in @u, or 0 for none (the header is at 0). */
static uint16_t offset_in(const union pmuvirt_xen_any_arg *u, const uint32_t *f)
{
	return f ? (uint16_t)((const char *)f - (const char *)u) : 0;
}

/* Who may call a command, from docs/xen.md and include/pmuvirt/xen.h. */
static int doc_caller(unsigned int cmd)
{
	switch (cmd) {
	case PMUVIRT_XEN_SET_POLICY:
	case PMUVIRT_XEN_VCPU_READ:
	case PMUVIRT_XEN_VCPU_SET_CONTROL:
		return PMUVIRT_XEN_CALLER_MANAGER;
	case PMUVIRT_XEN_PROF_START:
		return PMUVIRT_XEN_CALLER_CONTROL;
	case PMUVIRT_XEN_PROF_STOP:
	case PMUVIRT_XEN_PROF_RELEASE:
		return PMUVIRT_XEN_CALLER_CONTROLLER;
	case PMUVIRT_XEN_PROF_MAP:
	case PMUVIRT_XEN_PROF_TAIL:
	case PMUVIRT_XEN_PROF_UNMAP:
		return PMUVIRT_XEN_CALLER_READER;
	default:
		return PMUVIRT_XEN_CALLER_SELF;
	}
}

/*
 * Each command's row: its size, who may call it, and exactly the fields
 * include/pmuvirt/xen.h says must be zero (reserved, flags) or hold a
 * 16-bit domain; garbage in every other field passes.  A command without
 * a row, a row with the wrong struct or a missing or extra field fails.
 */
static void test_xen_table(void **state)
{
	union pmuvirt_xen_any_arg u;
	unsigned int cmd, i;

	(void)state;
	for (cmd = 0; cmd < 64; cmd++) {
		const struct pmuvirt_xen_cmd *c = pmuvirt_xen_cmd(cmd);
		uint16_t want[2], got[2], t;

		if (!doc_size(cmd)) {
			assert_null(c);
			continue;
		}
		assert_non_null(c);
		assert_int_equal(c->size, doc_size(cmd));
		assert_int_equal(c->caller, doc_caller(cmd));
		/* the same fields, in either order */
		want[0] = offset_in(&u, xen_arg_field(&u, cmd, XEN_RESERVED));
		want[1] = offset_in(&u, xen_arg_field(&u, cmd, XEN_FLAGS));
		got[0] = c->zero[0];
		got[1] = c->zero[1];
		if (want[0] > want[1]) {
			t = want[0]; want[0] = want[1]; want[1] = t;
		}
		if (got[0] > got[1]) {
			t = got[0]; got[0] = got[1]; got[1] = t;
		}
		assert_int_equal(got[0], want[0]);
		assert_int_equal(got[1], want[1]);
		assert_int_equal(c->domid, offset_in(&u, xen_arg_field(&u, cmd, XEN_DOMID)));
		for (i = 0; i < 3; i++) {
			uint16_t off = i < 2 ? c->zero[i] : c->domid;

			if (!off)
				continue;
			assert_true(off >= sizeof(u.hdr) && off + 4u <= c->size);
			memset(&u, 0, sizeof(u));
			u.hdr.version = PMUVIRT_XEN_VERSION;
			u.hdr.size = c->size;
			assert_int_equal(pmuvirt_xen_check_arg(cmd, &u, c->size), 0);
			*(uint32_t *)((char *)&u + off) = i < 2 ? 1 : 0x10000;
			assert_int_equal(pmuvirt_xen_check_arg(cmd, &u, c->size), -EINVAL);
		}
		/* every other field: anything */
		memset(&u, 0, sizeof(u));
		u.hdr.version = PMUVIRT_XEN_VERSION;
		u.hdr.size = c->size;
		fill_outputs(&u, cmd);
		assert_int_equal(pmuvirt_xen_check_arg(cmd, &u, c->size), 0);
	}
	assert_null(pmuvirt_xen_cmd(0xffffffffu));
}

static void test_xen_arg_size(void **state)
{
	unsigned int cmd;

	(void)state;
	for (cmd = 0; cmd < 64; cmd++)
		assert_int_equal(pmuvirt_xen_arg_size(cmd), doc_size(cmd));
	assert_int_equal(pmuvirt_xen_arg_size(0x80000001u), 0);
}

static void test_xen_cases(void **state)
{
	union pmuvirt_xen_any_arg u, before;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(xen_cases) / sizeof(xen_cases[0]); i++) {
		const struct xen_case *c = &xen_cases[i];
		size_t len = doc_size(c->cmd);
		int ret;

		memset(&u, 0, sizeof(u));
		u.hdr.version = PMUVIRT_XEN_VERSION;
		u.hdr.size = (uint32_t)len;
		switch (c->bad) {
		case XB_NONE: break;
		case XB_VERSION0: u.hdr.version = 0; break;
		case XB_VERSION2: u.hdr.version = 2; break;
		case XB_SIZE_SHORT: u.hdr.size -= 8; break;
		case XB_SIZE_LONG: u.hdr.size += 8; break;
		case XB_SIZE_ZERO: u.hdr.size = 0; break;
		case XB_LEN_SHORT: len -= 8; break;
		case XB_LEN_LONG: len += 8; break;
		case XB_RESERVED: set_reserved(&u, c->cmd, 0x80000000u); break;
		case XB_OUTPUTS: fill_outputs(&u, c->cmd); break;
		case XB_DOMID: set_domid(&u, c->cmd, 0x10000u); break;
		case XB_DOMID_MAX: set_domid(&u, c->cmd, 0xffffu); break;
		case XB_FLAGS: set_flags(&u, c->cmd, 1); break;
		}
		before = u;
		ret = pmuvirt_xen_check_arg(c->cmd, &u, len);
		if (ret != c->expect)
			fail_msg("case %u (cmd %u, bad %d): got %d, expected %d", i, c->cmd,
				 c->bad, ret, c->expect);
		assert_memory_equal(&u, &before, sizeof(u));
		/* the header alone: only version, size and the command matter */
		ret = pmuvirt_xen_check_hdr(c->cmd, &u.hdr);
		if (c->bad == XB_NONE || c->bad == XB_OUTPUTS || c->bad == XB_RESERVED ||
		    c->bad == XB_LEN_SHORT || c->bad == XB_LEN_LONG || c->bad == XB_DOMID ||
		    c->bad == XB_DOMID_MAX || c->bad == XB_FLAGS)
			assert_int_equal(ret, doc_size(c->cmd) ? 0 : -EOPNOTSUPP);
		else
			assert_int_equal(ret, c->expect);
	}
}

/* A header that is right for one command is wrong for every other. */
static void test_xen_hdr_cross(void **state)
{
	struct pmuvirt_xen_hdr h = { .version = PMUVIRT_XEN_VERSION };
	unsigned int a, b;

	(void)state;
	for (a = PMUVIRT_XEN_QUERY; a <= PMUVIRT_XEN_PROF_UNMAP; a++)
		for (b = PMUVIRT_XEN_QUERY; b <= PMUVIRT_XEN_PROF_UNMAP; b++) {
			if (!doc_size(a) || !doc_size(b))
				continue;
			h.size = doc_size(b);
			/* STOP, RELEASE and UNMAP have one size: the command tells them apart */
			assert_int_equal(pmuvirt_xen_check_hdr(a, &h),
					 doc_size(a) == doc_size(b) ? 0 : -EINVAL);
		}
}

/* ARM against a context: 0 a-mode instructions, 1 i-mode cycles, 2 TSC. */
struct arm_rig {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ctx *ctx;
	size_t size;
};

static struct arm_rig *arm_rig_new(void)
{
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 3 };
	struct arm_rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER;
	ctl.counter[1].event = PMUVIRT_EV_CYCLES;
	ctl.counter[1].flags = PMUVIRT_CTR_USER;
	ctl.counter[1].period = 1000;
	ctl.counter[2].event = PMUVIRT_EV_TSC;
	r->hw = rig_x86_new(&rig_intel_v4, &r->pmu);
	rig_pcpu_init(&r->pc, &r->pmu, r->hw, 0);
	r->ctx = rig_ctx_new(&r->pmu, &ctl);
	r->size = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx), 0);
	return r;
}

static void arm_rig_free(struct arm_rig *r)
{
	assert_int_equal(fakehw_stats(r->hw)->errors, 0);
	pmuvirt_switch_out(&r->pc);
	rig_ctx_free(r->ctx);
	rig_hw_free(r->hw);
	free(r);
}

struct arm_case {
	uint32_t mask;
	unsigned int ctr;	/* counter whose remaining/period are set */
	uint64_t remaining;
	uint64_t period;
	int expect;
};

#define HALF48	((uint64_t)1 << 47)
#define PMAX	PMUVIRT_PERIOD_MAX

static const struct arm_case arm_cases[] = {
	{ 0x2, 1, 1, 1, 0 },
	{ 0x2, 1, PMUVIRT_ARM_REMAINING_MAX, HALF48, 0 },
	{ 0x2, 1, PMUVIRT_ARM_REMAINING_MAX + 1, HALF48, -ERANGE },
	{ 0x2, 1, ~0ull, HALF48, -ERANGE },	/* would wrap the logical count */
	{ 0x2, 1, 1, HALF48 + 1, 0 },		/* longer than half the range: several armings */
	{ 0x2, 1, 1, PMAX, 0 },
	{ 0x2, 1, 1, PMAX + 1, -ERANGE },
	{ 0x2, 1, 1, ~0ull, -ERANGE },
	{ 0x2, 1, 0, 100, -EINVAL },		/* no remaining count */
	{ 0x2, 1, 100, 0, -EINVAL },		/* no period */
	{ 0x0, 1, 1, 1, -EINVAL },		/* empty mask */
	{ 0x1, 0, 1, 1, -EINVAL },		/* a-mode counter */
	{ 0x4, 2, 1, 1, -EINVAL },		/* the TSC: a-mode only */
	{ 0x3, 1, 1, 1, -EINVAL },		/* one of two is a-mode */
	{ 0x8, 3, 1, 1, -EINVAL },		/* counter 3 does not exist */
	{ 0xa, 1, 1, 1, -EINVAL },
	{ 0x80000002u, 1, 1, 1, -EINVAL },	/* bit 31 */
	{ 0x10000u, 1, 1, 1, -EINVAL },		/* past PMUVIRT_MAX_COUNTERS */
};

static void test_xen_arm(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(arm_cases) / sizeof(arm_cases[0]); i++) {
		const struct arm_case *c = &arm_cases[i];
		struct arm_rig *r = arm_rig_new();
		struct pmuvirt_xen_arm op = { .hdr = { PMUVIRT_XEN_VERSION, 272 } };
		void *snap = malloc(r->size);
		int ret;

		assert_non_null(snap);
		op.mask = c->mask;
		op.remaining[c->ctr] = c->remaining;
		op.period[c->ctr] = c->period;
		assert_int_equal(pmuvirt_xen_check_arg(PMUVIRT_XEN_ARM, &op, sizeof(op)), 0);
		memcpy(snap, r->ctx, r->size);
		ret = pmuvirt_xen_check_arm(&op, r->ctx);
		if (ret != c->expect)
			fail_msg("arm case %u: got %d, expected %d", i, ret, c->expect);
		assert_memory_equal(snap, r->ctx, r->size);
		/* the core makes the same decision with the same error */
		assert_int_equal(pmuvirt_arm_counters(&r->pc, r->ctx, op.mask, op.remaining,
						      op.period), c->expect);
		if (c->expect)
			assert_memory_equal(snap, r->ctx, r->size);
		else
			assert_int_equal(r->ctx->counter[1].period, c->period);
		free(snap);
		arm_rig_free(r);
	}
}

/* A remaining count that takes the logical count past 2^64 - 1 is refused by both. */
static void test_xen_arm_wrap(void **state)
{
	static const struct {
		uint64_t count, remaining;
		int expect;
	} cases[] = {
		{ ~0ull - 10, 10, 0 },
		{ ~0ull - 10, 11, -ERANGE },
		{ ~0ull, 1, -ERANGE },
		{ PMUVIRT_ARM_REMAINING_MAX, PMUVIRT_ARM_REMAINING_MAX - 1, 0 },
		{ PMUVIRT_ARM_REMAINING_MAX, PMUVIRT_ARM_REMAINING_MAX, -ERANGE },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct arm_rig *r = arm_rig_new();
		struct pmuvirt_xen_arm op = { .hdr = { PMUVIRT_XEN_VERSION, 272 } };
		void *snap = malloc(r->size);

		assert_non_null(snap);
		/* suspended, so the count is exactly the one checked */
		assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
		r->ctx->counter[1].count = cases[i].count;
		op.mask = 0x2;
		op.remaining[1] = cases[i].remaining;
		op.period[1] = 1000;
		memcpy(snap, r->ctx, r->size);
		assert_int_equal(pmuvirt_xen_check_arm(&op, r->ctx), cases[i].expect);
		assert_int_equal(pmuvirt_arm_counters(NULL, r->ctx, op.mask, op.remaining,
						      op.period), cases[i].expect);
		if (cases[i].expect)
			assert_memory_equal(snap, r->ctx, r->size);
		else
			assert_true(r->ctx->counter[1].next_ovf ==
				    cases[i].count + cases[i].remaining);
		free(snap);
		arm_rig_free(r);
	}
}

/* A restored VCPU's control must keep the privilege rule of the domain it lands in. */
static void test_xen_check_saved(void **state)
{
	struct pmuvirt_error err = { -1, NULL };
	struct pmuvirt_saved_ctx s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.ctl.version = PMUVIRT_ABI_VERSION;
	s.ctl.nr_counters = 3;
	s.ctl.counter[0].event = PMUVIRT_EV_TSC;
	s.ctl.counter[1].event = PMUVIRT_EV_INSTRUCTIONS;
	s.ctl.counter[1].flags = PMUVIRT_CTR_USER;
	s.ctl.counter[2].event = PMUVIRT_EV_CYCLES;
	s.ctl.counter[2].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_GUEST;
	/* what Xen saves for an HVM guest comes back to one */
	assert_int_equal(pmuvirt_xen_check_saved(&s, false, PMUVIRT_CAP_GUEST_ONLY, &err), 0);
	/* ... not to a Xen that cannot leave itself out, nor to a PV domain */
	assert_int_equal(pmuvirt_xen_check_saved(&s, false, 0, &err), -EOPNOTSUPP);
	assert_int_equal(err.counter, 2);
	err.counter = -1;
	assert_int_equal(pmuvirt_xen_check_saved(&s, true, PMUVIRT_CAP_GUEST_ONLY, &err),
			 -EOPNOTSUPP);
	assert_int_equal(err.counter, 2);
	/* a kernel-mode counter without the flag was never saved by Xen */
	s.ctl.counter[2].flags = PMUVIRT_CTR_KERNEL;
	err.counter = -1;
	err.reason = NULL;
	assert_int_equal(pmuvirt_xen_check_saved(&s, false, PMUVIRT_CAP_GUEST_ONLY, &err), -EINVAL);
	assert_int_equal(err.counter, 2);
	assert_non_null(err.reason);
	assert_int_equal(pmuvirt_xen_check_saved(&s, true, 0, &err), -EINVAL);
	/* PV: user mode only */
	s.ctl.counter[2].flags = PMUVIRT_CTR_USER;
	assert_int_equal(pmuvirt_xen_check_saved(&s, true, 0, &err), 0);
	assert_int_equal(s.ctl.counter[2].flags, PMUVIRT_CTR_USER);	/* only read */
	/* flags past the counters are the blob's check's business, not the rule's */
	s.ctl.nr_counters = 1;
	assert_int_equal(pmuvirt_xen_check_saved(&s, true, 0, &err), 0);
}

/* MAP_PHYS: the count against the domain, then the guest frames themselves. */
static void test_xen_map_phys(void **state)
{
	struct pmuvirt_xen_map_phys op = { .nr_frames = 3 };
	const uint64_t limit = 1ull << 36;	/* 48-bit guest physical addresses */
	uint64_t g[4] = { 0x1000, 0, limit - 1, 0x1001 }, copy[4];

	(void)state;
	assert_int_equal(pmuvirt_xen_check_map_phys(&op, 3), 0);
	assert_int_equal(pmuvirt_xen_check_map_phys(&op, 2), -EINVAL);
	assert_int_equal(pmuvirt_xen_check_map_phys(&op, 4), -EINVAL);
	op.nr_frames = 0;
	assert_int_equal(pmuvirt_xen_check_map_phys(&op, 0), -EINVAL);	/* no records */
	op.nr_frames = ~0u;
	assert_int_equal(pmuvirt_xen_check_map_phys(&op, 1), -EINVAL);

	memcpy(copy, g, sizeof(g));
	assert_int_equal(pmuvirt_xen_check_gfns(g, 4, limit), 0);
	assert_memory_equal(g, copy, sizeof(g));
	assert_int_equal(pmuvirt_xen_check_gfns(g, 0, limit), 0);
	/* beyond the guest's physical address width */
	g[2] = limit;
	assert_int_equal(pmuvirt_xen_check_gfns(g, 4, limit), -EINVAL);
	g[2] = ~0ull;	/* INVALID_GFN */
	assert_int_equal(pmuvirt_xen_check_gfns(g, 4, limit), -EINVAL);
	assert_int_equal(pmuvirt_xen_check_gfns(g, 2, limit), 0);	/* not looked at */
	/* one guest frame for two record frames */
	g[2] = 7;
	g[3] = 0x1000;
	assert_int_equal(pmuvirt_xen_check_gfns(g, 4, limit), -EINVAL);
	assert_int_equal(pmuvirt_xen_check_gfns(g, 3, limit), 0);
	g[3] = 0;
	assert_int_equal(pmuvirt_xen_check_gfns(g, 4, limit), -EINVAL);
}

/* Linux: the header words, then the whole structs. */
/* Xen's own events never count for a guest (ring 0 is Xen for a PV guest). */
static void test_xen_guest_privilege(void **state)
{
	struct pmuvirt_error err = { -1, NULL };
	struct pmuvirt_control c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.version = PMUVIRT_ABI_VERSION;
	c.nr_counters = 5;
	c.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	c.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	c.counter[1].event = PMUVIRT_EV_CYCLES;
	c.counter[1].flags = PMUVIRT_CTR_KERNEL;
	c.counter[2].event = PMUVIRT_EV_BRANCHES;
	c.counter[2].flags = PMUVIRT_CTR_USER;
	c.counter[3].event = 0xc0;
	c.counter[3].flags = PMUVIRT_CTR_RAW | PMUVIRT_CTR_KERNEL;
	c.counter[4].event = PMUVIRT_EV_TSC;
	/* PV: kernel mode becomes the guest's ring (user filter), nothing else changes */
	assert_int_equal(pmuvirt_xen_guest_privilege(&c, true, PMUVIRT_CAP_GUEST_ONLY, &err), 0);
	assert_int_equal(c.counter[0].flags, PMUVIRT_CTR_USER);
	assert_int_equal(c.counter[1].flags, PMUVIRT_CTR_USER);
	assert_int_equal(c.counter[2].flags, PMUVIRT_CTR_USER);
	assert_int_equal(c.counter[3].flags, PMUVIRT_CTR_RAW | PMUVIRT_CTR_USER);
	assert_int_equal(c.counter[3].event, 0xc0);
	assert_int_equal(c.counter[4].flags, 0);
	/* PV never runs in guest mode: guest-only counting is refused, counter named */
	c.counter[2].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_GUEST;
	err.counter = -1;
	assert_int_equal(pmuvirt_xen_guest_privilege(&c, true, PMUVIRT_CAP_GUEST_ONLY, &err),
			 -EOPNOTSUPP);
	assert_int_equal(err.counter, 2);
	assert_non_null(err.reason);
	/* HVM, Xen cannot leave itself out: kernel mode is refused with the counter named */
	c.counter[2].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	err.counter = -1;
	assert_int_equal(pmuvirt_xen_guest_privilege(&c, false, PMUVIRT_CAP_GLOBAL_CTRL, &err),
			 -EOPNOTSUPP);
	assert_int_equal(err.counter, 2);
	assert_non_null(err.reason);
	/* HVM, Xen can: kernel-mode counters count the guest only, the others stay */
	c.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	c.counter[1].flags = PMUVIRT_CTR_KERNEL;
	c.counter[3].flags = PMUVIRT_CTR_RAW | PMUVIRT_CTR_KERNEL;
	c.counter[2].flags = PMUVIRT_CTR_USER;
	assert_int_equal(pmuvirt_xen_guest_privilege(&c, false, PMUVIRT_CAP_GUEST_ONLY, &err), 0);
	assert_int_equal(c.counter[0].flags,
			 PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_GUEST);
	assert_int_equal(c.counter[1].flags, PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_GUEST);
	assert_int_equal(c.counter[2].flags, PMUVIRT_CTR_USER);
	assert_int_equal(c.counter[3].flags,
			 PMUVIRT_CTR_RAW | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_GUEST);
	assert_int_equal(c.counter[4].flags, 0);
	/* HVM user mode alone needs nothing of Xen */
	c.counter[0].flags = c.counter[1].flags = c.counter[3].flags = PMUVIRT_CTR_USER;
	assert_int_equal(pmuvirt_xen_guest_privilege(&c, false, 0, &err), 0);
	assert_int_equal(c.counter[1].flags, PMUVIRT_CTR_USER);
	/* an oversized counter count is left for pmuvirt_validate() */
	c.nr_counters = 0xffffffffu;
	assert_int_equal(pmuvirt_xen_guest_privilege(&c, true, 0, &err), 0);
}

static void test_linux_hdr(void **state)
{
	const uint32_t v = PMUVIRT_LINUX_VERSION;
	const size_t sa = sizeof(struct pmuvirt_attach), sc = sizeof(struct pmuvirt_counts);
	const struct {
		uint32_t hdr[2];
		size_t size;
		int expect;
	} cases[] = {
		{ { 432, v }, sa, 0 },
		{ { 152, v }, sc, 0 },
		{ { 152, v }, sa, -EINVAL },	/* a counts header on attach */
		{ { 432, v }, sc, -EINVAL },
		{ { 431, v }, sa, -EINVAL },
		{ { 0, v }, sa, -EINVAL },
		{ { 0xffffffffu, v }, sa, -EINVAL },
		{ { 432, 0 }, sa, -EINVAL },
		{ { 432, v + 1 }, sa, -EINVAL },
		{ { 152, 0xffffffffu }, sc, -EINVAL },
	};
	unsigned int i;

	(void)state;
	assert_int_equal(sa, 432);
	assert_int_equal(sc, 152);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (pmuvirt_linux_check_hdr(cases[i].hdr, cases[i].size) != cases[i].expect)
			fail_msg("linux hdr case %u: expected %d", i, cases[i].expect);
}

enum lx_bad {
	LB_NONE, LB_SIZE, LB_VERSION, LB_CAPS, LB_FMT_BIT, LB_DEPTH_OVER, LB_FMT_HIGH,
	LB_SIGNO_MAX, LB_SIGNO_OVER, LB_SIGNO_HUGE, LB_ALL_FLAGS, LB_CONTROL,
	LB_PAGES_1, LB_PAGES_3, LB_PAGES_2, LB_PAGES_MAX, LB_PAGES_OVER,
};

static void test_linux_attach(void **state)
{
	const struct {
		enum lx_bad bad;
		int expect;
	} cases[] = {
		{ LB_NONE, 0 }, { LB_SIZE, -EINVAL }, { LB_VERSION, -EINVAL },
		{ LB_CAPS, -EINVAL }, { LB_FMT_BIT, -EINVAL }, { LB_DEPTH_OVER, -EINVAL },
		{ LB_FMT_HIGH, -EINVAL }, { LB_SIGNO_MAX, 0 }, { LB_SIGNO_OVER, -EINVAL },
		{ LB_SIGNO_HUGE, -EINVAL }, { LB_ALL_FLAGS, 0 },
		/* the control is pmuvirt_validate()'s business */
		{ LB_CONTROL, 0 },
		{ LB_PAGES_1, -EINVAL }, { LB_PAGES_3, -EINVAL }, { LB_PAGES_2, 0 },
		{ LB_PAGES_MAX, 0 }, { LB_PAGES_OVER, -EINVAL },
	};
	struct pmuvirt_attach a, before;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.version = PMUVIRT_LINUX_VERSION;
		switch (cases[i].bad) {
		case LB_NONE: break;
		case LB_SIZE: a.size = sizeof(a) + 8; break;
		case LB_VERSION: a.version = 0; break;
		case LB_CAPS: a.caps = PMUVIRT_UREAD_TSC; break;
		case LB_FMT_BIT: a.sample_format = PMUVIRT_SAMPLE_FMT_ALL + 1; break;
		case LB_DEPTH_OVER: a.chain_depth = PMUVIRT_CHAIN_MAX + 1; break;
		case LB_FMT_HIGH: a.sample_format = 0x80000000u; break;
		case LB_SIGNO_MAX: a.signo = 64; break;	/* SIGRTMAX */
		case LB_SIGNO_OVER: a.signo = 65; break;
		case LB_SIGNO_HUGE: a.signo = 0xffffffffu; break;
		case LB_ALL_FLAGS: a.flags = PMUVIRT_ATTACH_FLAGS; break;
		case LB_CONTROL: memset(&a.control, 0xff, sizeof(a.control)); break;
		case LB_PAGES_1: a.sample_pages = 1; break;
		case LB_PAGES_3: a.sample_pages = 3; break;
		case LB_PAGES_2: a.sample_pages = 2; break;
		case LB_PAGES_MAX: a.sample_pages = PMUVIRT_SAMPLE_PAGES_MAX; break;
		case LB_PAGES_OVER: a.sample_pages = 2 * PMUVIRT_SAMPLE_PAGES_MAX; break;
		}
		before = a;
		if (pmuvirt_linux_check_attach(&a) != cases[i].expect)
			fail_msg("attach case %u: expected %d", i, cases[i].expect);
		assert_memory_equal(&a, &before, sizeof(a));
	}
}

/* The record format of an attach's ring: 0 is the default, a chain needs a depth. */
static void test_linux_sample_format(void **state)
{
	struct pmuvirt_sample_format f;
	struct pmuvirt_attach a;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.control.nr_counters = 3;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), 0);	/* no ring */
	a.chain_depth = 4;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), -EINVAL);
	a.chain_depth = 0;
	a.sample_format = PMUVIRT_SAMPLE_FMT_IP;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), -EINVAL);
	a.sample_pages = 4;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), 0);
	assert_int_equal(f.format, PMUVIRT_SAMPLE_FMT_IP);
	assert_int_equal(f.nr_values, 0);
	assert_int_equal(pmuvirt_sample_record_size(f.format, f.nr_values, f.chain_depth), 32);
	a.sample_format = 0;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), 0);
	assert_int_equal(f.format, PMUVIRT_SAMPLE_FMT_DEFAULT);
	assert_int_equal(f.nr_values, 3);	/* one slot per counter */
	a.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT | PMUVIRT_SAMPLE_FMT_CHAIN;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), -EINVAL);	/* no depth */
	a.chain_depth = PMUVIRT_CHAIN_MAX;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), 0);
	assert_int_equal(pmuvirt_sample_record_size(f.format, f.nr_values, f.chain_depth),
			 24 + 16 + 24 + 8 * PMUVIRT_CHAIN_MAX);
	a.sample_format = PMUVIRT_SAMPLE_FMT_IP;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), -EINVAL);	/* depth, no chain */
	a.sample_format = PMUVIRT_SAMPLE_FMT_VALUES;
	a.chain_depth = 0;
	a.control.nr_counters = 0;
	assert_int_equal(pmuvirt_linux_sample_format(&a, &f), -EINVAL);	/* values of nothing */
}

/* A sampling counter needs a ring; a ring needs a sampling counter. */
static void test_linux_sample_pages(void **state)
{
	struct pmuvirt_attach a;
	struct pmuvirt_sample_tail t;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.control.nr_counters = 2;
	a.control.counter[1].flags = PMUVIRT_CTR_USER;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), 0);
	a.sample_pages = 4;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), -EINVAL);
	a.control.counter[1].flags |= PMUVIRT_CTR_SAMPLE;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), 0);
	a.sample_pages = 0;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), -EINVAL);
	/* beyond nr_counters does not count; a huge nr_counters reads no further than 16 */
	a.control.nr_counters = 1;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), 0);
	a.control.nr_counters = 0xffffffffu;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), -EINVAL);
	/* handing the rings to the file needs a ring */
	a.control.nr_counters = 2;
	a.sample_pages = 4;
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), 0);
	a.control.counter[1].flags &= ~PMUVIRT_CTR_SAMPLE;
	a.sample_pages = 0;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), -EINVAL);
	a.flags = PMUVIRT_ATTACH_REPORT;
	assert_int_equal(pmuvirt_linux_check_sample_pages(&a), 0);

	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.version = PMUVIRT_LINUX_VERSION;
	t.tail = 0xffffffffu;
	assert_int_equal(pmuvirt_linux_check_sample_tail(&t), 0);
	t.reserved = 1;
	assert_int_equal(pmuvirt_linux_check_sample_tail(&t), -EINVAL);
	t.reserved = 0;
	t.size = 12;
	assert_int_equal(pmuvirt_linux_check_sample_tail(&t), -EINVAL);
}

/*
 * Each flag bit: accepted exactly when PMUVIRT_ATTACH_FLAGS has it, with
 * PMUVIRT_ATTACH_SAMPLE_FILE only beside PMUVIRT_ATTACH_REPORT and
 * PMUVIRT_ATTACH_SUM only beside PMUVIRT_ATTACH_INHERIT (summed
 * inheritance without inheritance has nothing to sum).
 */
static void test_linux_attach_flags(void **state)
{
	struct pmuvirt_attach a;
	unsigned int bit;

	(void)state;
	assert_int_not_equal(PMUVIRT_ATTACH_FLAGS & PMUVIRT_ATTACH_REPORT, 0);
	for (bit = 0; bit < 32; bit++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.version = PMUVIRT_LINUX_VERSION;
		a.flags = 1u << bit;
		/*
		 * the rings go to the report file: SAMPLE_FILE alone is refused;
		 * summed inheritance needs inheritance: so is SUM alone
		 */
		assert_int_equal(pmuvirt_linux_check_attach(&a),
				 (PMUVIRT_ATTACH_FLAGS & (1u << bit)) &&
				 a.flags != PMUVIRT_ATTACH_SAMPLE_FILE &&
				 a.flags != PMUVIRT_ATTACH_SUM ? 0 : -EINVAL);
		a.flags |= PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_INHERIT;
		assert_int_equal(pmuvirt_linux_check_attach(&a),
				 (PMUVIRT_ATTACH_FLAGS & (1u << bit)) ? 0 : -EINVAL);
		/* a recorder's threads get no overflow signal */
		a.signo = 10;
		assert_int_equal(pmuvirt_linux_check_attach(&a),
				 (PMUVIRT_ATTACH_FLAGS & (1u << bit)) &&
				 !(a.flags & PMUVIRT_ATTACH_SAMPLE_FILE) ? 0 : -EINVAL);
	}
	/* SUM beside every other flag but INHERIT is refused; all flags together are not */
	assert_int_not_equal(PMUVIRT_ATTACH_FLAGS & PMUVIRT_ATTACH_SUM, 0);
	a.signo = 0;
	a.flags = PMUVIRT_ATTACH_FLAGS & ~PMUVIRT_ATTACH_INHERIT;
	assert_int_equal(pmuvirt_linux_check_attach(&a), -EINVAL);
	a.flags = PMUVIRT_ATTACH_FLAGS;
	assert_int_equal(pmuvirt_linux_check_attach(&a), 0);
}

/*
 * An argument of @size bytes that holds outputs as well as inputs: with a
 * valid header and case @i of @set (which gives the result it expects), the
 * check gives that result and leaves the argument as it was.
 */
static void inout_cases(size_t size, unsigned int n, int (*set)(void *arg, unsigned int i),
			int (*check)(const void *arg))
{
	union {
		uint32_t hdr[2];
		struct pmuvirt_sample_open open;
		struct pmuvirt_counts counts;
		struct pmuvirt_below below;
	} u, before;
	unsigned int i;

	assert_true(size <= sizeof(u));
	for (i = 0; i < n; i++) {
		int expect;

		memset(&u, 0, sizeof(u));
		u.hdr[0] = (uint32_t)size;
		u.hdr[1] = PMUVIRT_LINUX_VERSION;
		expect = set(&u, i);
		before = u;
		assert_int_equal(check(&u), expect);
		assert_memory_equal(&u, &before, size);
	}
}

static int check_sample_open(const void *arg)
{
	return pmuvirt_linux_check_sample_open(arg);
}

static int check_counts(const void *arg)
{
	return pmuvirt_linux_check_counts(arg);
}

static int check_below(const void *arg)
{
	return pmuvirt_linux_check_below(arg);
}

static int sample_open_case(void *arg, unsigned int i)
{
	struct pmuvirt_sample_open *o = arg;

	switch (i) {
	case 0: return 0;
	case 1: o->flags = 1; break;
	case 2: o->reserved[0] = 1; break;
	case 3: o->reserved[1] = 0x80000000u; break;
	case 4: o->size = 48; break;
	case 5: o->version = 0; break;
	case 6:	/* outputs hold anything on the way in */
		o->fd = -1;
		o->tid = o->pid = o->pages = o->dropped = ~0u;
		memset(o->comm, 'x', sizeof(o->comm));
		return 0;
	}
	return -EINVAL;
}

static int counts_case(void *arg, unsigned int i)
{
	struct pmuvirt_counts *c = arg;

	switch (i) {
	case 1: c->reserved = 1; return -EINVAL;
	case 2: c->size = 144; return -EINVAL;
	case 3: c->version = 2; return -EINVAL;
	case 4:	/* outputs hold anything on the way in */
		c->nr_counters = ~0u;
		c->flags = ~0u;
		c->ovf_mask = ~0u;
		memset(c->value, 0xff, sizeof(c->value));
		break;
	}
	return 0;
}

static int below_case(void *arg, unsigned int i)
{
	struct pmuvirt_below *b = arg;

	switch (i) {
	case 0: return 0;
	case 1: b->flags = 1; break;
	case 2: b->reserved = 0x80000000u; break;
	case 3: b->size = 32; break;
	case 4: b->version = 0; break;
	case 5:	/* outputs hold anything on the way in */
		b->kind = b->nr_records = b->record_size = ~0u;
		b->per_frame = b->nr_frames = b->pgoff = ~0u;
		return 0;
	}
	return -EINVAL;
}

static void test_linux_inout(void **state)
{
	static const struct {
		size_t size;
		unsigned int n;
		int (*set)(void *arg, unsigned int i);
		int (*check)(const void *arg);
	} args[] = {
		{ sizeof(struct pmuvirt_sample_open), 7, sample_open_case, check_sample_open },
		{ sizeof(struct pmuvirt_counts), 5, counts_case, check_counts },
		{ sizeof(struct pmuvirt_below), 6, below_case, check_below },
	};
	unsigned int i;

	(void)state;
	assert_int_equal(sizeof(struct pmuvirt_sample_open), 56);
	assert_int_equal(sizeof(struct pmuvirt_below), 40);
	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		inout_cases(args[i].size, args[i].n, args[i].set, args[i].check);
}

/* Who may make each ioctl, from include/pmuvirt/linux.h and docs/linux.md. */
static int doc_linux_caller(unsigned long cmd)
{
	switch (cmd) {
	case PMUVIRT_IOC_ATTACH: return PMUVIRT_LINUX_CALLER_NEW;
	case PMUVIRT_IOC_BELOW:
	case PMUVIRT_IOC_SAMPLE_OPEN: return PMUVIRT_LINUX_CALLER_FILE;
	default: return PMUVIRT_LINUX_CALLER_THREAD;
	}
}

/*
 * Each ioctl's row: numbered and sized as its request (PMUVIRT_IOC_*), its
 * caller, and its check the one of its struct: a zero argument with its
 * header passes, a reserved word set or a wrong length fails.  Numbers
 * without a request have no row.
 */
static void test_linux_table(void **state)
{
	static const unsigned long reqs[] = {
		PMUVIRT_IOC_ATTACH, PMUVIRT_IOC_READ, PMUVIRT_IOC_DETACH, PMUVIRT_IOC_RESUME,
		PMUVIRT_IOC_BELOW, PMUVIRT_IOC_SAMPLE_TAIL, PMUVIRT_IOC_SAMPLE_OPEN,
	};
	union {
		uint32_t hdr[2];
		struct pmuvirt_attach attach;
		struct pmuvirt_counts counts;
		struct pmuvirt_below below;
		struct pmuvirt_sample_tail tail;
		struct pmuvirt_sample_open open;
	} u;
	unsigned int i, nr, rows = 0;

	(void)state;
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		const struct pmuvirt_linux_ioctl *row;
		size_t size = _IOC_SIZE(reqs[i]);
		uint32_t *reserved;

		nr = _IOC_NR(reqs[i]);
		row = pmuvirt_linux_ioctl(nr);
		assert_non_null(row);
		assert_int_equal(row->size, size);
		assert_int_equal(row->caller, doc_linux_caller(reqs[i]));
		memset(&u, 0, sizeof(u));
		u.hdr[0] = (uint32_t)size;
		u.hdr[1] = PMUVIRT_LINUX_VERSION;
		assert_int_equal(pmuvirt_linux_check_arg(nr, &u, size), 0);
		assert_int_equal(pmuvirt_linux_check_arg(nr, &u, size - 8), -EINVAL);
		assert_int_equal(pmuvirt_linux_check_arg(nr, &u, size + 8), -EINVAL);
		switch (reqs[i]) {
		case PMUVIRT_IOC_ATTACH: reserved = &u.attach.caps; break;
		case PMUVIRT_IOC_BELOW: reserved = &u.below.reserved; break;
		case PMUVIRT_IOC_SAMPLE_TAIL: reserved = &u.tail.reserved; break;
		case PMUVIRT_IOC_SAMPLE_OPEN: reserved = &u.open.reserved[0]; break;
		default: reserved = &u.counts.reserved; break;
		}
		*reserved = 1;
		assert_int_equal(pmuvirt_linux_check_arg(nr, &u, size), -EINVAL);
		*reserved = 0;
		u.hdr[1] = PMUVIRT_LINUX_VERSION + 1;
		assert_int_equal(pmuvirt_linux_check_arg(nr, &u, size), -EINVAL);
	}
	for (nr = 0; nr < 256; nr++)
		rows += pmuvirt_linux_ioctl(nr) != NULL;
	assert_int_equal(rows, sizeof(reqs) / sizeof(reqs[0]));
	assert_null(pmuvirt_linux_ioctl(0));
	assert_null(pmuvirt_linux_ioctl(~0u));
	assert_int_equal(pmuvirt_linux_check_arg(8, &u, sizeof(u)), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xen_table),
		cmocka_unit_test(test_xen_arg_size),
		cmocka_unit_test(test_xen_cases),
		cmocka_unit_test(test_xen_hdr_cross),
		cmocka_unit_test(test_xen_arm),
		cmocka_unit_test(test_xen_arm_wrap),
		cmocka_unit_test(test_xen_guest_privilege),
		cmocka_unit_test(test_xen_map_phys),
		cmocka_unit_test(test_xen_check_saved),
		cmocka_unit_test(test_linux_hdr),
		cmocka_unit_test(test_linux_attach),
		cmocka_unit_test(test_linux_attach_flags),
		cmocka_unit_test(test_linux_sample_pages),
		cmocka_unit_test(test_linux_sample_format),
		cmocka_unit_test(test_linux_inout),
		cmocka_unit_test(test_linux_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
