/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz the event-list parser of libpmuvirt-user (what pmuvirt-stat turns
 * into the control it passes to the module's ioctl): no crash, at most
 * PMUVIRT_MAX_COUNTERS counters, and an accepted list either validates or
 * is refused with a documented error, never reaching the strict fake as an
 * invalid register value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../lib/user/libpmuvirt-user.c"
#include "fakehw_models.h"
#include "x86/pmuvirt_x86.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const struct fakehw_x86_config cfg = FAKEHW_X86_INTEL_V4;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fakehw *hw;
	static struct pmuvirt_pmu pmu;
	static struct pmuvirt_pcpu pc;
	static struct pmuvirt_ctx *ctx;
	struct pmuvirt_control ctl;
	size_t csize = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	char *list;
	int ret;

	if (!hw) {
		hw = fakehw_x86_new(&cfg);
		ctx = calloc(1, csize);
		if (!hw || !ctx || pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw) ||
		    pmuvirt_pcpu_init(&pc, &pmu, fakehw_ops(hw), hw, 0) ||
		    pmuvirt_ctx_init(ctx, csize, &pmu))
			abort();
	}
	list = strndup((const char *)data, size);
	if (!list)
		return 0;
	memset(&ctl, 0xa5, sizeof(ctl));
	if (pmuvirt_user_parse_events(list, &ctl) == 0) {
		if (ctl.nr_counters > PMUVIRT_MAX_COUNTERS)
			abort();
		pmuvirt_switch_out(&pc);
		ret = pmuvirt_set_control(NULL, ctx, &ctl, NULL);
		if (ret && ret != -EINVAL && ret != -ENOSPC && ret != -EOPNOTSUPP &&
		    ret != -ERANGE && ret != -ENODEV)
			abort();
		if (!ret && pmuvirt_switch_in(&pc, ctx))
			abort();
		if (fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1000, false))
			abort();
		if (fakehw_stats(hw)->errors)
			abort();
	}
	free(list);
	return 0;
}
