/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Builds src/arch/x86/x86.c inside Xen. */
#include "pmuvirt_env.h"
/* Xen macros named like members of pmuvirt's structs (pcpu, hw_ops). */
#undef current
#undef cpuid
#include "../../arch/x86/x86.c"
