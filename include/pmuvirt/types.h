/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fixed-width types for pmuvirt's public headers.
 *
 * Inside the library's own build (PMUVIRT_HAVE_ENV) the host's env header
 * supplies them; otherwise the usual host header does.
 */
#ifndef PMUVIRT_TYPES_H
#define PMUVIRT_TYPES_H

#if defined(PMUVIRT_HAVE_ENV)
#include "pmuvirt_env.h"
#elif defined(__XEN__)
#include <xen/types.h>
#elif defined(__KERNEL__)
#include <linux/types.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#endif

#endif /* PMUVIRT_TYPES_H */
