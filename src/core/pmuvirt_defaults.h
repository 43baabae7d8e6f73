/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The env contract.  Every host puts a file named pmuvirt_env.h on the
 * include path of the core and arch sources (src/glue/<host>/).  It must
 * provide:
 *   - uint8_t .. uint64_t, int8_t .. int64_t, uintptr_t, size_t, bool,
 *     true, false, NULL
 * and may provide (defaults below otherwise):
 *   - the errno values EPERM, EFAULT, EBUSY, ENODEV, EINVAL, ENOSPC, ERANGE,
 *     EPROTO, EOPNOTSUPP as macros with the Linux numbering (a host whose values are
 *     not macros, such as Xen's enum, gets them defined here; the core
 *     tests them in #if)
 *   - pmuvirt_smp_wmb(), pmuvirt_smp_mb() (a full barrier: the sample
 *     ring's writer orders its read of the reader's tail before its
 *     record stores)
 *   - PMUVIRT_READ_ONCE32(p), PMUVIRT_WRITE_ONCE32(p, v),
 *     PMUVIRT_WRITE_ONCE64(p, v)
 *   - PMUVIRT_XCHG32(p, v): store v, return the old value, in one step that
 *     an interrupt (an NMI) on the same CPU cannot split
 *   - pmuvirt_stamp_next(): a new nonzero 64-bit value on every call, from
 *     any CPU (an atomic increment)
 *   - PMUVIRT_CF_CHECK: marks functions reached through pointers (Xen IBT)
 *   - pmuvirt_likely(x), pmuvirt_unlikely(x)
 *   - PMUVIRT_NOINIT: on a stack array that the code fills before it reads
 *     it, exempts it from -ftrivial-auto-var-init (Linux's
 *     CONFIG_INIT_STACK_ALL_ZERO would otherwise clear the switch's
 *     snapshot arrays, 256 bytes, on every context switch)
 * The core includes nothing else from the host.
 */
#ifndef PMUVIRT_DEFAULTS_H
#define PMUVIRT_DEFAULTS_H

#ifndef PMUVIRT_HAVE_ENV
#define PMUVIRT_HAVE_ENV 1
#endif
#include "pmuvirt_env.h"

#ifndef EINVAL
#define EPERM		1
#define EFAULT		14
#define EBUSY		16
#define ENODEV		19
#define EINVAL		22
#define ENOSPC		28
#define ERANGE		34
#define EPROTO		71	/* a description from a level below that cannot be used */
#define EOPNOTSUPP	95
#endif
#if EPERM != 1 || EFAULT != 14 || EBUSY != 16 || ENODEV != 19 || EINVAL != 22 || \
	ENOSPC != 28 || ERANGE != 34 || EPROTO != 71 || EOPNOTSUPP != 95
#error "pmuvirt_env.h: errno values must use the Linux numbering"
#endif

#ifndef NULL
#error "pmuvirt_env.h must define NULL, the fixed-width integer types, size_t and bool"
#endif

#ifndef pmuvirt_smp_wmb
#define pmuvirt_smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#ifndef pmuvirt_smp_mb
#define pmuvirt_smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#ifndef PMUVIRT_READ_ONCE32
#define PMUVIRT_READ_ONCE32(p) (*(const volatile uint32_t *)(p))
#endif
#ifndef PMUVIRT_WRITE_ONCE32
#define PMUVIRT_WRITE_ONCE32(p, v) (*(volatile uint32_t *)(p) = (v))
#endif
#ifndef PMUVIRT_WRITE_ONCE64
#define PMUVIRT_WRITE_ONCE64(p, v) (*(volatile uint64_t *)(p) = (v))
#endif
#ifndef PMUVIRT_XCHG32
#define PMUVIRT_XCHG32(p, v) __atomic_exchange_n((uint32_t *)(p), (uint32_t)(v), __ATOMIC_RELAXED)
#endif
#ifndef pmuvirt_stamp_next
/* One counter for the whole library, in ctx.c. */
extern uint64_t pmuvirt_stamp_counter;
#define pmuvirt_stamp_next() __atomic_add_fetch(&pmuvirt_stamp_counter, 1, __ATOMIC_RELAXED)
#define PMUVIRT_DEFAULT_STAMP 1
#endif
#ifndef PMUVIRT_CF_CHECK
#define PMUVIRT_CF_CHECK
#endif
#ifndef PMUVIRT_NOINIT
#if defined(__has_attribute)
#if __has_attribute(__uninitialized__)
#define PMUVIRT_NOINIT __attribute__((__uninitialized__))
#endif
#endif
#endif
#ifndef PMUVIRT_NOINIT
#define PMUVIRT_NOINIT
#endif
#ifndef pmuvirt_likely
#define pmuvirt_likely(x) __builtin_expect(!!(x), 1)
#define pmuvirt_unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* The core and backends must not call libc by accident. */
#ifdef PMUVIRT_CORE_BUILD
#define memcpy  PMUVIRT_MISTAKE_libc_memcpy
#define memset  PMUVIRT_MISTAKE_libc_memset
#define malloc  PMUVIRT_MISTAKE_libc_malloc
#define printf  PMUVIRT_MISTAKE_libc_printf
#endif

#endif /* PMUVIRT_DEFAULTS_H */
