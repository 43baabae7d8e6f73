/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The switch a host's context-switch hook makes (pmuvirt_switch_hook()). */
#include "pmuvirt_arch.h"

int pmuvirt_switch_hook(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *next)
{
	int ret;

	if (next && next->running_on && next->running_on != pc) {
		/* The outgoing context must not go on counting for @next's owner. */
		ret = pmuvirt_switch(pc, NULL);
		return ret ? ret : -EBUSY;
	}
	ret = pmuvirt_switch(pc, next);
	/* Only its -EBUSY keeps the outgoing context; keep the promise should that change. */
	if (ret && pc->running && pc->running != next)
		pmuvirt_switch(pc, NULL);
	return ret;
}
