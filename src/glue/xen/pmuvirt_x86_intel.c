/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Builds src/arch/x86/intel.c inside Xen. */
#include "pmuvirt_env.h"
/* Xen's cpuid() macro would take over hw->cpuid(...) calls. */
#undef cpuid
#include "../../arch/x86/intel.c"
