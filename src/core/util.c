/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Error strings, counted register access and 64-bit division. */
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

int pmuvirt_hw_read_reg(struct pmuvirt_pcpu *pc, uint32_t reg, uint64_t *val)
{
	pc->stats.reg_reads++;
	return pc->hw->read_reg(pc->hw_arg, reg, val);
}

int pmuvirt_hw_write_reg(struct pmuvirt_pcpu *pc, uint32_t reg, uint64_t val)
{
	pc->stats.reg_writes++;
	return pc->hw->write_reg(pc->hw_arg, reg, val);
}

int pmuvirt_hw_write_ctl(struct pmuvirt_pcpu *pc, uint32_t reg, uint64_t val)
{
	pc->stats.ctl_writes++;
	return pmuvirt_hw_write_reg(pc, reg, val);
}

int pmuvirt_hw_read_counter(struct pmuvirt_pcpu *pc, uint32_t idx, uint64_t *val)
{
	pc->stats.reg_reads++;
	return pc->hw->read_counter(pc->hw_arg, idx, val);
}

int pmuvirt_hw_read_tsc(struct pmuvirt_pcpu *pc, uint64_t *val)
{
	pc->stats.reg_reads++;
	return pc->hw->read_tsc(pc->hw_arg, val);
}

int pmuvirt_cache_write(struct pmuvirt_pcpu *pc, unsigned int i, uint32_t reg, uint64_t val)
{
	uint32_t bit = 1u << i;
	int ret;

	if ((pc->cache_known & bit) && pc->cache.reg[i] == val)
		return 0;
	pc->cache_known &= ~bit;
	ret = pmuvirt_hw_write_ctl(pc, reg, val);
	if (ret)
		return ret < 0 ? ret : -EFAULT;
	pc->cache.reg[i] = val;
	pc->cache_known |= bit;
	return 1;
}
