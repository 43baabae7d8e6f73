// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Checks of the Xen hypercall's argument structs (include/pmuvirt/xen.h).
 * src/glue/xen/pmuvirt_xen_hcall.c calls them on its copies of the guest's
 * arguments; fuzz_xen_hcall and test_abi_check call them directly.
 */
#include "pmuvirt_defaults.h"
#include "pmuvirt_abi_check.h"
#include <pmuvirt/xen.h>

uint32_t pmuvirt_xen_arg_size(unsigned int cmd)
{
	switch (cmd) {
	case PMUVIRT_XEN_QUERY:
		return sizeof(struct pmuvirt_xen_query);
	case PMUVIRT_XEN_SET_CONTROL:
		return sizeof(struct pmuvirt_xen_set_control);
	case PMUVIRT_XEN_ARM:
		return sizeof(struct pmuvirt_xen_arm);
	case PMUVIRT_XEN_MAP_SHARED:
		return sizeof(struct pmuvirt_xen_map_shared);
	case PMUVIRT_XEN_READ:
		return sizeof(struct pmuvirt_xen_read);
	case PMUVIRT_XEN_TAKE_OVERFLOWS:
		return sizeof(struct pmuvirt_xen_take_overflows);
	case PMUVIRT_XEN_SET_POLICY:
		return sizeof(struct pmuvirt_xen_set_policy);
	case PMUVIRT_XEN_VCPU_READ:
		return sizeof(struct pmuvirt_xen_vcpu_read);
	case PMUVIRT_XEN_VCPU_SET_CONTROL:
		return sizeof(struct pmuvirt_xen_vcpu_set_control);
	case PMUVIRT_XEN_PROF_START:
		return sizeof(struct pmuvirt_xen_prof_start);
	case PMUVIRT_XEN_PROF_STOP:
		return sizeof(struct pmuvirt_xen_prof_stop);
	case PMUVIRT_XEN_PROF_MAP:
		return sizeof(struct pmuvirt_xen_prof_map);
	case PMUVIRT_XEN_PROF_TAIL:
		return sizeof(struct pmuvirt_xen_prof_tail);
	case PMUVIRT_XEN_PROF_RELEASE:
		return sizeof(struct pmuvirt_xen_prof_release);
	case PMUVIRT_XEN_MAP_PHYS:
		return sizeof(struct pmuvirt_xen_map_phys);
	case PMUVIRT_XEN_UNMAP_PHYS:
		return sizeof(struct pmuvirt_xen_unmap_phys);
	default:
		return 0;
	}
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

int pmuvirt_xen_check_arg(unsigned int cmd, const void *arg, size_t len)
{
	uint32_t size = pmuvirt_xen_arg_size(cmd);
	uint32_t reserved;
	int ret;

	if (!size)
		return -EOPNOTSUPP;
	if (len != size)
		return -EINVAL;
	ret = pmuvirt_xen_check_hdr(cmd, arg);
	if (ret)
		return ret;
	switch (cmd) {
	case PMUVIRT_XEN_SET_CONTROL:
		reserved = ((const struct pmuvirt_xen_set_control *)arg)->reserved;
		break;
	case PMUVIRT_XEN_ARM:
		reserved = ((const struct pmuvirt_xen_arm *)arg)->reserved;
		break;
	case PMUVIRT_XEN_READ:
		reserved = ((const struct pmuvirt_xen_read *)arg)->reserved;
		break;
	case PMUVIRT_XEN_TAKE_OVERFLOWS:
		reserved = ((const struct pmuvirt_xen_take_overflows *)arg)->reserved;
		break;
	case PMUVIRT_XEN_SET_POLICY:
		reserved = ((const struct pmuvirt_xen_set_policy *)arg)->reserved;
		break;
	case PMUVIRT_XEN_VCPU_READ:
		reserved = ((const struct pmuvirt_xen_vcpu_read *)arg)->reserved;
		/* a domid is 16 bits */
		if (((const struct pmuvirt_xen_vcpu_read *)arg)->domid > 0xffff)
			return -EINVAL;
		break;
	case PMUVIRT_XEN_VCPU_SET_CONTROL:
		reserved = ((const struct pmuvirt_xen_vcpu_set_control *)arg)->reserved;
		if (((const struct pmuvirt_xen_vcpu_set_control *)arg)->domid > 0xffff)
			return -EINVAL;
		break;
	case PMUVIRT_XEN_PROF_START:
		/* the rest: pmuvirt_xen_check_prof_start() */
		reserved = ((const struct pmuvirt_xen_prof_start *)arg)->reserved |
			   ((const struct pmuvirt_xen_prof_start *)arg)->flags;
		break;
	case PMUVIRT_XEN_PROF_STOP:
		reserved = ((const struct pmuvirt_xen_prof_stop *)arg)->reserved |
			   ((const struct pmuvirt_xen_prof_stop *)arg)->flags;
		break;
	case PMUVIRT_XEN_PROF_TAIL:
		reserved = ((const struct pmuvirt_xen_prof_tail *)arg)->reserved;
		break;
	case PMUVIRT_XEN_PROF_RELEASE:
		reserved = ((const struct pmuvirt_xen_prof_release *)arg)->reserved |
			   ((const struct pmuvirt_xen_prof_release *)arg)->flags;
		break;
	case PMUVIRT_XEN_MAP_PHYS:
		reserved = ((const struct pmuvirt_xen_map_phys *)arg)->reserved |
			   ((const struct pmuvirt_xen_map_phys *)arg)->flags;
		break;
	case PMUVIRT_XEN_UNMAP_PHYS:
		reserved = ((const struct pmuvirt_xen_unmap_phys *)arg)->reserved;
		break;
	default:
		/* QUERY is all output; MAP_SHARED's and PROF_MAP's inputs may hold any value. */
		reserved = 0;
		break;
	}
	return reserved ? -EINVAL : 0;
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
