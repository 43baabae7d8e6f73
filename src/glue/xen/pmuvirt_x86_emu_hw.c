/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Builds src/arch/x86/emu_hw.c inside Xen. */
#include "pmuvirt_env.h"
#include "../../arch/x86/emu_hw.c"
