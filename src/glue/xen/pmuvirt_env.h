/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt env for the Xen hypervisor (x86).  The core and backend sources
 * are built inside Xen through the pmuvirt_core_*.c and pmuvirt_x86_*.c
 * wrappers next to this file.
 */
#ifndef PMUVIRT_ENV_H
#define PMUVIRT_ENV_H

#include <xen/types.h>
#include <xen/errno.h>
#include <xen/compiler.h>
#include <asm/system.h>
#include <asm/atomic.h>

#define pmuvirt_smp_wmb()		smp_wmb()
#define PMUVIRT_READ_ONCE32(p)		read_atomic((const uint32_t *)(p))
#define PMUVIRT_WRITE_ONCE32(p, v)	write_atomic((uint32_t *)(p), (uint32_t)(v))
#define PMUVIRT_WRITE_ONCE64(p, v)	write_atomic((uint64_t *)(p), (uint64_t)(v))

/* Defined in pmuvirt_xen.c: one counter for the whole hypervisor. */
extern uint64_t pmuvirt_xen_stamp;

static inline uint64_t pmuvirt_stamp_next(void)
{
	return arch_fetch_and_add(&pmuvirt_xen_stamp, 1) + 1;
}
#define pmuvirt_stamp_next pmuvirt_stamp_next

#define PMUVIRT_CF_CHECK		cf_check
#define pmuvirt_likely(x)		likely(x)
#define pmuvirt_unlikely(x)		unlikely(x)

#endif /* PMUVIRT_ENV_H */
