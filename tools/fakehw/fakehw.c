/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Common part of the fake hardware: dispatch, statistics, fault injection. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "fakehw_priv.h"

struct fakehw *fakehw_alloc(const struct fakehw_impl *impl, void *priv)
{
	struct fakehw *hw = calloc(1, sizeof(*hw));

	if (!hw) {
		free(priv);
		return NULL;
	}
	hw->impl = impl;
	hw->priv = priv;
	return hw;
}

void fakehw_free(struct fakehw *hw)
{
	if (!hw)
		return;
	free(hw->priv);
	free(hw);
}

int fakehw_error(struct fakehw *hw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hw->last_error, sizeof(hw->last_error), fmt, ap);
	va_end(ap);
	hw->stats.errors++;
	return -EFAULT;
}

void fakehw_deliver_pmi(struct fakehw *hw)
{
	hw->stats.pmis++;
	if (hw->pmi)
		hw->pmi(hw->pmi_arg);
}

int fakehw_raise_pmi(struct fakehw *hw)
{
	if (hw->alert_hook)
		hw->alert_hook(hw->alert_arg, false);
	fakehw_deliver_pmi(hw);
	return 0;
}

void fakehw_note_access_alert(struct fakehw *hw)
{
	hw->stats.access_alerts++;
	if (hw->alert_hook)
		hw->alert_hook(hw->alert_arg, true);
}

/* Count an access in *@count; true when it is the one fault injection asked to fail. */
static bool count_access(struct fakehw *hw, uint64_t *count)
{
	(*count)++;
	if (!hw->fail_countdown)
		return false;
	if (--hw->fail_countdown)
		return false;
	snprintf(hw->last_error, sizeof(hw->last_error), "injected fault");
	return true;
}

static int fake_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct fakehw *hw = arg;

	if (count_access(hw, &hw->stats.reg_reads))
		return -EFAULT;
	return hw->impl->read_reg(hw, reg, val);
}

static int fake_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	struct fakehw *hw = arg;

	int ret, k;

	if (count_access(hw, &hw->stats.reg_writes))
		return -EFAULT;
	ret = hw->impl->write_reg(hw, reg, val);
	k = ret ? -1 : hw->impl->counter_of(hw, reg);
	if (k >= 0)
		hw->taint[k] = 0;
	return ret;
}

static int fake_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	struct fakehw *hw = arg;

	if (count_access(hw, &hw->stats.counter_reads))
		return -EFAULT;
	return hw->impl->read_counter(hw, idx, val);
}

static int fake_read_tsc(void *arg, uint64_t *val)
{
	struct fakehw *hw = arg;

	if (count_access(hw, &hw->stats.tsc_reads))
		return -EFAULT;
	*val = hw->tsc;
	return 0;
}

static int fake_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	struct fakehw *hw = arg;

	if (!hw->impl->cpuid)
		return fakehw_error(hw, "cpuid on a CPU without CPUID");
	return hw->impl->cpuid(hw, leaf, sub, out);
}

static const struct pmuvirt_hw_ops fakehw_hw_ops;

/* Each read checked and counted as fake_read_counter() and fake_read_tsc() do it. */
static int fake_read_counters(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals)
{
	return pmuvirt_hw_read_each(&fakehw_hw_ops, arg, idx, n, vals);
}

static const struct pmuvirt_hw_ops fakehw_hw_ops = {
	.read_reg = fake_read_reg,
	.write_reg = fake_write_reg,
	.read_counter = fake_read_counter,
	.read_tsc = fake_read_tsc,
	.read_cpuid = fake_cpuid,
	.read_counters = fake_read_counters,
};

const struct pmuvirt_hw_ops *fakehw_ops(const struct fakehw *hw)
{
	(void)hw;
	return &fakehw_hw_ops;
}

void fakehw_set_pmi(struct fakehw *hw, void (*fn)(void *arg), void *arg)
{
	hw->pmi = fn;
	hw->pmi_arg = arg;
}

void fakehw_set_alert_hook(struct fakehw *hw, void (*fn)(void *arg, bool by_access), void *arg)
{
	hw->alert_hook = fn;
	hw->alert_arg = arg;
}

int fakehw_run(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel)
{
	if ((unsigned int)ev >= FAKEHW_NR_EVENTS)
		return fakehw_error(hw, "fakehw_run: unknown event %d", (int)ev);
	uint32_t on;

	if (ev == FAKEHW_CYCLES)
		hw->tsc += n;
	for (on = hw->impl->enabled(hw); on; on &= on - 1)
		hw->taint[__builtin_ctz(on)] |= hw->label;
	return hw->impl->run(hw, ev, n, kernel);
}

void fakehw_set_label(struct fakehw *hw, uint64_t label)
{
	hw->label = label;
}

uint64_t fakehw_taint(const struct fakehw *hw)
{
	uint64_t t = 0;
	unsigned int k;

	for (k = 0; k < FAKEHW_MAX_COUNTERS; k++)
		t |= hw->taint[k];
	return t;
}

void fakehw_advance_tsc(struct fakehw *hw, uint64_t n)
{
	hw->tsc += n;
}

const struct fakehw_stats *fakehw_stats(const struct fakehw *hw)
{
	return &hw->stats;
}

void fakehw_reset_stats(struct fakehw *hw)
{
	struct fakehw_stats zero = { 0 };

	hw->stats = zero;
}

const char *fakehw_last_error(const struct fakehw *hw)
{
	return hw->last_error[0] ? hw->last_error : "";
}

void fakehw_fail_access(struct fakehw *hw, uint64_t n)
{
	hw->fail_countdown = n;
}

int fakehw_peek(const struct fakehw *hw, uint32_t reg, uint64_t *val)
{
	return hw->impl->peek(hw, reg, val);
}

int fakehw_poke(struct fakehw *hw, uint32_t reg, uint64_t val)
{
	return hw->impl->poke(hw, reg, val);
}
