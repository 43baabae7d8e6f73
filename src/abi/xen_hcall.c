// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Checks of the Xen hypercall's argument structs (include/pmuvirt/xen.h).
 * src/glue/xen/pmuvirt_xen_hcall.c calls them on its copies of the guest's
 * arguments; fuzz_xen_hcall and test_abi_check call them directly.
 */
#include "pmuvirt_defaults.h"
#include "pmuvirt_abi_check.h"
#include <pmuvirt/xen.h>

/* The offset of @field in command @arg's struct, or 0 for none. */
#define PMUVIRT_XEN_AT(arg, field)	PMUVIRT_XEN_AT_##field(arg)
#define PMUVIRT_XEN_AT_none(arg)	0
#define PMUVIRT_XEN_AT_reserved(arg)	__builtin_offsetof(struct pmuvirt_xen_##arg, reserved)
#define PMUVIRT_XEN_AT_flags(arg)	__builtin_offsetof(struct pmuvirt_xen_##arg, flags)
#define PMUVIRT_XEN_AT_domid(arg)	__builtin_offsetof(struct pmuvirt_xen_##arg, domid)

#define PMUVIRT_XEN_ROW(NAME, arg, who, zero0, zero1, dom)			\
	[PMUVIRT_XEN_##NAME] = {						\
		.size = sizeof(struct pmuvirt_xen_##arg),			\
		.caller = PMUVIRT_XEN_CALLER_##who,				\
		.zero = { PMUVIRT_XEN_AT(arg, zero0), PMUVIRT_XEN_AT(arg, zero1) }, \
		.domid = PMUVIRT_XEN_AT(arg, dom),				\
	},

static const struct pmuvirt_xen_cmd cmds[] = {
	PMUVIRT_XEN_COMMANDS(PMUVIRT_XEN_ROW)
};

/* Every field a row names is 32 bits wide. */
#define PMUVIRT_XEN_SIZE(arg, field)	PMUVIRT_XEN_SIZE_##field(arg)
#define PMUVIRT_XEN_SIZE_none(arg)	4
#define PMUVIRT_XEN_SIZE_reserved(arg)	sizeof(((struct pmuvirt_xen_##arg *)0)->reserved)
#define PMUVIRT_XEN_SIZE_flags(arg)	sizeof(((struct pmuvirt_xen_##arg *)0)->flags)
#define PMUVIRT_XEN_SIZE_domid(arg)	sizeof(((struct pmuvirt_xen_##arg *)0)->domid)
#define PMUVIRT_XEN_FIELDS_32(NAME, arg, who, zero0, zero1, dom)		\
	_Static_assert(PMUVIRT_XEN_SIZE(arg, zero0) == 4 && PMUVIRT_XEN_SIZE(arg, zero1) == 4 && \
		       PMUVIRT_XEN_SIZE(arg, dom) == 4, #NAME ": a 32-bit field");
PMUVIRT_XEN_COMMANDS(PMUVIRT_XEN_FIELDS_32)

const struct pmuvirt_xen_cmd *pmuvirt_xen_cmd(unsigned int cmd)
{
	if (cmd >= sizeof(cmds) / sizeof(cmds[0]) || !cmds[cmd].size)
		return NULL;
	return &cmds[cmd];
}

uint32_t pmuvirt_xen_arg_size(unsigned int cmd)
{
	const struct pmuvirt_xen_cmd *c = pmuvirt_xen_cmd(cmd);

	return c ? c->size : 0;
}

int pmuvirt_xen_check_hdr(unsigned int cmd, const struct pmuvirt_xen_hdr *hdr)
{
	uint32_t size = pmuvirt_xen_arg_size(cmd);

	if (!size)
		return -EOPNOTSUPP;
	if (hdr->version != PMUVIRT_XEN_VERSION || hdr->size != size)
		return -EINVAL;
	return 0;
}

/* The 32-bit field at @off of @arg. */
static uint32_t field32(const void *arg, uint16_t off)
{
	return *(const uint32_t *)((const char *)arg + off);
}

int pmuvirt_xen_check_arg(unsigned int cmd, const void *arg, size_t len)
{
	const struct pmuvirt_xen_cmd *c = pmuvirt_xen_cmd(cmd);
	unsigned int i;
	int ret;

	if (!c)
		return -EOPNOTSUPP;
	if (len != c->size)
		return -EINVAL;
	ret = pmuvirt_xen_check_hdr(cmd, arg);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++)
		if (c->zero[i] && field32(arg, c->zero[i]))
			return -EINVAL;
	if (c->domid && field32(arg, c->domid) > 0xffff)
		return -EINVAL;
	return 0;
}

int pmuvirt_xen_check_arm(const struct pmuvirt_xen_arm *op, const struct pmuvirt_ctx *ctx)
{
	/* The guest's counters: a profiling session's come after them. */
	return pmuvirt_arm_check(ctx, op->mask, op->remaining, op->period);
}

int pmuvirt_xen_check_map_phys(const struct pmuvirt_xen_map_phys *op, uint32_t nr_frames)
{
	return op->nr_frames == nr_frames && nr_frames ? 0 : -EINVAL;
}

int pmuvirt_xen_check_gfns(const uint64_t *gfns, unsigned int n, uint64_t limit)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (gfns[i] >= limit)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (gfns[j] == gfns[i])
				return -EINVAL;
	}
	return 0;
}

/* -EOPNOTSUPP for counter @i of a control, and why. */
static int refuse(struct pmuvirt_error *err, unsigned int i, const char *why)
{
	if (err) {
		err->counter = (int)i;
		err->reason = why;
	}
	return -EOPNOTSUPP;
}

int pmuvirt_xen_guest_privilege(struct pmuvirt_control *ctl, bool pv, uint32_t caps,
				struct pmuvirt_error *err)
{
	unsigned int i, n = ctl->nr_counters;

	if (n > PMUVIRT_MAX_COUNTERS)
		n = PMUVIRT_MAX_COUNTERS;
	for (i = 0; i < n; i++) {
		struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		if (c->event == PMUVIRT_EV_TSC && !(c->flags & PMUVIRT_CTR_RAW))
			continue;
		if (pv && (c->flags & PMUVIRT_CTR_GUEST))
			return refuse(err, i, "a PV guest runs in the host's mode: guest-only counting counts nothing");
		if (!(c->flags & PMUVIRT_CTR_KERNEL))
			continue;
		if (pv)
			c->flags = (c->flags & ~PMUVIRT_CTR_KERNEL) | PMUVIRT_CTR_USER;
		else if (caps & PMUVIRT_CAP_GUEST_ONLY)
			c->flags |= PMUVIRT_CTR_GUEST;
		else
			return refuse(err, i, "an HVM guest's kernel mode is Xen's too, and this PMU cannot leave Xen out");
	}
	return 0;
}

int pmuvirt_xen_check_saved(const struct pmuvirt_saved_ctx *in, bool pv, uint32_t caps,
			    struct pmuvirt_error *err)
{
	struct pmuvirt_control ctl = in->ctl;
	unsigned int i;
	int ret;

	ret = pmuvirt_xen_guest_privilege(&ctl, pv, caps, err);
	if (ret)
		return ret;
	/* the rule rewrites flags only */
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
		if (ctl.counter[i].flags == in->ctl.counter[i].flags)
			continue;
		if (err) {
			err->counter = (int)i;
			err->reason = "the saved control breaks the privilege rule";
		}
		return -EINVAL;
	}
	return 0;
}
