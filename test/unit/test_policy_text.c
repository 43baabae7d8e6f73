// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The text form of event policies (src/abi/policy_text.c): accepted texts
 * with the policy and canonical text each must give, refused texts that
 * must leave the caller's policy untouched, the entry limit, the longest
 * canonical text, and what a parsed policy permits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pmuvirt/pmuvirt.h>
#include "pmuvirt_policy_text.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define ALL	(~(uint64_t)0)
#define EV(e)	(1u << PMUVIRT_EV_##e)

struct good {
	const char *in;
	const char *canon;	/* NULL: the text names no policy */
	uint32_t action, events, nr_raw;
	struct { uint64_t match, mask; uint32_t flags; } raw[3];
};

static const struct good goods[] = {
	{ "", NULL },
	{ " \t\n", NULL },
	{ "\n", NULL },
	{ "allow", "allow", PMUVIRT_POLICY_ALLOW },
	{ "deny\n", "deny", PMUVIRT_POLICY_DENY },
	{ "allow instructions,cycles,r003c", "allow instructions,cycles,r3c", PMUVIRT_POLICY_ALLOW,
	  EV(INSTRUCTIONS) | EV(CYCLES), 1, { { 0x3c, ALL, 0 } } },
	{ "  deny  r00c0/00ff,!r01C0/FFFF,tsc\n", "deny tsc,rc0/ff,!r1c0/ffff", PMUVIRT_POLICY_DENY,
	  EV(TSC), 2, { { 0xc0, 0xff, 0 }, { 0x1c0, 0xffff, PMUVIRT_POLICY_EXCLUDE } } },
	{ "allow tsc,branch-misses,branches,cycles,instructions,tsc",
	  "allow instructions,cycles,branches,branch-misses,tsc", PMUVIRT_POLICY_ALLOW,
	  EV(INSTRUCTIONS) | EV(CYCLES) | EV(BRANCHES) | EV(BRANCH_MISSES) | EV(TSC) },
	{ "deny r0/0", "deny r0/0", PMUVIRT_POLICY_DENY, 0, 1, { { 0, 0, 0 } } },
	{ "allow rffffffffffffffff,r0,!r0/0", "allow rffffffffffffffff,r0,!r0/0",
	  PMUVIRT_POLICY_ALLOW, 0, 3,
	  { { ALL, ALL, 0 }, { 0, ALL, 0 }, { 0, 0, PMUVIRT_POLICY_EXCLUDE } } },
	{ "deny\tr1/ffffffffffffffff", "deny r1", PMUVIRT_POLICY_DENY, 0, 1, { { 1, ALL, 0 } } },
};

static const char *const bads[] = {
	"permit instructions",		/* unknown action */
	"Allow instructions",		/* words are lower case */
	"allowinstructions",
	"allow instruction",		/* unknown event */
	"allow instructions,bogus",
	"allow instructions cycles",	/* whitespace inside the list */
	"allow instructions, cycles",
	"allow instructions,,cycles",	/* empty item */
	"allow ,instructions",
	"allow instructions,",		/* trailing comma */
	"allow r",			/* no digits */
	"allow r/ff",
	"allow r3c/",
	"allow r00zz",			/* bad hex */
	"allow r0x3c",
	"allow r3c/0xff",
	"allow r3c/ff/ff",
	"allow r-1",
	"allow r10000000000000000",	/* 17 digits */
	"allow r3c/10000000000000000",
	"allow r1/0",			/* code outside its mask: never matches */
	"allow r13c/ff",
	"allow !instructions",		/* exclude is for raw entries */
	"allow !!r3c",
	"allow R3c",
	"allow instructions\x01",
	"deny r3c;r4c",
	"instructions",			/* no action */
	"r3c",
};

static void expect_same(const struct good *g, const struct pmuvirt_policy *p)
{
	unsigned int i;

	assert_int_equal(p->version, PMUVIRT_ABI_VERSION);
	assert_int_equal(p->action, g->action);
	assert_int_equal(p->events, g->events);
	assert_int_equal(p->nr_raw, g->nr_raw);
	assert_int_equal(p->flags, 0);
	assert_int_equal(p->reserved, 0);
	for (i = 0; i < PMUVIRT_POLICY_MAX_RAW; i++) {
		const struct pmuvirt_policy_raw *r = &p->raw[i];

		if (i < g->nr_raw) {
			assert_true(r->match == g->raw[i].match);
			assert_true(r->mask == g->raw[i].mask);
			assert_int_equal(r->flags, g->raw[i].flags);
		} else {
			assert_true(!r->match && !r->mask && !r->flags);
		}
		assert_int_equal(r->reserved, 0);
	}
	assert_int_equal(pmuvirt_policy_validate(p), 0);
}

static void test_parse_good(void **state)
{
	unsigned int k;

	for (k = 0; k < sizeof(goods) / sizeof(goods[0]); k++) {
		const struct good *g = &goods[k];
		struct pmuvirt_policy p, q;
		char text[PMUVIRT_POLICY_TEXT_MAX];
		bool set = !g->canon;
		int n;

		memset(&p, 0xa5, sizeof(p));
		q = p;
		assert_int_equal(pmuvirt_policy_parse(g->in, strlen(g->in), &p, &set), 0);
		if (!g->canon) {
			assert_false(set);
			assert_memory_equal(&p, &q, sizeof(p));	/* no policy: untouched */
			continue;
		}
		assert_true(set);
		expect_same(g, &p);
		n = pmuvirt_policy_format(&p, text, sizeof(text));
		assert_int_equal(n, (int)strlen(g->canon));
		assert_string_equal(text, g->canon);
		/* the canonical text reads back as the same policy */
		assert_int_equal(pmuvirt_policy_parse(text, (size_t)n, &q, &set), 0);
		assert_true(set);
		assert_memory_equal(&p, &q, sizeof(p));
	}
}

static void test_parse_bad(void **state)
{
	unsigned int k;

	for (k = 0; k < sizeof(bads) / sizeof(bads[0]); k++) {
		struct pmuvirt_policy p, q;
		bool set = true;

		memset(&p, 0x5a, sizeof(p));
		q = p;
		if (pmuvirt_policy_parse(bads[k], strlen(bads[k]), &p, &set) != -EINVAL)
			fail_msg("accepted: \"%s\"", bads[k]);
		assert_memory_equal(&p, &q, sizeof(p));
		assert_true(set);
	}
}

/* A NUL inside the text, and a length that stops before the NUL. */
static void test_parse_len(void **state)
{
	struct pmuvirt_policy p;
	bool set;

	assert_int_equal(pmuvirt_policy_parse("allow tsc\0,cycles", 17, &p, &set), -EINVAL);
	assert_int_equal(pmuvirt_policy_parse("allow tsc,cycles", 9, &p, &set), 0);
	assert_int_equal(p.events, EV(TSC));
	assert_int_equal(pmuvirt_policy_parse("allow tsc,cycles", 10, &p, &set), -EINVAL);
}

/* 32 raw entries are accepted, a 33rd is refused. */
static void test_parse_limit(void **state)
{
	char text[PMUVIRT_POLICY_MAX_RAW * 8 + 16];
	struct pmuvirt_policy p;
	size_t n = 0;
	unsigned int i;
	bool set;

	n += (size_t)sprintf(text, "deny ");
	for (i = 0; i < PMUVIRT_POLICY_MAX_RAW; i++)
		n += (size_t)sprintf(text + n, "%sr%x", i ? "," : "", i);
	assert_int_equal(pmuvirt_policy_parse(text, n, &p, &set), 0);
	assert_int_equal(p.nr_raw, PMUVIRT_POLICY_MAX_RAW);
	n += (size_t)sprintf(text + n, ",r%x", i);
	assert_int_equal(pmuvirt_policy_parse(text, n, &p, &set), -EINVAL);
}

/* The longest canonical text fits PMUVIRT_POLICY_TEXT_MAX; short buffers are -ENOSPC. */
static void test_format_bounds(void **state)
{
	struct pmuvirt_policy p = { .version = PMUVIRT_ABI_VERSION, .action = PMUVIRT_POLICY_ALLOW };
	char text[PMUVIRT_POLICY_TEXT_MAX + 8];
	struct pmuvirt_policy q;
	unsigned int i;
	bool set;
	int n;

	p.events = EV(INSTRUCTIONS) | EV(CYCLES) | EV(BRANCHES) | EV(BRANCH_MISSES) | EV(TSC);
	p.nr_raw = PMUVIRT_POLICY_MAX_RAW;
	for (i = 0; i < p.nr_raw; i++) {
		p.raw[i].mask = ALL - 1;
		p.raw[i].match = 0xf000000000000000ull | ((uint64_t)i << 1);
		p.raw[i].flags = PMUVIRT_POLICY_EXCLUDE;
	}
	n = pmuvirt_policy_format(&p, text, sizeof(text));
	assert_true(n > 0 && n < PMUVIRT_POLICY_TEXT_MAX);
	assert_int_equal(n, 5 + 1 + 42 + 4 + 32 * 36);
	assert_int_equal(pmuvirt_policy_format(&p, text, PMUVIRT_POLICY_TEXT_MAX), n);
	assert_int_equal(pmuvirt_policy_parse(text, (size_t)n, &q, &set), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	assert_int_equal(pmuvirt_policy_format(&p, text, (size_t)n + 1), n);
	assert_int_equal(pmuvirt_policy_format(&p, text, (size_t)n), -ENOSPC);
	assert_string_equal(text, "");
	assert_int_equal(pmuvirt_policy_format(&p, text, 0), -ENOSPC);
	p.raw[3].match = 1;	/* outside its mask */
	assert_int_equal(pmuvirt_policy_format(&p, text, sizeof(text)), -EINVAL);
	p.raw[3].match = 0;
	p.events |= 1u << PMUVIRT_EV_NONE;
	assert_int_equal(pmuvirt_policy_format(&p, text, sizeof(text)), -EINVAL);
	/* a valid flag has no text: it would not read back */
	p.events &= ~(1u << PMUVIRT_EV_NONE);
	assert_true(pmuvirt_policy_format(&p, text, sizeof(text)) > 0);
	p.flags = PMUVIRT_POLICY_NO_VPMU;
	assert_int_equal(pmuvirt_policy_validate(&p), 0);
	assert_int_equal(pmuvirt_policy_format(&p, text, sizeof(text)), -EINVAL);
}

static bool permits(const struct pmuvirt_policy *p, uint64_t event, uint32_t flags)
{
	struct pmuvirt_counter_ctl c = { .event = event, .flags = flags | PMUVIRT_CTR_USER };

	return pmuvirt_policy_permits(p, &c);
}

/* What parsed policies permit: masks and exclude entries as written. */
static void test_parse_meaning(void **state)
{
	static const char deny[] = "deny cycles,r3c/ff,!r13c";
	static const char allow[] = "allow instructions,tsc,rc0/ff";
	struct pmuvirt_policy p;
	bool set;

	assert_int_equal(pmuvirt_policy_parse(deny, strlen(deny), &p, &set), 0);
	assert_true(permits(&p, PMUVIRT_EV_INSTRUCTIONS, 0));
	assert_false(permits(&p, PMUVIRT_EV_CYCLES, 0));
	assert_false(permits(&p, 0x3c, PMUVIRT_CTR_RAW));
	assert_false(permits(&p, 0x23c, PMUVIRT_CTR_RAW));	/* the mask ignores the unit mask */
	assert_true(permits(&p, 0x13c, PMUVIRT_CTR_RAW));	/* excluded from the list */
	assert_true(permits(&p, 0xc0, PMUVIRT_CTR_RAW));
	assert_true(permits(&p, 0x3d, PMUVIRT_CTR_RAW));	/* another event select */

	assert_int_equal(pmuvirt_policy_parse(allow, strlen(allow), &p, &set), 0);
	assert_true(permits(&p, PMUVIRT_EV_INSTRUCTIONS, 0));
	assert_true(permits(&p, PMUVIRT_EV_TSC, 0));
	assert_false(permits(&p, PMUVIRT_EV_CYCLES, 0));
	assert_true(permits(&p, 0x1c0, PMUVIRT_CTR_RAW));
	assert_false(permits(&p, 0x3c, PMUVIRT_CTR_RAW));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_len),
		cmocka_unit_test(test_parse_limit),
		cmocka_unit_test(test_format_bounds),
		cmocka_unit_test(test_parse_meaning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
