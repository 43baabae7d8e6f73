/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* POWER (Book3S 64-bit, ISA 2.07 / 3.0 / 3.1) backend. */
#ifndef PMUVIRT_PPC_H
#define PMUVIRT_PPC_H

#include <pmuvirt/pmuvirt.h>

enum pmuvirt_ppc_model {
	PMUVIRT_PPC_POWER8 = 8,
	PMUVIRT_PPC_POWER9 = 9,
	PMUVIRT_PPC_POWER10 = 10,
};

/**
 * pmuvirt_ppc_probe() - detect the PMU from the PVR (SPR 287) via @hw
 * Return: 0, or -ENODEV for a processor this backend does not know.
 */
int pmuvirt_ppc_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *hw_arg);

#endif
