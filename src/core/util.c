/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Error strings and 64-bit division. */
#include "pmuvirt_arch.h"

const char *pmuvirt_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument or control";
	case -ENODEV:
		return "no such counter or PMU";
	case -EBUSY:
		return "busy: in use elsewhere";
	case -EOPNOTSUPP:
		return "event or feature not supported by this PMU";
	case -ERANGE:
		return "value out of range";
	case -ENOSPC:
		return "not enough counters";
	case -EFAULT:
		return "register access failed";
	case -EPERM:
		return "event not permitted by policy";
	case -EPROTO:
		return "unusable description from the level below";
	default:
		return "unknown error";
	}
}

uint64_t pmuvirt_div64(uint64_t n, uint64_t d)
{
	uint64_t q = 0, r = 0;
	int bit;

	for (bit = 63; bit >= 0; bit--) {
		r = (r << 1) | ((n >> bit) & 1);
		if (r >= d) {
			r -= d;
			q |= (uint64_t)1 << bit;
		}
	}
	return q;
}

int pmuvirt_fail(struct pmuvirt_error *err, int counter, const char *reason, int code)
{
	if (err) {
		err->counter = counter;
		err->reason = reason;
	}
	return code;
}
