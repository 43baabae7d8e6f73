/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt env for the Linux kernel (pmuvirt.ko). */
#ifndef PMUVIRT_ENV_H
#define PMUVIRT_ENV_H

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <asm/barrier.h>

#define pmuvirt_smp_wmb()		smp_wmb()
#define pmuvirt_smp_mb()		smp_mb()
#define PMUVIRT_READ_ONCE32(p)		READ_ONCE(*(const u32 *)(p))
#define PMUVIRT_WRITE_ONCE32(p, v)	WRITE_ONCE(*(u32 *)(p), (v))
#define PMUVIRT_WRITE_ONCE64(p, v)	WRITE_ONCE(*(u64 *)(p), (v))
#define PMUVIRT_XCHG32(p, v)		xchg((u32 *)(p), (u32)(v))
#define pmuvirt_likely(x)		likely(x)
#define pmuvirt_unlikely(x)		unlikely(x)
#define PMUVIRT_CF_CHECK

/* Defined once, in the module's main file. */
extern atomic64_t pmuvirt_linux_stamp;

static inline uint64_t pmuvirt_linux_stamp_next(void)
{
	return atomic64_inc_return(&pmuvirt_linux_stamp);
}
#define pmuvirt_stamp_next()		pmuvirt_linux_stamp_next()

#endif /* PMUVIRT_ENV_H */
