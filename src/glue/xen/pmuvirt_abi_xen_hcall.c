// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* Builds src/abi/xen_hcall.c inside Xen. */
#include "pmuvirt_env.h"
#include "../../abi/xen_hcall.c"
