/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A strict model of an idealised PMU, used to test the core at any counter
 * width and overflow threshold: NR general counters of one width, one TSC,
 * one enable register.  Registers: 0..NR-1 event selects (bit 63 enable,
 * low bits event id), 0x100+i counter values, 0x200 global enable.
 * Any other access, or a select with unknown bits, is an error.
 */
#ifndef MOCK_PMU_H
#define MOCK_PMU_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pmuvirt_arch.h"
#include "rig.h"

#define MOCK_NR		4
#define MOCK_EN		((uint64_t)1 << 63)
#define MOCK_GLOBAL	0x200
#define MOCK_CTR(i)	(0x100 + (i))

struct mock_hw {
	uint64_t sel[MOCK_NR];
	uint64_t ctr[MOCK_NR];
	uint64_t global;
	uint64_t tsc;
	unsigned int width;
	uint64_t threshold;
	uint64_t reads, writes, errors;
	uint64_t fail_at;	/* fail the n-th access from now */
	struct pmuvirt_pcpu *pc;	/* PMI target */
	uint32_t last_ovf;
	unsigned int pmis;
	bool in_pmi;
};

/* Count an access in *@count; -EFAULT when it is the one m->fail_at asks to fail. */
static int mock_access(struct mock_hw *m, uint64_t *count)
{
	(*count)++;
	if (m->fail_at && --m->fail_at == 0)
		return -EFAULT;
	return 0;
}

static int mock_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct mock_hw *m = arg;

	if (mock_access(m, &m->reads))
		return -EFAULT;
	if (reg < MOCK_NR)
		*val = m->sel[reg];
	else if (reg == MOCK_GLOBAL)
		*val = m->global;
	else
		return m->errors++, -EFAULT;
	return 0;
}

static int mock_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	struct mock_hw *m = arg;
	uint64_t mask = pmuvirt_width_mask(m->width);

	if (mock_access(m, &m->writes))
		return -EFAULT;
	if (reg < MOCK_NR) {
		if (val & ~(MOCK_EN | 0xff))
			return m->errors++, -EFAULT;
		m->sel[reg] = val;
	} else if (reg >= MOCK_CTR(0) && reg < MOCK_CTR(MOCK_NR)) {
		if (val & ~mask)
			return m->errors++, -EFAULT;
		m->ctr[reg - MOCK_CTR(0)] = val;
	} else if (reg == MOCK_GLOBAL) {
		if (val > 1)
			return m->errors++, -EFAULT;
		m->global = val;
	} else {
		return m->errors++, -EFAULT;
	}
	return 0;
}

static int mock_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	struct mock_hw *m = arg;

	if (mock_access(m, &m->reads))
		return -EFAULT;
	if (idx >= MOCK_NR)
		return m->errors++, -EFAULT;
	*val = m->ctr[idx];
	return 0;
}

static int mock_read_tsc(void *arg, uint64_t *val)
{
	struct mock_hw *m = arg;

	if (mock_access(m, &m->reads))
		return -EFAULT;
	*val = m->tsc;
	return 0;
}

static const struct pmuvirt_hw_ops mock_hw_ops = {
	.read_reg = mock_read_reg,
	.write_reg = mock_write_reg,
	.read_counter = mock_read_counter,
	.read_tsc = mock_read_tsc,
};

/* Events of kind @ev (1..4); a PMI at the exact event of each threshold crossing. */
static inline void mock_run(struct mock_hw *m, unsigned int ev, uint64_t n)
{
	uint64_t mask = pmuvirt_width_mask(m->width);

	m->tsc += n;
	while (n) {
		uint64_t step = n;
		int hit = -1;
		unsigned int i;

		if (!m->global)
			return;
		for (i = 0; i < MOCK_NR; i++) {
			uint64_t dist;

			if (!(m->sel[i] & MOCK_EN) || (m->sel[i] & 0xff) != ev)
				continue;
			dist = (m->threshold - m->ctr[i]) & mask;
			if (!dist)
				dist = mask + 1 ? mask + 1 : ~(uint64_t)0;
			if (dist <= step) {
				step = dist;
				hit = (int)i;
			}
		}
		for (i = 0; i < MOCK_NR; i++)
			if ((m->sel[i] & MOCK_EN) && (m->sel[i] & 0xff) == ev)
				m->ctr[i] = (m->ctr[i] + step) & mask;
		n -= step;
		if (hit >= 0 && m->pc && !m->in_pmi) {
			uint32_t ovf = 0;

			m->in_pmi = true;
			m->pmis++;
			pmuvirt_pmi(m->pc, &ovf);
			m->last_ovf |= ovf;
			m->in_pmi = false;
		}
	}
}

/* The backend. */
static int mock_encode(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
		       const uint8_t *slots, struct pmuvirt_hwctl *img, struct pmuvirt_error *err)
{
	unsigned int i;

	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_slot *s = &pmu->slot[slots[i]];

		if (s->cls == PMUVIRT_CLASS_TSC)
			continue;
		if ((ctl->counter[i].flags & PMUVIRT_CTR_RAW) && ctl->counter[i].event > 4)
			return pmuvirt_fail(err, (int)i, "raw event unknown to the mock", -EOPNOTSUPP);
		img->reg[s->index] = MOCK_EN | ctl->counter[i].event;
	}
	img->used = (1u << MOCK_NR) - 1;
	img->reg[15] = 1;
	img->used |= 1u << 15;
	return 0;
}

static int mock_load(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	unsigned int i;
	int ret, n = 0;

	for (i = 0; i < MOCK_NR; i++) {
		ret = pmuvirt_cache_write(pc, i, i, ctx->img.reg[i]);
		if (ret < 0)
			return ret;
		n += ret;
	}
	ret = pmuvirt_cache_write(pc, 15, MOCK_GLOBAL, 1);
	return ret < 0 ? ret : n + ret;
}

static int mock_stop(struct pmuvirt_pcpu *pc)
{
	return pmuvirt_cache_write(pc, 15, MOCK_GLOBAL, 0);
}

static int mock_read(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *val)
{
	if (pc->pmu->slot[slot].cls == PMUVIRT_CLASS_TSC)
		return pmuvirt_hw_read_tsc(pc, val);
	return pmuvirt_hw_read_counter(pc, slot, val);
}

static int mock_write(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t val)
{
	return pmuvirt_hw_write_reg(pc, MOCK_CTR(slot), val);
}

static int mock_pmi_begin(struct pmuvirt_pcpu *pc, uint32_t *status)
{
	*status = (1u << MOCK_NR) - 1;
	return 0;
}

static int mock_pmi_end(struct pmuvirt_pcpu *pc, uint32_t clear)
{
	return 0;
}

static const struct pmuvirt_arch_ops mock_ops = {
	.name = "mock",
	.encode = mock_encode,
	.load = mock_load,
	.stop = mock_stop,
	.read = mock_read,
	.write = mock_write,
	.pmi_begin = mock_pmi_begin,
	.pmi_end = mock_pmi_end,
};

static void mock_pmu_init(struct pmuvirt_pmu *pmu, unsigned int width, uint64_t threshold)
{
	unsigned int i;

	memset(pmu, 0, sizeof(*pmu));
	pmu->ops = &mock_ops;
	pmu->arch = PMUVIRT_ARCH_NONE;
	pmu->nr_slots = MOCK_NR + 1;
	pmu->nr_gp = MOCK_NR;
	snprintf(pmu->name, sizeof(pmu->name), "mock w%u", width);
	for (i = 0; i < MOCK_NR; i++) {
		pmu->slot[i].cls = PMUVIRT_CLASS_GP;
		pmu->slot[i].index = (uint8_t)i;
		pmu->slot[i].width = (uint8_t)width;
		pmu->slot[i].events = 0x1e;
		pmu->slot[i].user_index = i + 1;
		pmu->slot[i].threshold = threshold;
	}
	pmu->slot[MOCK_NR].cls = PMUVIRT_CLASS_TSC;
	pmu->slot[MOCK_NR].width = 64;
	pmu->slot[MOCK_NR].events = 1u << PMUVIRT_EV_TSC;
	pmu->slot[MOCK_NR].user_index = PMUVIRT_SHARED_TSC;
}

static inline void mock_hw_init(struct mock_hw *m, unsigned int width, uint64_t threshold)
{
	memset(m, 0, sizeof(*m));
	m->width = width;
	m->threshold = threshold;
}

/* Build a control: ev[i] = event, per[i] = period (0 = a-mode). */
static void make_control(struct pmuvirt_control *ctl, unsigned int n, const unsigned int *ev,
			 const uint64_t *per)
{
	unsigned int i;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = n;
	for (i = 0; i < n; i++) {
		ctl->counter[i].event = ev[i];
		ctl->counter[i].period = per ? per[i] : 0;
		ctl->counter[i].flags = ev[i] == PMUVIRT_EV_TSC ? 0 : PMUVIRT_CTR_USER;
	}
}

/* make_control() into @ctl, then @ctx (on no CPU) takes it: it must be accepted. */
static inline void mock_set_control(struct pmuvirt_ctx *ctx, struct pmuvirt_control *ctl,
				    unsigned int n, const unsigned int *ev, const uint64_t *per)
{
	make_control(ctl, n, ev, per);
	assert_int_equal(pmuvirt_set_control(NULL, ctx, ctl, NULL), 0);
}

#endif
