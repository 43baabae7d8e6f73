// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Fuzz the text form of event policies (src/abi/policy_text.c), which
 * pmuvirt.ko parses from what root writes to user_event_policy.
 *
 * Input: a mode byte, then
 *  - mode bit 0 clear: the rest is text.  pmuvirt_policy_parse() returns 0
 *    or -EINVAL only; a refused text leaves the caller's policy and flag
 *    byte for byte untouched; an accepted one is a policy that
 *    pmuvirt_policy_validate() accepts, with every unused raw entry zero,
 *    whose canonical text fits PMUVIRT_POLICY_TEXT_MAX, parses back to the
 *    same bytes and formats to the same text again;
 *  - mode bit 0 set: the rest is a struct pmuvirt_policy (zero-filled).
 *    pmuvirt_policy_format() succeeds exactly when pmuvirt_policy_validate()
 *    accepts it and it has no flag (the text has none), and its text parses back to a policy that permits exactly
 *    the same counters (the counters are taken from the input too).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmuvirt/pmuvirt.h>
#include "pmuvirt_policy_text.h"

static void roundtrip(const struct pmuvirt_policy *p)
{
	char text[PMUVIRT_POLICY_TEXT_MAX], again[PMUVIRT_POLICY_TEXT_MAX];
	struct pmuvirt_policy q;
	bool set = false;
	int n;

	n = pmuvirt_policy_format(p, text, sizeof(text));
	if (n < 0 || (size_t)n != strlen(text))
		abort();
	memset(&q, 0xee, sizeof(q));
	if (pmuvirt_policy_parse(text, (size_t)n, &q, &set) || !set)
		abort();
	if (pmuvirt_policy_format(&q, again, sizeof(again)) != n || strcmp(text, again))
		abort();
	if (pmuvirt_policy_format(p, again, (size_t)n) != -ENOSPC)
		abort();
}

static void fuzz_text(const uint8_t *data, size_t len)
{
	struct pmuvirt_policy p, before, q;
	char text[PMUVIRT_POLICY_TEXT_MAX];
	bool set = true, set_before;
	unsigned int i;
	int ret, n;

	memset(&p, 0x77, sizeof(p));
	before = p;
	set_before = set;
	ret = pmuvirt_policy_parse((const char *)data, len, &p, &set);
	if (ret) {
		if (ret != -EINVAL || set != set_before || memcmp(&p, &before, sizeof(p)))
			abort();
		return;
	}
	if (!set) {
		if (memcmp(&p, &before, sizeof(p)))
			abort();
		for (i = 0; i < len; i++)
			if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n')
				abort();	/* only whitespace names no policy */
		return;
	}
	if (pmuvirt_policy_validate(&p))
		abort();
	for (i = p.nr_raw; i < PMUVIRT_POLICY_MAX_RAW; i++)
		if (p.raw[i].match || p.raw[i].mask || p.raw[i].flags || p.raw[i].reserved)
			abort();
	roundtrip(&p);
	n = pmuvirt_policy_format(&p, text, sizeof(text));
	if (pmuvirt_policy_parse(text, (size_t)n, &q, &set) || memcmp(&p, &q, sizeof(p)))
		abort();
}

static void fuzz_struct(const uint8_t *data, size_t len)
{
	struct pmuvirt_policy p, q;
	char text[PMUVIRT_POLICY_TEXT_MAX];
	size_t k = len < sizeof(p) ? len : sizeof(p);
	bool set = false;
	int n;

	memset(&p, 0, sizeof(p));
	memcpy(&p, data, k);
	data += k;
	len -= k;
	n = pmuvirt_policy_format(&p, text, sizeof(text));
	if ((n >= 0) != (!pmuvirt_policy_validate(&p) && !p.flags) || (n < 0 && n != -EINVAL))
		abort();
	if (n < 0)
		return;
	roundtrip(&p);
	if (pmuvirt_policy_parse(text, (size_t)n, &q, &set) || !set)
		abort();
	/* the same meaning: every counter of the rest of the input */
	while (len >= 9) {
		struct pmuvirt_counter_ctl c = { .flags = PMUVIRT_CTR_USER };

		memcpy(&c.event, data, 8);
		if (data[8] & 1)
			c.flags |= PMUVIRT_CTR_RAW;
		else
			c.event %= PMUVIRT_EV_NR + 1;
		if (pmuvirt_policy_permits(&p, &c) != pmuvirt_policy_permits(&q, &c))
			abort();
		data += 9;
		len -= 9;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	if (data[0] & 1)
		fuzz_struct(data + 1, len - 1);
	else
		fuzz_text(data + 1, len - 1);
	return 0;
}
