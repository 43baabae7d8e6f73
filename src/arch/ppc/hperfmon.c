/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* PAPR H_PERFMON: per-domain performance monitor mode. */
#include "pmuvirt_arch.h"
#include "pmuvirt_ppc.h"

void pmuvirt_ppc_domain_init(struct pmuvirt_ppc_domain *dom)
{
	dom->mode = 0;
	dom->calls = 0;
}

long pmuvirt_ppc_h_perfmon(struct pmuvirt_ppc_domain *dom, uint64_t mode_set,
			   uint64_t mode_reset)
{
	dom->calls++;
	if ((mode_set | mode_reset) & ~PMUVIRT_PPC_PERFMON_MODES)
		return PMUVIRT_PPC_H_PARAMETER;
	if (mode_set & mode_reset)
		return PMUVIRT_PPC_H_PARAMETER;
	dom->mode = (dom->mode | mode_set) & ~mode_reset;
	return PMUVIRT_PPC_H_SUCCESS;
}

bool pmuvirt_ppc_perfmon_enabled(const struct pmuvirt_ppc_domain *dom)
{
	return (dom->mode & PMUVIRT_PPC_PERFMON_ENABLE) != 0;
}

int pmuvirt_ppc_domain_set_control(const struct pmuvirt_ppc_domain *dom, struct pmuvirt_pcpu *pc,
				   struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
				   struct pmuvirt_error *err)
{
	if (!dom || !ctl)
		return pmuvirt_fail(err, -1, "missing domain or control", -EINVAL);
	if (ctl->nr_counters && !pmuvirt_ppc_perfmon_enabled(dom))
		return pmuvirt_fail(err, -1, "the domain has not enabled the performance monitor (H_PERFMON)",
				    -EOPNOTSUPP);
	return pmuvirt_set_control(pc, ctx, ctl, err);
}
