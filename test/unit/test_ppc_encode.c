/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* POWER controls: placement, MMCR images, raw codes, malformed controls. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fakehw.h"
#include "ppc/pmuvirt_ppc.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL
#define UK	(PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL)
#define RAW	PMUVIRT_CTR_RAW
#define INS	PMUVIRT_EV_INSTRUCTIONS
#define CYC	PMUVIRT_EV_CYCLES
#define BR	PMUVIRT_EV_BRANCHES
#define BRM	PMUVIRT_EV_BRANCH_MISSES
#define TB	PMUVIRT_EV_TSC

#define M0(x)		PMUVIRT_PPC_MMCR0_##x
#define RUN		(M0(PMAE) | M0(FCECE))
#define SEL(n, s)	((uint64_t)(s) << PMUVIRT_PPC_MMCR1_SEL_SHIFT(n))
#define UNIT(n, u)	((uint64_t)(u) << PMUVIRT_PPC_MMCR1_UNIT_SHIFT(n))
#define FRZ(n)		(PMUVIRT_PPC_MMCR2_FCS(n) | PMUVIRT_PPC_MMCR2_FCP(n) | PMUVIRT_PPC_MMCR2_FCH(n))
#define USERONLY(n)	(PMUVIRT_PPC_MMCR2_FCS(n) | PMUVIRT_PPC_MMCR2_FCH(n))
#define KERNONLY(n)	PMUVIRT_PPC_MMCR2_FCP(n)
#define ANY		0xff	/* do not check */

struct ctr {
	uint64_t event;
	uint32_t flags;
	uint64_t period;
};

struct row {
	const char *what;
	unsigned int power;	/* 0: all three models */
	unsigned int n;
	struct ctr c[8];
	int ret;
	int bad;		/* err.counter on failure */
	uint8_t slot[8];
	uint64_t mmcr0, mmcr1, mmcr2;
};

static const struct row rows[] = {
	{ "instructions go to PMC5", 0, 1, { { INS, UK } }, 0, 0, { 4 },
	  RUN | M0(PMCJCE), 0, FRZ(6) },
	{ "cycles go to PMC6", 0, 1, { { CYC, UK } }, 0, 0, { 5 },
	  RUN | M0(PMCJCE), 0, FRZ(5) },
	{ "PMC5 and PMC6 together", 0, 2, { { CYC, UK }, { INS, UK } }, 0, 0, { 5, 4 },
	  RUN | M0(PMCJCE), 0, 0 },
	{ "two instruction counters: PMC5 and PMC1", 0, 2, { { INS, UK }, { INS, U } }, 0, 0,
	  { ANY, ANY }, RUN | M0(PMC1CE) | M0(PMCJCE), SEL(1, 0x02), ANY },
	{ "time base alone: PMC5/6 frozen, no conditions", 0, 1, { { TB, 0 } }, 0, 0, { 6 },
	  RUN | M0(FC56), 0, 0 },
	{ "POWER8 branches on PMC1", 8, 2, { { BR, K }, { BRM, UK } }, 0, 0, { 0, 3 },
	  RUN | M0(PMC1CE) | M0(PMCJCE) | M0(FC56), SEL(1, 0x68) | SEL(4, 0xf6), KERNONLY(1) },
	{ "POWER9 branches: PMC4 unit 0xd", 9, 1, { { BR, UK } }, 0, 0, { 3 },
	  RUN | M0(PMCJCE) | M0(FC56), UNIT(4, 0xd) | SEL(4, 0x5e), 0 },
	{ "POWER10 branches: PMC4 unit 0xd", 10, 1, { { BR, UK } }, 0, 0, { 3 },
	  RUN | M0(PMCJCE) | M0(FC56), UNIT(4, 0xd) | SEL(4, 0x5e), 0 },
	{ "POWER9 branches and misses both need PMC4", 9, 2, { { BR, UK }, { BRM, UK } }, -ENOSPC, ANY },
	{ "four cycles and an instructions counter", 0, 6,
	  { { CYC, UK }, { CYC, UK }, { CYC, UK }, { CYC, UK }, { CYC, K }, { INS, U } }, 0, 0,
	  { ANY, ANY, ANY, ANY, ANY, 4 }, RUN | M0(PMC1CE) | M0(PMCJCE), ANY, ANY },
	{ "seven instruction counters do not fit", 0, 6,
	  { { INS, UK }, { INS, UK }, { INS, UK }, { INS, UK }, { INS, UK }, { INS, UK } }, -ENOSPC, ANY },
	{ "raw PMC1 0xF0", 0, 1, { { PMUVIRT_PPC_RAW(1, 0xf0), UK | RAW } }, 0, 0, { 0 },
	  RUN | M0(PMC1CE) | M0(FC56), SEL(1, 0xf0), 0 },
	{ "raw any PMC 0x1E: the first free", 0, 1, { { PMUVIRT_PPC_RAW(0, 0x1e), UK | RAW } }, 0, 0,
	  { 0 }, RUN | M0(PMC1CE) | M0(FC56), SEL(1, 0x1e), 0 },
	{ "raw PMC3 0x02 user only", 0, 1, { { PMUVIRT_PPC_RAW(3, 0x02), U | RAW } }, 0, 0, { 2 },
	  RUN | M0(PMCJCE) | M0(FC56), SEL(3, 0x02), USERONLY(3) },
	{ "raw PMC5 (its fixed event)", 0, 1, { { PMUVIRT_PPC_RAW(5, 0), UK | RAW } }, 0, 0, { 4 },
	  RUN | M0(PMCJCE), 0, FRZ(6) },
	{ "raw PMC6 with a selector", 0, 1, { { PMUVIRT_PPC_RAW(6, 0x1e), UK | RAW } }, -EINVAL, 0 },
	{ "raw PMC number 7", 0, 1, { { PMUVIRT_PPC_RAW(7, 0x02), UK | RAW } }, -EINVAL, 0 },
	{ "raw PMC number 15", 0, 1, { { PMUVIRT_PPC_RAW(15, 0x02), UK | RAW } }, -EINVAL, 0 },
	{ "raw bits above 11", 0, 1, { { 0x1000 | 0x02, UK | RAW } }, -EINVAL, 0 },
	{ "raw unit/combine bits (Linux-style code)", 0, 1, { { 0x4d05e, UK | RAW } }, -EINVAL, 0 },
	{ "raw PMCxSEL 0", 0, 1, { { PMUVIRT_PPC_RAW(2, 0), UK | RAW } }, -EINVAL, 0 },
	{ "raw code twice on PMC2", 0, 2,
	  { { PMUVIRT_PPC_RAW(2, 0x02), UK | RAW }, { PMUVIRT_PPC_RAW(2, 0x1e), UK | RAW } }, -ENOSPC, ANY },
	{ "neither user nor kernel", 0, 1, { { INS, 0 } }, -EINVAL, 0 },
	{ "unknown flag", 0, 1, { { INS, UK | 0x100 } }, -EINVAL, 0 },
	{ "unknown portable event", 0, 1, { { PMUVIRT_EV_NR, UK } }, -EINVAL, 0 },
	{ "event 0", 0, 1, { { PMUVIRT_EV_NONE, UK } }, -EINVAL, 0 },
	{ "time base in i-mode", 0, 1, { { TB, 0, 100 } }, -EINVAL, 0 },
	{ "time base with a filter", 0, 1, { { TB, U } }, -EINVAL, 0 },
	{ "period of half the range", 0, 1, { { INS, UK, 0x80000000ull } }, 0, 0, { 4 },
	  RUN | M0(PMCJCE), 0, FRZ(6) },
	{ "period above half the range", 0, 1, { { INS, UK, 0x80000001ull } }, 0, 0, { 4 },
	  RUN | M0(PMCJCE), 0, FRZ(6) },
	{ "period of 2^62", 0, 1, { { INS, UK, 1ull << 62 } }, 0, 0, { 4 },
	  RUN | M0(PMCJCE), 0, FRZ(6) },
	{ "period above 2^62", 0, 1, { { INS, UK, (1ull << 62) + 1 } }, -ERANGE, 0 },
	{ "second counter bad", 0, 2, { { CYC, UK }, { INS, UK, 1ull << 63 } }, -ERANGE, 1 },
};

static struct pmuvirt_pmu probe(unsigned int power)
{
	struct fakehw *hw = fakehw_ppc_new(power);
	struct pmuvirt_pmu pmu;

	assert_int_equal(pmuvirt_ppc_probe(&pmu, fakehw_ops(hw), hw), 0);
	fakehw_free(hw);
	return pmu;
}

static void build(struct pmuvirt_control *ctl, const struct row *r)
{
	unsigned int i;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = r->n;
	for (i = 0; i < r->n; i++) {
		ctl->counter[i].event = r->c[i].event;
		ctl->counter[i].flags = r->c[i].flags;
		ctl->counter[i].period = r->c[i].period;
	}
}

static void test_table(void **state)
{
	unsigned int i, p, k;

	for (p = 8; p <= 10; p++) {
		struct pmuvirt_pmu pmu = probe(p);

		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			const struct row *r = &rows[i];
			struct pmuvirt_control ctl;
			struct pmuvirt_hwctl img;
			struct pmuvirt_error err = { -2, NULL };
			uint8_t slots[PMUVIRT_MAX_COUNTERS];
			int ret;

			if (r->power && r->power != p)
				continue;
			build(&ctl, r);
			ret = pmuvirt_validate(&pmu, &ctl, 8, &img, slots, &err);
			if (ret != r->ret)
				fail_msg("POWER%u \"%s\": %d, wanted %d (%s)", p, r->what, ret, r->ret,
					 err.reason ? err.reason : "");
			if (ret) {
				assert_non_null(err.reason);
				if (r->bad != ANY)
					assert_int_equal(err.counter, r->bad);
				continue;
			}
			for (k = 0; k < r->n; k++) {
				unsigned int j;

				if (r->slot[k] != ANY && slots[k] != r->slot[k])
					fail_msg("POWER%u \"%s\": counter %u on slot %u, wanted %u", p,
						 r->what, k, slots[k], r->slot[k]);
				for (j = 0; j < k; j++)
					assert_int_not_equal(slots[j], slots[k]);
				if (!(r->c[k].flags & RAW))
					assert_true(pmu.slot[slots[k]].events & (1u << r->c[k].event));
			}
			if (img.reg[0] != r->mmcr0)
				fail_msg("POWER%u \"%s\": MMCR0 %#llx, wanted %#llx", p, r->what,
					 (unsigned long long)img.reg[0], (unsigned long long)r->mmcr0);
			if (r->mmcr1 != ANY && img.reg[1] != r->mmcr1)
				fail_msg("POWER%u \"%s\": MMCR1 %#llx, wanted %#llx", p, r->what,
					 (unsigned long long)img.reg[1], (unsigned long long)r->mmcr1);
			if (r->mmcr2 != ANY && img.reg[2] != r->mmcr2)
				fail_msg("POWER%u \"%s\": MMCR2 %#llx, wanted %#llx", p, r->what,
					 (unsigned long long)img.reg[2], (unsigned long long)r->mmcr2);
			assert_int_equal(img.reg[3], 0);	/* MMCRA */
			assert_int_equal(img.used, p == 10 ? 0x1f : 0xf);
		}
	}
}

/* Every image the backend builds is accepted by the strict fake. */
static void test_images_are_legal(void **state)
{
	unsigned int i, p, k;

	for (p = 8; p <= 10; p++) {
		struct pmuvirt_pmu pmu = probe(p);
		struct fakehw *hw = fakehw_ppc_new(p);

		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			static const uint32_t spr[5] = {
				PMUVIRT_PPC_SPR_MMCR0, PMUVIRT_PPC_SPR_MMCR1, PMUVIRT_PPC_SPR_MMCR2,
				PMUVIRT_PPC_SPR_MMCRA, PMUVIRT_PPC_SPR_MMCR3,
			};
			struct pmuvirt_control ctl;
			struct pmuvirt_hwctl img;

			if (rows[i].ret || (rows[i].power && rows[i].power != p))
				continue;
			build(&ctl, &rows[i]);
			assert_int_equal(pmuvirt_validate(&pmu, &ctl, 8, &img, NULL, NULL), 0);
			for (k = 0; k < 5; k++)
				if (img.used & (1u << k))
					assert_int_equal(fakehw_ops(hw)->write_reg(hw, spr[k], img.reg[k]), 0);
		}
		assert_int_equal(fakehw_stats(hw)->errors, 0);
		fakehw_free(hw);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_images_are_legal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
