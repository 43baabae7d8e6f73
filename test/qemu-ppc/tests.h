/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
#ifndef QPPC_TESTS_H
#define QPPC_TESTS_H

#include "pmuvirt_env.h"

void check(bool ok, const char *what);
/* pmuvirt on the real SPRs (when the POWER backend is built in). */
void tests_pmuvirt(void);

#endif
