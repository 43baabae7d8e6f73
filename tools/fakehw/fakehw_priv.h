/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Shared between the common fake dispatcher and the per-architecture models. */
#ifndef PMUVIRT_FAKEHW_PRIV_H
#define PMUVIRT_FAKEHW_PRIV_H

#include <errno.h>
#include "fakehw.h"

struct fakehw_impl {
	int (*read_reg)(struct fakehw *hw, uint32_t reg, uint64_t *val);
	int (*write_reg)(struct fakehw *hw, uint32_t reg, uint64_t val);
	int (*read_counter)(struct fakehw *hw, uint32_t idx, uint64_t *val);
	int (*cpuid)(struct fakehw *hw, uint32_t leaf, uint32_t sub, uint32_t out[4]);
	/* Count @n events; call fakehw_raise_pmi() at each exact overflow. */
	int (*run)(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel);
	int (*peek)(const struct fakehw *hw, uint32_t reg, uint64_t *val);
	int (*poke)(struct fakehw *hw, uint32_t reg, uint64_t val);
	/* Counters (model numbering, < FAKEHW_MAX_COUNTERS) that count as programmed. */
	uint32_t (*enabled)(const struct fakehw *hw);
	/* The counter register @reg writes, or -1. */
	int (*counter_of)(const struct fakehw *hw, uint32_t reg);
};

#define FAKEHW_MAX_COUNTERS	16

struct fakehw {
	const struct fakehw_impl *impl;
	struct fakehw_stats stats;
	uint64_t tsc;
	void (*pmi)(void *arg);
	void *pmi_arg;
	void (*alert_hook)(void *arg, bool by_access);
	void *alert_arg;
	uint64_t fail_countdown;	/* 0: no fault injection */
	char last_error[200];
	uint64_t label;			/* fakehw_set_label() */
	uint64_t taint[FAKEHW_MAX_COUNTERS];	/* labels since each counter's last write */
	void *priv;			/* the model's state */
};

/* A fake that owns @priv (freed, also when this fails). */
struct fakehw *fakehw_alloc(const struct fakehw_impl *impl, void *priv);
/* Record a refused access; returns -EFAULT. */
int fakehw_error(struct fakehw *hw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An event raises the PMI: the alert hook sees it, then the callback runs (counted); returns 0. */
int fakehw_raise_pmi(struct fakehw *hw);
/* A register write raised an alert: counted, and the alert hook sees it. */
void fakehw_note_access_alert(struct fakehw *hw);
/* Run the PMI callback (counted) for an interrupt raised earlier. */
void fakehw_deliver_pmi(struct fakehw *hw);

#endif
