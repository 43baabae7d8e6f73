/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The Linux module ABI (include/pmuvirt/linux.h) has one layout on every
 * architecture, and the user library's event parser builds valid controls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pmuvirt/linux.h>
#if defined(__x86_64__) && defined(__linux__)
#include "../../lib/user/libpmuvirt-user.c"
#define HAVE_USER_LIB 1
#endif

static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct pmuvirt_control), 16 + 24 * PMUVIRT_MAX_COUNTERS);
	assert_int_equal(sizeof(struct pmuvirt_attach), 32 + sizeof(struct pmuvirt_control));
	assert_int_equal(offsetof(struct pmuvirt_attach, control), 32);
	assert_int_equal(offsetof(struct pmuvirt_attach, caps), 16);
	assert_int_equal(sizeof(struct pmuvirt_counts), 24 + 8 * PMUVIRT_MAX_COUNTERS);
	assert_int_equal(offsetof(struct pmuvirt_counts, value), 24);
	assert_int_equal(sizeof(struct pmuvirt_report), 48 + 8 * PMUVIRT_MAX_COUNTERS);
	assert_int_equal(offsetof(struct pmuvirt_report, comm), 32);
	assert_int_equal(offsetof(struct pmuvirt_report, value), 48);
	assert_int_equal(sizeof(struct pmuvirt_shared_ctx), 16 + 24 * PMUVIRT_MAX_COUNTERS);
	/* the size is part of every request number */
	assert_int_equal(_IOC_SIZE(PMUVIRT_IOC_ATTACH), sizeof(struct pmuvirt_attach));
	assert_int_equal(_IOC_SIZE(PMUVIRT_IOC_READ), sizeof(struct pmuvirt_counts));
	assert_true(PMUVIRT_IOC_READ != PMUVIRT_IOC_DETACH);
	assert_true(PMUVIRT_IOC_DETACH != PMUVIRT_IOC_RESUME);
}

#ifdef HAVE_USER_LIB
static void test_parse(void **state)
{
	struct pmuvirt_control ctl;

	(void)state;
	assert_int_equal(pmuvirt_user_parse_events("instructions,cycles:u,tsc,r00c0:k", &ctl), 0);
	assert_int_equal(ctl.version, PMUVIRT_ABI_VERSION);
	assert_int_equal(ctl.nr_counters, 4);
	assert_int_equal(ctl.counter[0].event, PMUVIRT_EV_INSTRUCTIONS);
	assert_int_equal(ctl.counter[0].flags, PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL);
	assert_int_equal(ctl.counter[1].event, PMUVIRT_EV_CYCLES);
	assert_int_equal(ctl.counter[1].flags, PMUVIRT_CTR_USER);
	assert_int_equal(ctl.counter[2].event, PMUVIRT_EV_TSC);
	assert_int_equal(ctl.counter[2].flags, 0);
	assert_int_equal(ctl.counter[3].event, 0xc0);
	assert_int_equal(ctl.counter[3].flags, PMUVIRT_CTR_RAW | PMUVIRT_CTR_KERNEL);
	assert_int_equal(pmuvirt_user_parse_events("instructions,bogus", &ctl), -1);
	assert_int_equal(pmuvirt_user_parse_events("cycles:x", &ctl), -1);
	assert_int_equal(pmuvirt_user_parse_events("rzz", &ctl), -1);
	assert_int_equal(pmuvirt_user_parse_events(
		"tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc,tsc", &ctl), -1);
}

/* A record read without a system call: TSC live, a stopped counter, retries. */
static void test_shared_read(void **state)
{
	struct pmuvirt_shared_ctx rec;
	struct pmuvirt_user u;
	uint64_t v[2], now;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	memset(&u, 0, sizeof(u));
	u.fd = -1;
	u.rec = &rec;
	u.caps = PMUVIRT_UREAD_TSC;
	u.nr_counters = 2;
	rec.nr_counters = 2;
	rec.below = 0;
	now = rd_tsc();
	rec.counter[0].count = 1000;
	rec.counter[0].start = now;
	rec.counter[0].index = PMUVIRT_SHARED_TSC;
	rec.counter[0].width = 64;
	rec.counter[1].count = 77;
	assert_int_equal(pmuvirt_user_read(&u, v), 0);
	assert_true(v[0] >= 1000 && v[0] < 1000 + (rd_tsc() - now) + 1);
	assert_int_equal(v[1], 77);
	assert_int_equal(u.direct_reads, 1);
	/* a hardware counter without user rdpmc goes to the ioctl (fd -1 fails) */
	rec.counter[1].index = 1;
	assert_int_equal(pmuvirt_user_read(&u, v), -1);
	assert_int_equal(u.ioctl_reads, 1);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
#ifdef HAVE_USER_LIB
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_shared_read),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
