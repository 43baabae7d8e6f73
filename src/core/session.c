/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A system-wide session's counters next to a context's own: the
 * arbitration rule (both fit on the PMU, or whoever asks second gets
 * -EBUSY) and the joining and leaving of a context that keep its own
 * logical counts, periods and pending notifications (through a saved
 * blob, save.c).  The session's counters come after the context's own;
 * the shared record shows only the own ones (ctx->nr_shared).
 */
#include "pmuvirt_arch.h"

int pmuvirt_session_merge(const struct pmuvirt_control *own, const struct pmuvirt_control *session,
			  struct pmuvirt_control *out)
{
	unsigned int n = own ? own->nr_counters : 0, m = session->nr_counters, i;

	if (n > PMUVIRT_MAX_COUNTERS || m > PMUVIRT_MAX_COUNTERS || n + m > PMUVIRT_MAX_COUNTERS)
		return -EBUSY;
	*out = (struct pmuvirt_control){ 0 };
	out->version = PMUVIRT_ABI_VERSION;
	out->nr_counters = n + m;
	for (i = 0; i < n; i++) {
		out->counter[i] = own->counter[i];
		/* The session's records are the only ones its ring takes. */
		out->counter[i].flags &= ~(PMUVIRT_CTR_SAMPLE | PMUVIRT_CTR_SAMPLE_VALUES);
	}
	for (i = 0; i < m; i++)
		out->counter[n + i] = session->counter[i];
	return 0;
}

int pmuvirt_session_fits(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *own,
			 const struct pmuvirt_control *session, unsigned int max_counters,
			 struct pmuvirt_error *err)
{
	struct pmuvirt_control merged;
	int ret = pmuvirt_session_merge(own, session, &merged);

	if (!ret && merged.nr_counters > max_counters)
		ret = -EBUSY;
	if (!ret) {
		ret = pmuvirt_validate(pmu, &merged, max_counters, NULL, NULL, err);
		if (ret == -ENOSPC)
			ret = -EBUSY;
	}
	if (ret == -EBUSY)
		return pmuvirt_fail(err, -1,
				    "the PMU has no counters for both this control and the profiling session",
				    -EBUSY);
	return ret;
}

/* @ctx counts @to from zero, its first @nr_own counters its own: published once. */
static int recount_fresh(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *to,
			 unsigned int nr_own, struct pmuvirt_error *err)
{
	int ret = pmuvirt_ctx_load_control(ctx, to, err);

	if (ret)
		return ret;
	ctx->nr_shared = (uint16_t)nr_own;
	pmuvirt_ctx_publish(ctx);
	return 0;
}

/*
 * @ctx counts @from; make it count @to, whose first @keep counters are
 * @from's, keeping their state, and whose first @nr_own are the owner's
 * to see.  Refused unless the caller's arguments are sound (@args_ok) and
 * @ctx is off every CPU.  The shared record is published once, with the
 * final state.
 */
static int recount(struct pmuvirt_ctx *ctx, bool args_ok, const struct pmuvirt_control *from,
		   const struct pmuvirt_control *to, unsigned int keep, unsigned int nr_own,
		   struct pmuvirt_saved_ctx *blob, struct pmuvirt_error *err)
{
	unsigned int i;
	int ret;

	if (!args_ok)
		return pmuvirt_fail(err, -1, "bad arguments", -EINVAL);
	if (ctx->running_on)
		return pmuvirt_fail(err, -1, "context runs on a CPU", -EBUSY);
	if (!(ctx->flags & PMUVIRT_CTX_HAS_CONTROL) || !from || !keep)
		return recount_fresh(ctx, to, nr_own, err);
	ret = pmuvirt_ctx_save(ctx, from, blob);
	/* A faulted context's counts are not known: it starts again. */
	if (ret == -EFAULT)
		return recount_fresh(ctx, to, nr_own, err);
	if (ret)
		return pmuvirt_fail(err, -1, "the context does not count that control", ret);
	blob->ctl = *to;
	for (i = keep; i < PMUVIRT_MAX_COUNTERS; i++) {
		uint64_t period = i < to->nr_counters ? to->counter[i].period : 0;

		/* As pmuvirt_ctx_save() leaves them: nothing past the last counter. */
		if (i >= to->nr_counters)
			blob->ctl.counter[i] = (struct pmuvirt_counter_ctl){ 0 };
		blob->count[i] = 0;
		blob->period[i] = period;
		blob->next_ovf[i] = period;
		blob->pending[i] = 0;
	}
	blob->check = pmuvirt_saved_check(blob);
	return pmuvirt_ctx_restore_own(ctx, blob, nr_own, err);
}

int pmuvirt_ctx_join(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *own,
		     const struct pmuvirt_control *merged, struct pmuvirt_sample_writer *w,
		     pmuvirt_sample_fill_fn fill, void *arg, struct pmuvirt_saved_ctx *scratch,
		     struct pmuvirt_error *err)
{
	unsigned int n = own ? own->nr_counters : 0;
	int ret = recount(ctx, ctx && merged && scratch && (!w || fill) && n <= merged->nr_counters,
			  own, merged, n, n, scratch, err);

	if (ret)
		return ret;
	return pmuvirt_ctx_attach_samples(ctx, w, fill, arg);
}

int pmuvirt_ctx_leave(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *own,
		      const struct pmuvirt_control *merged, struct pmuvirt_saved_ctx *scratch,
		      struct pmuvirt_error *err)
{
	unsigned int n = own ? own->nr_counters : 0;
	int ret = recount(ctx, ctx && own && merged && scratch && n <= merged->nr_counters,
			  merged, own, n, n, scratch, err);

	if (ret)
		return ret;
	return pmuvirt_ctx_attach_samples(ctx, NULL, NULL, NULL);
}
