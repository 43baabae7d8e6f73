/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
#include "board.h"
#include "tests.h"

void tests_pmuvirt(void)
{
	kprintf("pmuvirt: POWER backend not built in yet\n");
}
