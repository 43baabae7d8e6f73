// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The text form of an event policy (grammar in pmuvirt_policy_text.h):
 * pmuvirt.ko parses what root writes to user_event_policy and shows the
 * canonical form back; test_abi_check and fuzz_policy_text run it outside
 * the kernel.  Only the caller's bytes are read; nothing is allocated.
 */
#include "pmuvirt_defaults.h"
#include "pmuvirt_policy_text.h"

#define HEX_DIGITS	16

static const char *const event_name[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = "instructions",
	[PMUVIRT_EV_CYCLES] = "cycles",
	[PMUVIRT_EV_BRANCHES] = "branches",
	[PMUVIRT_EV_BRANCH_MISSES] = "branch-misses",
	[PMUVIRT_EV_TSC] = "tsc",
};

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Do the @n bytes at @s spell the NUL-terminated @word? */
static bool word_is(const char *s, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!word[i] || s[i] != word[i])
			return false;
	return !word[n];
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The whole of @s[0..n) as 1 to 16 hex digits. */
static int parse_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n || n > HEX_DIGITS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int d = hex_digit(s[i]);

		if (d < 0)
			return -EINVAL;
		x = (x << 4) | (uint64_t)d;
	}
	*v = x;
	return 0;
}

/* One item, @s[0..n), added to @pol. */
static int parse_item(const char *s, size_t n, struct pmuvirt_policy *pol)
{
	struct pmuvirt_policy_raw *r;
	uint32_t flags = 0;
	size_t slash;
	unsigned int ev;
	int ret;

	for (ev = 0; ev < PMUVIRT_EV_NR; ev++) {
		if (event_name[ev] && word_is(s, n, event_name[ev])) {
			pol->events |= 1u << ev;
			return 0;
		}
	}
	if (n && s[0] == '!') {
		flags = PMUVIRT_POLICY_EXCLUDE;
		s++;
		n--;
	}
	if (!n || s[0] != 'r')
		return -EINVAL;
	s++;
	n--;
	if (pol->nr_raw >= PMUVIRT_POLICY_MAX_RAW)
		return -EINVAL;
	r = &pol->raw[pol->nr_raw];
	for (slash = 0; slash < n && s[slash] != '/'; slash++)
		;
	ret = parse_hex(s, slash, &r->match);
	if (ret)
		return ret;
	if (slash < n) {
		ret = parse_hex(s + slash + 1, n - slash - 1, &r->mask);
		if (ret)
			return ret;
	} else {
		r->mask = ~(uint64_t)0;
	}
	if (r->match & ~r->mask)
		return -EINVAL;	/* it could never match */
	r->flags = flags;
	r->reserved = 0;
	pol->nr_raw++;
	return 0;
}

int pmuvirt_policy_parse(const char *s, size_t len, struct pmuvirt_policy *pol, bool *set)
{
	struct pmuvirt_policy p = { .version = PMUVIRT_ABI_VERSION };
	size_t i = 0, end = len, w;
	int ret;

	while (i < end && is_ws(s[i]))
		i++;
	while (end > i && is_ws(s[end - 1]))
		end--;
	if (i == end) {
		*set = false;
		return 0;
	}
	for (w = i; w < end && !is_ws(s[w]); w++)
		;
	if (word_is(s + i, w - i, "allow"))
		p.action = PMUVIRT_POLICY_ALLOW;
	else if (word_is(s + i, w - i, "deny"))
		p.action = PMUVIRT_POLICY_DENY;
	else
		return -EINVAL;
	i = w;
	while (i < end && is_ws(s[i]))
		i++;
	/* the list: items separated by single commas, no whitespace inside */
	while (i < end) {
		size_t j;

		for (j = i; j < end && s[j] != ','; j++)
			if (is_ws(s[j]) || !s[j])
				return -EINVAL;
		ret = parse_item(s + i, j - i, &p);
		if (ret)
			return ret;
		if (j == end)
			break;
		i = j + 1;
		if (i == end)
			return -EINVAL;	/* a trailing comma */
	}
	*pol = p;
	*set = true;
	return 0;
}

/* Output with a bound: every put() after the buffer is full only counts. */
struct out {
	char *buf;
	size_t size, len;
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_str(struct out *o, const char *s)
{
	while (*s)
		put_char(o, *s++);
}

static void put_hex(struct out *o, uint64_t v)
{
	static const char digit[] = "0123456789abcdef";
	int shift = 60;

	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		put_char(o, digit[(v >> shift) & 0xf]);
}

int pmuvirt_policy_format(const struct pmuvirt_policy *pol, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	bool first = true;
	unsigned int ev, i;

	/* the text has no flags: a policy with one would read back without it */
	if (pmuvirt_policy_validate(pol) || pol->flags)
		return -EINVAL;
	put_str(&o, pol->action == PMUVIRT_POLICY_ALLOW ? "allow" : "deny");
	for (ev = 0; ev < PMUVIRT_EV_NR; ev++) {
		if (!(pol->events & (1u << ev)))
			continue;
		put_char(&o, first ? ' ' : ',');
		first = false;
		put_str(&o, event_name[ev]);
	}
	for (i = 0; i < pol->nr_raw; i++) {
		const struct pmuvirt_policy_raw *r = &pol->raw[i];

		put_char(&o, first ? ' ' : ',');
		first = false;
		if (r->flags & PMUVIRT_POLICY_EXCLUDE)
			put_char(&o, '!');
		put_char(&o, 'r');
		put_hex(&o, r->match);
		if (r->mask != ~(uint64_t)0) {
			put_char(&o, '/');
			put_hex(&o, r->mask);
		}
	}
	if (o.len + 1 > size) {
		if (size)
			buf[0] = '\0';
		return -ENOSPC;
	}
	buf[o.len] = '\0';
	return (int)o.len;
}
