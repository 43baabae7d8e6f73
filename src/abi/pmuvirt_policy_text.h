/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The text form of an event policy (struct pmuvirt_policy, abi.h), for
 * hosts that take a policy from an administrator as text (pmuvirt.ko's
 * user_event_policy parameter):
 *
 *	text	:= ws* [ action [ ws+ item ( "," item )* ] ] ws*
 *	action	:= "allow" | "deny"
 *	item	:= "instructions" | "cycles" | "branches" | "branch-misses" | "tsc"
 *		 | [ "!" ] "r" hex [ "/" hex ]
 *	hex	:= 1 to 16 of 0-9 a-f A-F
 *	ws	:= space, tab, newline
 *
 * "rCODE" lists the raw code CODE exactly (mask all 64 bits), "rCODE/MASK"
 * every raw code c with (c & MASK) == CODE, and a leading "!" makes the
 * entry an exclude entry (PMUVIRT_POLICY_EXCLUDE).  The empty text (or
 * whitespace) is no policy at all.  Words are lower case.
 */
#ifndef PMUVIRT_POLICY_TEXT_H
#define PMUVIRT_POLICY_TEXT_H

#include <pmuvirt/pmuvirt.h>

/*
 * Bytes the canonical text of any valid policy fits in, its NUL included:
 * "allow " (6), the five event names with commas (47), and 32 entries
 * "!r" + 16 + "/" + 16 digits with a comma (36 each).
 */
#define PMUVIRT_POLICY_TEXT_MAX	1216

/**
 * pmuvirt_policy_parse() - read an event policy from its text form
 * @s:		the text; it need not end with a NUL (a NUL inside is an error).
 * @len:	bytes at @s.
 * @pol:	on success the policy (unused @raw entries zero), which
 *		pmuvirt_policy_validate() accepts; unchanged on failure.
 * @set:	on success, false when the text is empty (no policy: @pol is
 *		left unchanged), true when it names a policy.
 *
 * Strict: an unknown word, a missing or empty item, a hex number that is
 * empty, longer than 16 digits or holds another character, a code with
 * bits outside its mask, or more than PMUVIRT_POLICY_MAX_RAW raw entries
 * are refused.  A portable event listed twice is listed once.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_policy_parse(const char *s, size_t len, struct pmuvirt_policy *pol, bool *set);

/**
 * pmuvirt_policy_format() - the canonical text form of an event policy
 * @pol:	the policy.
 * @buf:	where the text goes, NUL-terminated.
 * @size:	bytes at @buf (PMUVIRT_POLICY_TEXT_MAX is always enough).
 *
 * The action, then the listed portable events in enum pmuvirt_event order,
 * then the raw entries in their order: "r" and the code in lower-case hex
 * without leading zeros, "/" and the mask unless it is all ones, "!" before
 * an exclude entry.  pmuvirt_policy_parse() of the text gives @pol back.
 *
 * Return: the length of the text (without the NUL); -EINVAL when
 * pmuvirt_policy_validate() refuses @pol or @pol has a flag (the text form
 * has none), -ENOSPC when @size is too small
 * (@buf then holds an empty string if @size is not 0).
 */
int pmuvirt_policy_format(const struct pmuvirt_policy *pol, char *buf, size_t size);

#endif /* PMUVIRT_POLICY_TEXT_H */
