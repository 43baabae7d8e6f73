/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The fields of each hypercall argument that must be zero (reserved,
 * flags) or hold a 16-bit domain, written from include/pmuvirt/xen.h and
 * not from src/abi, for the tests that check the checker against it.
 */
#ifndef PMUVIRT_TEST_XEN_ARG_FIELDS_H
#define PMUVIRT_TEST_XEN_ARG_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <pmuvirt/xen.h>

enum xen_arg_field { XEN_RESERVED, XEN_FLAGS, XEN_DOMID };

#define XEN_ARG_OFF(f)	offsetof(union pmuvirt_xen_any_arg, f)

/* 0: none (the header is at 0). */
static const struct xen_arg_fields {
	unsigned int cmd;
	size_t off[3];
} xen_arg_fields[] = {
	{ PMUVIRT_XEN_SET_CONTROL, { XEN_ARG_OFF(set_control.reserved) } },
	{ PMUVIRT_XEN_ARM, { XEN_ARG_OFF(arm.reserved) } },
	{ PMUVIRT_XEN_READ, { XEN_ARG_OFF(read.reserved) } },
	{ PMUVIRT_XEN_TAKE_OVERFLOWS, { XEN_ARG_OFF(take_overflows.reserved) } },
	{ PMUVIRT_XEN_SET_POLICY, { XEN_ARG_OFF(set_policy.reserved) } },
	{ PMUVIRT_XEN_VCPU_READ,
	  { XEN_ARG_OFF(vcpu_read.reserved), 0, XEN_ARG_OFF(vcpu_read.domid) } },
	{ PMUVIRT_XEN_VCPU_SET_CONTROL,
	  { XEN_ARG_OFF(vcpu_set_control.reserved), 0, XEN_ARG_OFF(vcpu_set_control.domid) } },
	{ PMUVIRT_XEN_PROF_START, { 0, XEN_ARG_OFF(prof_start.flags) } },
	{ PMUVIRT_XEN_PROF_STOP, { XEN_ARG_OFF(prof_stop.reserved), XEN_ARG_OFF(prof_stop.flags) } },
	{ PMUVIRT_XEN_PROF_TAIL, { XEN_ARG_OFF(prof_tail.reserved) } },
	{ PMUVIRT_XEN_PROF_RELEASE,
	  { XEN_ARG_OFF(prof_release.reserved), XEN_ARG_OFF(prof_release.flags) } },
	{ PMUVIRT_XEN_PROF_UNMAP,
	  { XEN_ARG_OFF(prof_unmap.reserved), XEN_ARG_OFF(prof_unmap.flags) } },
	{ PMUVIRT_XEN_MAP_PHYS, { XEN_ARG_OFF(map_phys.reserved), XEN_ARG_OFF(map_phys.flags) } },
	{ PMUVIRT_XEN_UNMAP_PHYS, { XEN_ARG_OFF(unmap_phys.reserved) } },
};

/* Field @f of command @cmd's argument @u, or NULL where it has none. */
static inline uint32_t *xen_arg_field(union pmuvirt_xen_any_arg *u, unsigned int cmd,
				      enum xen_arg_field f)
{
	unsigned int i;

	for (i = 0; i < sizeof(xen_arg_fields) / sizeof(xen_arg_fields[0]); i++)
		if (xen_arg_fields[i].cmd == cmd)
			return xen_arg_fields[i].off[f] ?
			       (uint32_t *)((char *)u + xen_arg_fields[i].off[f]) : NULL;
	return NULL;
}

#endif
