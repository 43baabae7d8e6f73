// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Fuzz the Xen hypercall's argument checks (src/abi/xen_hcall.c) the way
 * src/glue/xen/pmuvirt_xen_hcall.c uses them, with the strict fake PMU as
 * the oracle.  A VCPU context (a) with a fuzzed control runs, or not, on
 * one fake CPU next to another VCPU (b); the input is a sequence of
 * hypercalls (any command, any bytes, any length) and steps (events,
 * switches, invalidation).
 *
 * Checked for every call: the checks agree with each other and with the
 * ABI (an argument is accepted exactly when it has the right header and
 * length, zero reserved and flags fields and a named domain in 16 bits,
 * as written again here, so a command's row that misses a field or names
 * a wrong one fails; ARM names only i-mode counters of a, with nonzero counts of at
 * most 2^63 that keep the logical count within 64 bits, and periods of at
 * most 2^62 on any counter width); a refused argument changes nothing
 * in the context; ARM's check and pmuvirt_arm_counters() return the same
 * errno; SET_POLICY's policy is accepted exactly when it keeps
 * the rules of abi.h; SET_CONTROL under the last accepted policy refuses
 * with -EPERM exactly the first counter the policy does not permit (by the
 * matching rule written again here), and otherwise gives
 * pmuvirt_validate()'s result; SET_CONTROL's privilege rule (PV kernel
 * mode to user mode, HVM kernel mode guest-only or refused) holds with
 * and without a PMU that can leave Xen out; MAP_PHYS's count and guest
 * frames are accepted exactly when the count is the domain's and every
 * frame is below the guest's limit and named once; a blob of the save
 * stream (the pseudo-command FUZZ_RESTORE) is refused by Xen exactly when
 * pmuvirt_ctx_restore() or the privilege rule refuses it, a refusal
 * leaves the context as it was, and whatever restores is a state the
 * library makes: it saves back byte for byte and restores again to the
 * same state, and after events its i-mode counters have notified exactly
 * at the boundaries passed (modulo 2^64) and it saves and restores again;
 * PROF_START's description is accepted exactly when it
 * keeps the rules of xen.h, and an accepted one that the PMU can count
 * joins the context a exactly when pmuvirt_session_fits() says both fit
 * (the merged control valid on the PMU), keeping a's own counts across
 * the join, events and PMIs in the session, and the leave, its records
 * naming only session counters; and after every accepted call and every
 * step the fake has refused no register access.
 *
 * Input: config byte, mode byte, the initial control of a, then records:
 * op (bits 0-1: 0 hypercall, else a step), and for a hypercall a command
 * byte (bit 7: four raw command bytes follow), with op bit 2 a two-byte
 * length (else the command's size), then the argument bytes; op bit 3
 * sets a valid header, bit 4 clears the reserved field, bit 5 makes a
 * SET_POLICY's policy well formed more often than not and gives a
 * FUZZ_RESTORE blob a good header and check (bit 6 also a control that
 * is valid more often than not, no state a save would not write and next
 * notifications in range); a MAP_PHYS record ends with one byte (the
 * domain's frame count, low 3 bits, and the guest's physical address
 * width) and up to 8 guest frames of 8 bytes.
 */
#include "fuzz_rig.h"
#include <pmuvirt/xen.h>
#include "pmuvirt_abi_check.h"
#include "../common/xen_arg_fields.h"

#define MAX_RECORDS	16
#define MAX_LEN		1024

/* Any argument, and room for the fuzzer's oversized ones. */
union xen_arg {
	union pmuvirt_xen_any_arg a;
	uint8_t bytes[MAX_LEN];
};

/* The ABI's rule for ARM, written from xen.h and pmuvirt.h. */
static bool arm_ok(const struct pmuvirt_xen_arm *op, const struct pmuvirt_ctx *ctx)
{
	unsigned int i;

	if (!op->mask)
		return false;
	for (i = 0; i < 32; i++) {
		const struct pmuvirt_counter *c;

		if (!(op->mask & (1u << i)))
			continue;
		if (i >= ctx->nr_counters)
			return false;
		c = &ctx->counter[i];
		if (!c->period || !op->remaining[i] || !op->period[i] ||
		    op->period[i] > (uint64_t)1 << 62)
			return false;
		/* the next notification's logical point must fit in 64 bits */
		if (op->remaining[i] > PMUVIRT_ARM_REMAINING_MAX ||
		    (unsigned __int128)c->count + op->remaining[i] > ~(uint64_t)0)
			return false;
	}
	return true;
}

/* The policy rules of abi.h, written again. */
static bool policy_ok(const struct pmuvirt_policy *p)
{
	unsigned int i;

	if (p->version != PMUVIRT_ABI_VERSION || p->action > 1 || p->flags > 1 || p->reserved ||
	    (p->events & ~0x3eu) || p->nr_raw > 32)
		return false;
	for (i = 0; i < p->nr_raw; i++)
		if (p->raw[i].reserved || p->raw[i].flags > 1 ||
		    (p->raw[i].match | p->raw[i].mask) != p->raw[i].mask)
			return false;
	return true;
}

static bool policy_allows(const struct pmuvirt_policy *p, const struct pmuvirt_counter_ctl *c)
{
	bool listed = false, excluded = false;
	unsigned int i;

	if (!(c->flags & PMUVIRT_CTR_RAW)) {
		listed = c->event < 6 && ((p->events >> c->event) & 1);
	} else {
		for (i = 0; i < p->nr_raw; i++) {
			if ((c->event & p->raw[i].mask) != p->raw[i].match)
				continue;
			if (p->raw[i].flags)
				excluded = true;
			else
				listed = true;
		}
		listed = listed && !excluded;
	}
	return p->action == PMUVIRT_POLICY_ALLOW ? listed : !listed;
}

/* The whole copy's rule, written from xen.h: header, length, zero fields, domain. */
static int arg_expect(union xen_arg *u, unsigned int cmd, size_t len, int hret)
{
	enum xen_arg_field f;

	if (hret)
		return hret;
	if (len != pmuvirt_xen_arg_size(cmd))
		return -EINVAL;
	for (f = XEN_RESERVED; f <= XEN_DOMID; f++) {
		const uint32_t *v = xen_arg_field(&u->a, cmd, f);

		if (v && *v > (f == XEN_DOMID ? 0xffffu : 0))
			return -EINVAL;
	}
	return 0;
}

/* The rules of a session's description (xen.h), written again. */
static bool prof_start_ok(const struct pmuvirt_xen_prof_start *op)
{
	const struct pmuvirt_control *c = &op->ctl;
	unsigned int i, j;

	if (op->nr_domains > 32 || op->ring_pages < 2 || op->ring_pages > 256 ||
	    (op->ring_pages & (op->ring_pages - 1)) || op->high_water_pct < 1 ||
	    op->high_water_pct > 100 || c->version != PMUVIRT_ABI_VERSION || c->nr_counters < 1 ||
	    c->nr_counters > 8 || (op->sample_format & ~0x1fu))
		return false;
	/* call chains: 1 to 127 frame slots with the chain bit, none without */
	if ((op->sample_format & 0x10u) ? op->chain_depth < 1 || op->chain_depth > 127 :
					   op->chain_depth != 0)
		return false;
	/* active bits only for listed domains */
	if (op->nr_domains < 32 && (op->active >> op->nr_domains))
		return false;
	for (i = 0; i < 32; i++) {
		if (i >= op->nr_domains ? op->domains[i] != 0 : op->domains[i] >= 0x7ff0)
			return false;
		for (j = 0; j < i && i < op->nr_domains; j++)
			if (op->domains[j] == op->domains[i])
				return false;
	}
	for (i = 0; i < c->nr_counters; i++)
		if (!c->counter[i].period || !(c->counter[i].flags & PMUVIRT_CTR_SAMPLE) ||
		    (c->counter[i].event == PMUVIRT_EV_TSC && !(c->counter[i].flags & PMUVIRT_CTR_RAW)))
			return false;
	return true;
}

/* What a counts: the last control set on it (has_own false: none yet). */
static struct pmuvirt_control own_a;
static bool has_own;

static void no_fill(void *arg, const struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx,
		    struct pmuvirt_sample *s, uint64_t *frames,
		 unsigned int max_frames)
{
}

/*
 * The glue's use of an accepted session: a joins it when both fit, counts
 * in it, leaves it, and its own counts are the same before and after each.
 */
static void session(struct rig *r, const struct pmuvirt_control *sess)
{
	static struct pmuvirt_saved_ctx scratch;
	static uint64_t ring[(128 + 64 * sizeof(struct pmuvirt_sample)) / 8];
	const struct pmuvirt_control *own = has_own ? &own_a : NULL;
	uint64_t before[PMUVIRT_MAX_COUNTERS], after[PMUVIRT_MAX_COUNTERS];
	struct pmuvirt_control merged;
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample *rec = (struct pmuvirt_sample *)((char *)ring + 128);
	bool running = r->pc.running == r->a, faulted = r->a->flags & PMUVIRT_CTX_FAULTED;
	unsigned int n = own ? own->nr_counters : 0, i;
	int f, m, v;

	f = pmuvirt_session_fits(&r->pmu, own, sess, r->a->max_counters, NULL);
	m = pmuvirt_session_merge(own, sess, &merged);
	if (m) {
		if (f != -EBUSY)
			abort();
		return;
	}
	v = pmuvirt_validate(&r->pmu, &merged, r->a->max_counters, NULL, NULL, NULL);
	if (f != (v == -ENOSPC ? -EBUSY : v))
		abort();
	if (f)
		return;
	if (running && pmuvirt_switch(&r->pc, NULL))
		return;	/* a fault: nothing to compare */
	pmuvirt_read(r->a, before);
	if (pmuvirt_sample_init(&w, ring, sizeof(ring), 64, 128, NULL) ||
	    pmuvirt_ctx_join(r->a, own, &merged, &w, no_fill, NULL, &scratch, NULL))
		abort();
	pmuvirt_read(r->a, after);
	if (r->a->nr_shared != n || r->a->nr_counters != merged.nr_counters ||
	    (!faulted && memcmp(before, after, n * sizeof(before[0]))))
		abort();
	for (i = 0; i < sess->nr_counters; i++)
		if (after[n + i])
			abort();
	/* events and PMIs in the session */
	if (pmuvirt_switch(&r->pc, r->a) == 0) {
		fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 1u << 16, false);
		fakehw_run(r->hw, FAKEHW_CYCLES, 1u << 16, true);
		fakehw_run(r->hw, FAKEHW_BRANCHES, 1u << 16, false);
		pmuvirt_switch(&r->pc, NULL);
	}
	rig_check(r);
	for (i = 0; i < w.head && i < 64; i++)
		if (rec[i].counter >= sess->nr_counters || rec[i].nr_values > sess->nr_counters)
			abort();
	faulted = r->a->flags & PMUVIRT_CTX_FAULTED;
	pmuvirt_read(r->a, before);
	if (pmuvirt_ctx_leave(r->a, own ? own : &(struct pmuvirt_control){
				.version = PMUVIRT_ABI_VERSION }, &merged, &scratch, NULL))
		abort();
	pmuvirt_read(r->a, after);
	if (r->a->nr_counters != n || r->a->nr_shared != n || r->a->samples ||
	    (!faulted && memcmp(before, after, n * sizeof(before[0]))))
		abort();
	if (running)
		pmuvirt_switch(&r->pc, r->a);
	rig_check(r);
}

static bool is_tsc(const struct pmuvirt_counter_ctl *c)
{
	return !(c->flags & PMUVIRT_CTR_RAW) && c->event == PMUVIRT_EV_TSC;
}

/*
 * The privilege rule, as properties of what pmuvirt_xen_guest_privilege()
 * made of @in (@out, result @ret, counter named @bad): PV kernel mode
 * becomes user mode and PV guest-only counting is refused; HVM kernel
 * mode becomes guest-only when @caps allows, else it is refused; the first
 * counter that breaks the rule is the one named; nothing else changes.
 */
static void check_privilege(const struct pmuvirt_control *in, const struct pmuvirt_control *out,
			    bool pv, uint32_t caps, int ret, int bad)
{
	unsigned int i, n = in->nr_counters < PMUVIRT_MAX_COUNTERS ? in->nr_counters :
			    PMUVIRT_MAX_COUNTERS;
	bool can = caps & PMUVIRT_CAP_GUEST_ONLY;

	if (memcmp(in, out, offsetof(struct pmuvirt_control, counter)))
		abort();
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
		const struct pmuvirt_counter_ctl *a = &in->counter[i], *b = &out->counter[i];
		uint32_t f = a->flags;
		bool refused;

		if (a->event != b->event || a->period != b->period || a->reserved != b->reserved)
			abort();
		if (i >= n || is_tsc(a)) {
			if (b->flags != f)
				abort();
			continue;
		}
		refused = pv ? (f & PMUVIRT_CTR_GUEST) : ((f & PMUVIRT_CTR_KERNEL) && !can);
		if (refused) {
			if (ret != -EOPNOTSUPP || bad != (int)i)
				abort();
			return;		/* the counters after it are not looked at */
		}
		if (pv && (f & PMUVIRT_CTR_KERNEL))
			f = (f & ~PMUVIRT_CTR_KERNEL) | PMUVIRT_CTR_USER;
		else if (!pv && (f & PMUVIRT_CTR_KERNEL))
			f |= PMUVIRT_CTR_GUEST;
		if (b->flags != f)
			abort();
	}
	if (ret)
		abort();
}

/* MAP_PHYS: the domain's record frames, the guest's frame limit, the frames named. */
#define MAX_GFNS	8
static unsigned int dom_frames;
static uint64_t gfn_limit;
static uint64_t gfns[MAX_GFNS];

static void map_phys(const struct pmuvirt_xen_map_phys *op)
{
	bool count_ok = op->nr_frames == dom_frames && dom_frames;
	uint64_t copy[MAX_GFNS];
	unsigned int i, j;
	bool ok = true;

	if ((pmuvirt_xen_check_map_phys(op, dom_frames) == 0) != count_ok)
		abort();
	if (!count_ok)
		return;		/* Xen copies no frame */
	memcpy(copy, gfns, sizeof(copy));
	for (i = 0; i < dom_frames; i++) {
		ok = ok && gfns[i] < gfn_limit;
		for (j = i + 1; j < dom_frames; j++)
			ok = ok && gfns[i] != gfns[j];
	}
	if ((pmuvirt_xen_check_gfns(gfns, dom_frames, gfn_limit) == 0) != ok)
		abort();
	if (memcmp(copy, gfns, sizeof(copy)))
		abort();
}

/* Not a command: its argument is a saved VCPU context Xen restores. */
#define FUZZ_RESTORE	0x52455354u

/* What two suspended contexts count, and how far they are (not their stamps or raw starts). */
static void same_state(const struct pmuvirt_ctx *x, const struct pmuvirt_ctx *y)
{
	unsigned int i;

	if (x->nr_counters != y->nr_counters || x->nr_shared != y->nr_shared ||
	    x->flags != y->flags || x->imode_mask != y->imode_mask ||
	    x->sample_mask != y->sample_mask || x->values_mask != y->values_mask ||
	    memcmp(&x->img, &y->img, sizeof(x->img)))
		abort();
	for (i = 0; i < x->nr_counters; i++) {
		const struct pmuvirt_counter *a = &x->counter[i], *b = &y->counter[i];

		if (a->count != b->count || a->next_ovf != b->next_ovf || a->period != b->period ||
		    a->pending != b->pending || a->slot != b->slot || a->event != b->event ||
		    a->width != b->width)
			abort();
	}
}

/* @ctx saves to *@out, which restores into a fresh context with the same state. */
static void saves_and_restores(struct rig *r, const struct pmuvirt_ctx *ctx,
			       const struct pmuvirt_control *ctl, struct pmuvirt_saved_ctx *out)
{
	struct pmuvirt_ctx *again = calloc(1, r->csize);
	struct pmuvirt_saved_ctx out2;

	if (!again || pmuvirt_ctx_init(again, r->csize, &r->pmu))
		abort();
	if (pmuvirt_ctx_save(ctx, ctl, out) || pmuvirt_ctx_restore(again, out, NULL))
		abort();
	same_state(ctx, again);
	if (pmuvirt_ctx_save(again, ctl, &out2) || memcmp(out, &out2, sizeof(out2)))
		abort();
	free(again);
}

/*
 * The restored context counts, suspended and resumed now and then (each
 * suspension samples its counters): every i-mode counter notifies exactly
 * at the boundaries its count passes, modulo 2^64 like the count (no more,
 * no less, across 2^64 too), and it saves and restores again afterwards.
 */
static void restored_counts(struct rig *r, struct pmuvirt_ctx *ctx,
			    const struct pmuvirt_control *ctl)
{
	struct pmuvirt_counter before[PMUVIRT_MAX_COUNTERS];
	struct pmuvirt_ctx *prev = r->pc.running;
	struct pmuvirt_saved_ctx out;
	uint64_t m = 3 * 4096;
	unsigned int i, k;

	memcpy(before, ctx->counter, ctx->nr_counters * sizeof(before[0]));
	for (i = 0; i < ctx->nr_counters; i++) {
		const struct pmuvirt_counter *c = &ctx->counter[i];

		if (c->period && c->period < m)
			m = c->period;
		if (c->period && c->next_ovf - c->count < m)
			m = c->next_ovf - c->count;
	}
	/* a third of the shortest distance a step: a suspension lands between two boundaries */
	for (k = 0; k < 48; k++) {
		if (pmuvirt_switch(&r->pc, ctx))
			abort();
		if (fakehw_run(r->hw, (enum fakehw_event)(k % 3), m >= 3 ? m / 3 : 1, k & 1))
			abort();
		if (pmuvirt_switch(&r->pc, NULL) || (ctx->flags & PMUVIRT_CTX_FAULTED))
			abort();
	}
	rig_check(r);
	for (i = 0; i < ctx->nr_counters; i++) {
		const struct pmuvirt_counter *b = &before[i], *c = &ctx->counter[i];
		uint64_t e = c->count - b->count, d = b->next_ovf - b->count, n, want;

		if (!b->period)
			continue;
		n = e < d ? 0 : 1 + (e - d) / b->period;
		want = b->pending + n > 0xffffffffu ? 0xffffffffu : b->pending + n;
		if (c->pending != want || c->next_ovf != b->next_ovf + n * b->period)
			abort();
	}
	saves_and_restores(r, ctx, ctl, &out);
	if (prev)
		pmuvirt_switch(&r->pc, prev);
	rig_check(r);
}

/*
 * As Xen restores a blob: pmuvirt_ctx_restore(), then the rule of the
 * domain it lands in.  A refused blob changes nothing.  An accepted one
 * is a state the library makes: it saves back byte for byte, restores
 * again to the same state, and counts on from there as a context of the
 * library's own would.
 */
static void restore(struct rig *r, const union xen_arg *u)
{
	const struct pmuvirt_saved_ctx *in = (const struct pmuvirt_saved_ctx *)u->bytes;
	bool pv = in->ctl.counter[0].event & 1;
	struct pmuvirt_ctx *ctx = calloc(1, r->csize), *fresh = calloc(1, r->csize);
	struct pmuvirt_saved_ctx out;
	struct pmuvirt_control ctl;
	struct pmuvirt_error err;
	int priv, ret, rule;

	if (!ctx || !fresh || pmuvirt_ctx_init(ctx, r->csize, &r->pmu))
		abort();
	memcpy(fresh, ctx, r->csize);
	ret = pmuvirt_ctx_restore(ctx, in, &err);
	priv = pmuvirt_xen_check_saved(in, pv, r->pmu.caps, &err);
	/* refused as the rule refuses, or because the rule would rewrite it */
	ctl = in->ctl;
	err.counter = -2;
	rule = pmuvirt_xen_guest_privilege(&ctl, pv, r->pmu.caps, &err);
	check_privilege(&in->ctl, &ctl, pv, r->pmu.caps, rule, err.counter);
	if (rule ? priv != rule : priv != (memcmp(&ctl, &in->ctl, sizeof(ctl)) ? -EINVAL : 0))
		abort();
	if (ret) {
		if (memcmp(ctx, fresh, r->csize))
			abort();	/* a refused blob changes nothing */
	} else {
		if (ctx->nr_counters != in->ctl.nr_counters)
			abort();
		saves_and_restores(r, ctx, &in->ctl, &out);
		if (memcmp(&out, in, sizeof(out)))
			abort();	/* the blob as pmuvirt_ctx_save() makes it */
		restored_counts(r, ctx, &in->ctl);
	}
	pmuvirt_ctx_release(ctx);
	free(ctx);
	free(fresh);
}

/*
 * A fuzzed blob that gets past the header and the check: with @tame also
 * a control that is valid more often than not, no state where a save
 * leaves none and next notifications 1 to 2^63 events ahead.
 */
static void restore_tame(union xen_arg *u, bool tame)
{
	struct pmuvirt_saved_ctx *s = (struct pmuvirt_saved_ctx *)u->bytes;
	unsigned int i;

	s->magic = PMUVIRT_SAVED_MAGIC;
	s->version = PMUVIRT_SAVED_VERSION;
	s->size = sizeof(*s);
	s->flags = 0;
	s->reserved = 0;
	if (tame) {
		rig_tame(&s->ctl, false);
		for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
			if (i < s->ctl.nr_counters && s->ctl.counter[i].period) {
				s->period[i] = s->period[i] % PMUVIRT_PERIOD_MAX + 1;
				/* 1 to 2^63 ahead, modulo 2^64 */
				s->next_ovf[i] = s->count[i] + 1 +
						 s->next_ovf[i] % PMUVIRT_ARM_REMAINING_MAX;
				continue;
			}
			if (i >= s->ctl.nr_counters) {
				memset(&s->ctl.counter[i], 0, sizeof(s->ctl.counter[i]));
				s->count[i] = 0;
			}
			s->period[i] = 0;
			s->next_ovf[i] = 0;
			s->pending[i] = 0;
		}
	}
	s->check = pmuvirt_saved_check(s);
}

/* The last policy SET_POLICY accepted, NULL before. */
static struct pmuvirt_policy cur_policy;
static const struct pmuvirt_policy *policy;

/* Xen passes the PCPU only when the caller's context is the one on it. */
static struct pmuvirt_pcpu *pc_of(struct rig *r)
{
	return r->pc.running == r->a ? &r->pc : NULL;
}

static void hypercall(struct rig *r, unsigned int cmd, union xen_arg *u, size_t len)
{
	uint32_t size = pmuvirt_xen_arg_size(cmd);
	struct pmuvirt_error err;
	union xen_arg *copy;
	uint8_t *snap;
	int hret, ret;

	/* the checks only read: argument and context stay as they were */
	snap = malloc(r->csize);
	copy = malloc(sizeof(*copy));
	if (!snap || !copy)
		abort();
	memcpy(snap, r->a, r->csize);
	memcpy(copy, u, sizeof(*copy));

	/* do_pmuvirt_op(): command, then the first fetch (header only) */
	hret = pmuvirt_xen_check_hdr(cmd, &u->a.hdr);
	if (!size && hret != -EOPNOTSUPP)
		abort();
	if (size && hret != ((u->a.hdr.version == PMUVIRT_XEN_VERSION && u->a.hdr.size == size) ?
			     0 : -EINVAL))
		abort();
	/* do_pmuvirt_op(): the whole copy, by the command's row, exactly as the ABI says */
	ret = pmuvirt_xen_check_arg(cmd, u, len);
	if (ret != arg_expect(u, cmd, len, hret))
		abort();
	if (size && pmuvirt_xen_cmd(cmd)->size != size)
		abort();
	if (memcmp(copy, u, sizeof(*copy)) || memcmp(snap, r->a, r->csize))
		abort();
	free(copy);
	/* Xen never gets past a refused check (a wrong length is one) */
	if (ret) {
		free(snap);
		return;
	}

	switch (cmd) {
	case PMUVIRT_XEN_SET_CONTROL: {
		struct pmuvirt_control ctl = u->a.set_control.ctl;
		bool pv = u->a.set_control.ctl.counter[0].event & 1;	/* either kind of guest */
		/* a Xen whose PMU can leave Xen out, or not */
		uint32_t caps = (u->a.set_control.ctl.counter[0].event & 2) ? r->pmu.caps : 0;
		unsigned int i;
		int v;

		/* as the glue does: Xen's own execution never counts for a guest */
		err.counter = -2;
		ret = pmuvirt_xen_guest_privilege(&ctl, pv, caps, &err);
		check_privilege(&u->a.set_control.ctl, &ctl, pv, caps, ret, err.counter);
		if (ret && memcmp(snap, r->a, r->csize))
			abort();
		if (ret)
			break;
		v = pmuvirt_validate(&r->pmu, &ctl, r->a->max_counters, NULL, NULL, &err);
		err.counter = -2;
		ret = pmuvirt_validate_policy(&r->pmu, &ctl, r->a->max_counters, NULL, NULL,
					      policy, &err);
		if (policy && ret == -EPERM) {
			/* the first counter the policy does not permit */
			if (err.counter < 0 || (unsigned int)err.counter >= ctl.nr_counters ||
			    policy_allows(policy, &ctl.counter[err.counter]))
				abort();
			for (i = 0; i < (unsigned int)err.counter; i++)
				if (!policy_allows(policy, &ctl.counter[i]))
					abort();
			if (memcmp(snap, r->a, r->csize))
				abort();
			break;
		}
		if (ret != v)
			abort();
		for (i = 0; !ret && policy && i < ctl.nr_counters; i++)
			if (!policy_allows(policy, &ctl.counter[i]))
				abort();
		ret = pmuvirt_set_control(pc_of(r), r->a, &ctl, &err);
		if (ret != v)
			abort();
		if (ret && memcmp(snap, r->a, r->csize))
			abort();	/* a refused control changes nothing */
		if (!ret) {
			own_a = ctl;
			has_own = true;
		}
		break;
	}
	case PMUVIRT_XEN_ARM: {
		int c = pmuvirt_xen_check_arm(&u->a.arm, r->a);

		if ((c == 0) != arm_ok(&u->a.arm, r->a))
			abort();
		if (memcmp(snap, r->a, r->csize))
			abort();
		ret = pmuvirt_arm_counters(pc_of(r), r->a, u->a.arm.mask, u->a.arm.remaining,
					   u->a.arm.period);
		if (ret != c)
			abort();
		if (ret && memcmp(snap, r->a, r->csize))
			abort();
		break;
	}
	case PMUVIRT_XEN_READ: {
		uint64_t v[PMUVIRT_MAX_COUNTERS];

		if (pmuvirt_read(r->a, v))
			abort();
		break;
	}
	case PMUVIRT_XEN_TAKE_OVERFLOWS: {
		uint32_t counts[PMUVIRT_MAX_COUNTERS];
		uint32_t mask = pmuvirt_take_overflows(r->a, counts);

		if (r->a->nr_counters < 32 && (mask >> r->a->nr_counters))
			abort();
		break;
	}
	case PMUVIRT_XEN_SET_POLICY:
		ret = pmuvirt_policy_validate(&u->a.set_policy.policy);
		if ((ret == 0) != policy_ok(&u->a.set_policy.policy) || (ret && ret != -EINVAL))
			abort();
		if (!ret) {
			cur_policy = u->a.set_policy.policy;
			policy = &cur_policy;
		}
		break;
	case PMUVIRT_XEN_PROF_START: {
		const struct pmuvirt_xen_prof_start *op = &u->a.prof_start;

		ret = pmuvirt_xen_check_prof_start(op, &err);
		if ((ret == 0) != prof_start_ok(op) || (ret && ret != -EINVAL))
			abort();
		if (memcmp(snap, r->a, r->csize))
			abort();
		if (!ret && !pmuvirt_validate(&r->pmu, &op->ctl, PMUVIRT_XEN_PROF_MAX_COUNTERS, NULL,
					      NULL, NULL))
			session(r, &op->ctl);
		break;
	}
	case PMUVIRT_XEN_MAP_PHYS:
		if (u->a.map_phys.flags)
			abort();
		map_phys(&u->a.map_phys);
		break;
	default:
		/* QUERY, MAP_SHARED, UNMAP_PHYS and the other PROF_* touch no context: nothing to apply */
		break;
	}
	free(snap);
	rig_check(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmuvirt_control ctl;
	union xen_arg u;
	struct rig r;
	uint8_t sel, mode;
	unsigned int k;

	policy = NULL;
	has_own = false;
	take(&data, &size, &sel, 1);
	take(&data, &size, &mode, 1);
	take(&data, &size, &ctl, sizeof(ctl));
	rig_tame(&ctl, mode & 0x80);
	rig_init(&r, sel);
	if (mode & 1)
		pmuvirt_switch_in(&r.pc, r.a);
	if (!pmuvirt_set_control(pc_of(&r), r.a, &ctl, NULL)) {
		own_a = ctl;
		has_own = true;
	}
	rig_check(&r);

	for (k = 0; k < MAX_RECORDS && size; k++) {
		unsigned int cmd;
		uint8_t op, b;
		size_t len;

		take(&data, &size, &op, 1);
		if (op & 3) {
			take(&data, &size, &b, 1);
			rig_step(&r, op, b);
			continue;
		}
		take(&data, &size, &b, 1);
		if (b & 0x80) {
			uint32_t raw;

			take(&data, &size, &raw, sizeof(raw));
			cmd = raw;
		} else {
			cmd = b & 31;
		}
		len = pmuvirt_xen_arg_size(cmd);
		if ((op & 4) || !len) {
			uint16_t l;

			take(&data, &size, &l, sizeof(l));
			len = l % (MAX_LEN + 1);
		}
		take(&data, &size, u.bytes, len);
		memset(u.bytes + len, 0, sizeof(u) - len);
		if (op & 8) {
			u.a.hdr.version = PMUVIRT_XEN_VERSION;
			u.a.hdr.size = pmuvirt_xen_arg_size(cmd);
		}
		if (op & 0x10) {
			uint32_t *r = xen_arg_field(&u.a, cmd, XEN_RESERVED);
			uint32_t *fl = xen_arg_field(&u.a, cmd, XEN_FLAGS);

			if (r)
				*r = 0;
			if (fl)
				*fl = 0;
		}
		if ((op & 0x20) && cmd == PMUVIRT_XEN_PROF_START) {
			/* a description that is well formed more often than not */
			struct pmuvirt_xen_prof_start *p = &u.a.prof_start;
			unsigned int i;

			p->nr_domains %= 4;
			for (i = p->nr_domains; i < PMUVIRT_XEN_PROF_MAX_DOMAINS; i++)
				p->domains[i] = 0;
			p->ring_pages = 1u << (1 + p->ring_pages % 8);
			p->high_water_pct = 1 + p->high_water_pct % 100;
			p->sample_format &= 0x3f;
			p->chain_depth %= 130;
			rig_tame(&p->ctl, false);
			p->ctl.nr_counters = 1 + p->ctl.nr_counters % 3;
			for (i = 0; i < p->ctl.nr_counters; i++) {
				p->ctl.counter[i].flags |= PMUVIRT_CTR_SAMPLE;
				p->ctl.counter[i].period |= 0x100;
			}
		}
		if (op & 0x40) {
			if (cmd == PMUVIRT_XEN_VCPU_READ)
				u.a.vcpu_read.domid &= 0xffff;
			if (cmd == PMUVIRT_XEN_VCPU_SET_CONTROL)
				u.a.vcpu_set_control.domid &= 0xffff;
		}
		if ((op & 0x20) && cmd == PMUVIRT_XEN_SET_POLICY) {
			struct pmuvirt_policy *p = &u.a.set_policy.policy;
			unsigned int i;

			p->version = PMUVIRT_ABI_VERSION;
			p->action &= 1;
			p->events &= 0x3e;
			p->flags = p->reserved = 0;
			p->nr_raw %= PMUVIRT_POLICY_MAX_RAW + 1;
			for (i = 0; i < PMUVIRT_POLICY_MAX_RAW; i++) {
				p->raw[i].reserved = 0;
				p->raw[i].flags &= 1;
				p->raw[i].match &= p->raw[i].mask;
			}
		}
		if (cmd == PMUVIRT_XEN_MAP_PHYS) {
			take(&data, &size, &b, 1);
			dom_frames = (b & 7) + 1;
			gfn_limit = (uint64_t)1 << (20 + (b >> 3));	/* 32- to 63-bit addresses */
			take(&data, &size, gfns, sizeof(gfns[0]) * dom_frames);
		}
		if (cmd == FUZZ_RESTORE && (op & 0x20))
			restore_tame(&u, op & 0x40);
		hypercall(&r, cmd, &u, len);
		if (cmd == FUZZ_RESTORE)
			restore(&r, &u);
	}
	rig_free(&r);
	return 0;
}
