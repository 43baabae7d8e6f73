/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Builds src/arch/x86/emu.c inside Xen. */
#include "pmuvirt_env.h"
#include "../../arch/x86/emu.c"
