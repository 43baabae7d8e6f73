/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A context's virtual state as a blob (struct pmuvirt_saved_ctx), for a
 * hypervisor's save stream and migration.  The blob comes back from
 * outside, so restore checks every field before it changes the context.
 */
#include "pmuvirt_arch.h"

_Static_assert(sizeof(struct pmuvirt_saved_ctx) == 872 && sizeof(struct pmuvirt_saved_ctx) % 8 == 0,
	       "the saved context's layout is part of the ABI");

uint32_t pmuvirt_saved_check(const struct pmuvirt_saved_ctx *s)
{
	const uint8_t *b = (const uint8_t *)s;
	const uint8_t *end = b + __builtin_offsetof(struct pmuvirt_saved_ctx, check);
	uint32_t h = 0x811c9dc5u;

	while (b < end) {
		h ^= *b++;
		h *= 0x01000193u;
	}
	return h;
}

/* Does @ctl describe what @ctx counts (with @part: its first counters)? */
static bool control_matches(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			    bool part)
{
	unsigned int i;

	if (part ? ctl->nr_counters > ctx->nr_counters : ctl->nr_counters != ctx->nr_counters)
		return false;
	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *cc = &ctl->counter[i];
		const struct pmuvirt_counter *c = &ctx->counter[i];

		if (c->event != pmuvirt_ctl_event(cc) || !cc->period != !c->period)
			return false;
	}
	return true;
}

static int save(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
		struct pmuvirt_saved_ctx *out, bool part)
{
	unsigned int i;

	if (!ctx || !ctl || !out || !(ctx->flags & PMUVIRT_CTX_HAS_CONTROL))
		return -EINVAL;
	if (ctx->running_on)
		return -EBUSY;
	if (ctx->flags & PMUVIRT_CTX_FAULTED)
		return -EFAULT;
	if (ctl->nr_counters > PMUVIRT_MAX_COUNTERS || !control_matches(ctx, ctl, part))
		return -EINVAL;
	*out = (struct pmuvirt_saved_ctx){ 0 };
	out->magic = PMUVIRT_SAVED_MAGIC;
	out->version = PMUVIRT_SAVED_VERSION;
	out->size = sizeof(*out);
	out->ctl = *ctl;
	for (i = ctl->nr_counters; i < PMUVIRT_MAX_COUNTERS; i++) {
		struct pmuvirt_counter_ctl none = { 0 };

		out->ctl.counter[i] = none;
	}
	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter *c = &ctx->counter[i];

		out->count[i] = c->count;
		if (c->period) {
			out->period[i] = c->period;
			out->next_ovf[i] = c->next_ovf;
			out->pending[i] = c->pending;
		}
	}
	out->check = pmuvirt_saved_check(out);
	return 0;
}

int pmuvirt_ctx_save(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
		     struct pmuvirt_saved_ctx *out)
{
	return save(ctx, ctl, out, false);
}

int pmuvirt_ctx_save_part(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			  struct pmuvirt_saved_ctx *out)
{
	return save(ctx, ctl, out, true);
}

/* Every field but the control: the header, the check and the counters. */
static int check_blob(const struct pmuvirt_saved_ctx *in, struct pmuvirt_error *err)
{
	unsigned int i, n;

	if (in->magic != PMUVIRT_SAVED_MAGIC)
		return pmuvirt_fail(err, -1, "not a saved context (magic or byte order)", -EINVAL);
	if (in->version != PMUVIRT_SAVED_VERSION)
		return pmuvirt_fail(err, -1, "saved context of another version", -EINVAL);
	if (in->size != sizeof(*in) || in->flags || in->reserved)
		return pmuvirt_fail(err, -1, "saved context: bad size or reserved field", -EINVAL);
	if (in->check != pmuvirt_saved_check(in))
		return pmuvirt_fail(err, -1, "saved context is corrupted (check)", -EINVAL);
	n = in->ctl.nr_counters;
	if (n > PMUVIRT_MAX_COUNTERS)
		return pmuvirt_fail(err, -1, "saved context: too many counters", -EINVAL);
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
		const struct pmuvirt_counter_ctl *cc = &in->ctl.counter[i];
		uint64_t next = in->next_ovf[i], count = in->count[i], period = in->period[i];

		if (i >= n) {
			if (count || period || next || in->pending[i])
				return pmuvirt_fail(err, (int)i, "saved context: state past the last counter",
						    -EINVAL);
			/* pmuvirt_ctx_save() clears them; pmuvirt_validate() does not look. */
			if (cc->event || cc->period || cc->flags || cc->reserved)
				return pmuvirt_fail(err, (int)i, "saved control past the last counter",
						    -EINVAL);
			continue;
		}
		if (!in->ctl.counter[i].period) {
			if (period || next || in->pending[i])
				return pmuvirt_fail(err, (int)i, "saved a-mode counter with i-mode state",
						    -EINVAL);
			continue;
		}
		if (!period || period > PMUVIRT_PERIOD_MAX)
			return pmuvirt_fail(err, (int)i, "saved period out of range", -EINVAL);
		/* Modulo 2^64, as the counter counts (ctx.c, collect_overflows()). */
		if (next == count || next - count > PMUVIRT_ARM_REMAINING_MAX)
			return pmuvirt_fail(err, (int)i, "saved next notification not 1 to 2^63 ahead",
					    -EINVAL);
	}
	return 0;
}

int pmuvirt_ctx_restore_own(struct pmuvirt_ctx *ctx, const struct pmuvirt_saved_ctx *in,
			    unsigned int nr_own, struct pmuvirt_error *err)
{
	unsigned int i;
	int ret;

	if (!ctx || !in)
		return pmuvirt_fail(err, -1, "no context or blob", -EINVAL);
	if (ctx->running_on)
		return pmuvirt_fail(err, -1, "context runs on a CPU", -EBUSY);
	ret = check_blob(in, err);
	if (ret)
		return ret;
	/* Validates the control and changes nothing unless it is good. */
	ret = pmuvirt_ctx_load_control(ctx, &in->ctl, err);
	if (ret)
		return ret;
	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];

		c->count = in->count[i];
		if (c->period) {
			c->period = in->period[i];
			c->next_ovf = in->next_ovf[i];
			c->pending = in->pending[i];
		}
	}
	ctx->nr_shared = (uint16_t)(nr_own < ctx->nr_counters ? nr_own : ctx->nr_counters);
	/* Once, with the final state: a reader never sees the counts zeroed on the way. */
	pmuvirt_ctx_publish(ctx);
	return 0;
}

int pmuvirt_ctx_restore(struct pmuvirt_ctx *ctx, const struct pmuvirt_saved_ctx *in,
			struct pmuvirt_error *err)
{
	return pmuvirt_ctx_restore_own(ctx, in, PMUVIRT_MAX_COUNTERS, err);
}
