/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Builds src/core/probe.c inside Xen. */
#include "pmuvirt_env.h"
#include "../../core/probe.c"
