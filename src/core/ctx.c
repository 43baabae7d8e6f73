/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Contexts and scheduling: offsetting of a-mode counters, save/restore of
 * i-mode counters, overflow handling, and the shared records.
 *
 * Every counter keeps a logical 64-bit value @count and the raw value
 * @start it had below when last sampled.  Sampling adds
 * (raw - start) mod 2^width to @count.  That is exact as long as fewer
 * than 2^width events pass between two samples, which the PMI guarantees:
 * every running counter interrupts when it reaches its slot's threshold,
 * and the handler re-bases it at most 2^(width-1) events before the next
 * threshold.
 */
#include "pmuvirt_arch.h"

#ifdef PMUVIRT_DEFAULT_STAMP
uint64_t pmuvirt_stamp_counter;
#endif

static inline const struct pmuvirt_arch_ops *ops_of(const struct pmuvirt_pcpu *pc)
{
	return pc->pmu->ops;
}

/* Counters of another instance below: armed by a call, never written or re-based. */
static inline bool stacked(const struct pmuvirt_pcpu *pc)
{
	return pc->pmu->ops->flags & PMUVIRT_OPS_STACKED;
}

static inline const struct pmuvirt_slot *slot_of(const struct pmuvirt_ctx *ctx, unsigned int i)
{
	return &ctx->pmu->slot[ctx->counter[i].slot];
}

static inline uint64_t half_range(const struct pmuvirt_slot *s)
{
	return (uint64_t)1 << (s->width - 1);
}

/* Has the raw value passed the slot's overflow threshold (and not yet re-based)? */
static inline bool past_threshold(const struct pmuvirt_slot *s, uint64_t raw)
{
	return ((raw - s->threshold) & pmuvirt_width_mask(s->width)) < half_range(s);
}

static inline void sample(struct pmuvirt_counter *c, const struct pmuvirt_slot *s, uint64_t raw)
{
	if (pmuvirt_likely(!c->muted))
		c->count += (raw - c->start) & (~(uint64_t)0 >> (64 - c->width));
	c->start = raw;
}

/*
 * Turn every period boundary the count has reached into a pending
 * notification; @pending saturates at 0xffffffff.  Returns how many
 * boundaries were reached (0: none).
 *
 * The count and @next_ovf are modulo 2^64, as a 64-bit counter's value:
 * @next_ovf is 1 to 2^63 events ahead of the count, and less than 2^63
 * events pass between two samples, so the boundary is reached when the
 * count is less than 2^63 past it.  A schedule goes on across 2^64.
 */
static uint64_t collect_overflows(struct pmuvirt_counter *c)
{
	uint64_t n, past = c->count - c->next_ovf;

	if (!c->period || past >= PMUVIRT_ARM_REMAINING_MAX)
		return 0;
	/* one boundary is the rule: the division is a loop on 32-bit hosts */
	n = past < c->period ? 1 : 1 + pmuvirt_div64(past, c->period);
	c->next_ovf += n * c->period;
	if (n >= (uint64_t)(0xffffffffu - c->pending))
		c->pending = 0xffffffffu;
	else
		c->pending += (uint32_t)n;
	return n;
}

static void publish_rec(struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_shared_ctx *rec = ctx->shared;
	struct pmuvirt_pcpu *pc = ctx->running_on;
	uint32_t seq;
	unsigned int i;

	seq = PMUVIRT_READ_ONCE32(&rec->seq);
	PMUVIRT_WRITE_ONCE32(&rec->seq, seq + 1);
	pmuvirt_smp_wmb();
	rec->version = PMUVIRT_ABI_VERSION;
	/* A session's counters (pmuvirt_ctx_join()) are not the owner's to see. */
	rec->nr_counters = ctx->nr_shared;
	rec->below = pc ? pc->cpu : PMUVIRT_SHARED_NONE;
	for (i = 0; i < ctx->nr_shared; i++) {
		const struct pmuvirt_slot *s = slot_of(ctx, i);

		PMUVIRT_WRITE_ONCE64(&rec->counter[i].count, ctx->counter[i].count);
		PMUVIRT_WRITE_ONCE64(&rec->counter[i].start, ctx->counter[i].start);
		/* index 0: the count alone is the value (off the CPU, or muted) */
		rec->counter[i].index = pc && !ctx->counter[i].muted ? s->user_index : 0;
		rec->counter[i].width = s->width;
	}
	pmuvirt_smp_wmb();
	PMUVIRT_WRITE_ONCE32(&rec->seq, seq + 2);
}

static inline void publish(struct pmuvirt_ctx *ctx)
{
	if (ctx->shared)
		publish_rec(ctx);
}

void pmuvirt_ctx_publish(struct pmuvirt_ctx *ctx)
{
	publish(ctx);
}

size_t pmuvirt_ctx_size(unsigned int max_counters)
{
	if (!max_counters || max_counters > PMUVIRT_MAX_COUNTERS)
		return 0;
	return sizeof(struct pmuvirt_ctx) + max_counters * sizeof(struct pmuvirt_counter);
}

static void zero_bytes(void *p, size_t n)
{
	volatile uint8_t *b = p;

	while (n--)
		*b++ = 0;
}

int pmuvirt_ctx_init(struct pmuvirt_ctx *ctx, size_t size, const struct pmuvirt_pmu *pmu)
{
	size_t max;

	if (!ctx || !pmu || size < pmuvirt_ctx_size(1))
		return -EINVAL;
	zero_bytes(ctx, size);
	max = (size - sizeof(struct pmuvirt_ctx)) / sizeof(struct pmuvirt_counter);
	ctx->max_counters = (uint16_t)(max > PMUVIRT_MAX_COUNTERS ? PMUVIRT_MAX_COUNTERS : max);
	ctx->pmu = pmu;
	/* A domain of its own until the host says otherwise: a never-reused id. */
	ctx->domain = pmuvirt_stamp_next();
	return 0;
}

int pmuvirt_ctx_set_domain(struct pmuvirt_ctx *ctx, uint64_t domain)
{
	if (!ctx)
		return -EINVAL;
	if (ctx->running_on)
		return -EBUSY;
	ctx->domain = domain;
	ctx->flags |= PMUVIRT_CTX_DOMAIN;
	return 0;
}

void pmuvirt_ctx_attach_shared(struct pmuvirt_ctx *ctx, struct pmuvirt_shared_ctx *rec)
{
	ctx->shared = rec;
	publish(ctx);
}

int pmuvirt_pcpu_init(struct pmuvirt_pcpu *pc, const struct pmuvirt_pmu *pmu,
		      const struct pmuvirt_hw_ops *hw, void *hw_arg, uint32_t cpu)
{
	if (!pc || !pmu || !pmu->ops)
		return -EINVAL;
	zero_bytes(pc, sizeof(*pc));
	pc->pmu = pmu;
	pc->hw = hw;
	pc->hw_arg = hw_arg;
	pc->cpu = cpu;
	pc->stop_first = pmu->ops->start != NULL;
	return 0;
}

/* The control registers change (or may have): no context is known to hold them. */
static inline void forget_owner(struct pmuvirt_pcpu *pc, uint64_t owner)
{
	pc->cache_owner = owner;
	pc->cache_twin = 0;
	pc->pair[0] = 0;
	pc->pair[1] = 0;
}

void pmuvirt_pcpu_drop(struct pmuvirt_pcpu *pc)
{
	struct pmuvirt_ctx *ctx = pc->running;

	pc->running = NULL;
	pc->paused = 0;
	if (!ctx)
		return;
	if (ctx->running_on == pc)
		ctx->running_on = NULL;
	publish(ctx);
}

void pmuvirt_pcpu_invalidate(struct pmuvirt_pcpu *pc)
{
	pmuvirt_pcpu_drop(pc);
	pc->cache_known = 0;
	pc->cache.used = 0;
	forget_owner(pc, 0);
	pc->owner_flags = 0;
}

#define PMUVIRT_OWNER_KNOWN	0x1u	/* pc->owner_flags, with PMUVIRT_CTX_DOMAIN */

/* Did the counters of @pc last count for @ctx's security domain? */
static inline bool same_domain(const struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	return pc->owner_domain == ctx->domain &&
	       pc->owner_flags == (PMUVIRT_OWNER_KNOWN | (ctx->flags & PMUVIRT_CTX_DOMAIN));
}

/*
 * A register access failed: keep the context off the hardware for good,
 * stop counting on this CPU, and forget what the registers hold.
 */
static int fault(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, int err)
{
	if (ctx) {
		ctx->flags |= PMUVIRT_CTX_FAULTED;
		ctx->fault = err;
		if (ctx->running_on == pc) {
			ctx->running_on = NULL;
			pc->running = NULL;
		}
		publish(ctx);
	}
	pc->paused = 0;
	ops_of(pc)->stop(pc);
	pmuvirt_pcpu_invalidate(pc);
	return -EFAULT;
}

static inline int read_slot(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *snap,
			    uint32_t *have)
{
	int ret;

	if (*have & (1u << slot))
		return 0;
	ret = ops_of(pc)->read(pc, slot, &snap[slot]);
	if (!ret)
		*have |= 1u << slot;
	return ret;
}

/*
 * Hardware backends: arm counter @i of the running @ctx so that it signals
 * at its next overflow point (i-mode) or half a range from now (a-mode
 * re-base), by writing the counter.
 */
static int arm_at(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, unsigned int i, bool park)
{
	struct pmuvirt_counter *c = &ctx->counter[i];
	const struct pmuvirt_slot *s = slot_of(ctx, i);
	uint64_t remaining, val;
	int ret;

	if (s->cls == PMUVIRT_CLASS_TSC)
		return 0;
	remaining = c->period && !park ? c->next_ovf - c->count : half_range(s);
	if (remaining > half_range(s))
		remaining = half_range(s);
	val = (s->threshold - remaining) & pmuvirt_width_mask(s->width);
	ret = ops_of(pc)->write(pc, c->slot, val);
	if (!ret)
		c->start = val;
	return ret;
}

static int arm(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, unsigned int i)
{
	return arm_at(pc, ctx, i, false);
}

/*
 * Self-arming backends: arm the i-mode counters in @which (a counter mask)
 * in one step.  Their start values must be fresh samples.  Sets *@called
 * when the backend had to make a call (whose events then need discarding
 * from every other counter).
 */
static int arm_batch(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint32_t which,
		     bool *called)
{
	uint64_t remaining[PMUVIRT_MAX_SLOTS], period[PMUVIRT_MAX_SLOTS], start[PMUVIRT_MAX_SLOTS];
	uint32_t slots = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];

		if (!(which & (1u << i)) || !c->period)
			continue;
		slots |= 1u << c->slot;
		remaining[c->slot] = c->next_ovf - c->count;
		period[c->slot] = c->period;
		start[c->slot] = c->start;
	}
	if (!slots)
		return 0;
	ret = ops_of(pc)->arm(pc, slots, remaining, period, start);
	if (ret < 0)
		return ret;
	for (i = 0; i < ctx->nr_counters; i++)
		if (slots & (1u << ctx->counter[i].slot))
			ctx->counter[i].start = start[ctx->counter[i].slot];
	*called = ret > 0;
	return 0;
}

/* Restart the counters of the running @ctx from now, except those in @keep. */
static int restart_from_now(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint32_t keep)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ctx->nr_counters; i++) {
		if (keep & (1u << i))
			continue;
		ret = ops_of(pc)->read(pc, ctx->counter[i].slot, &ctx->counter[i].start);
		if (ret)
			return ret;
	}
	return 0;
}

static int sample_counters(struct pmuvirt_pcpu *pc, bool discard, uint32_t which,
			   uint64_t *hits);
static int sample_current(struct pmuvirt_pcpu *pc, bool discard);

#define PMUVIRT_PAUSED_PARKED	2	/* pc->paused: a PMI parked i-mode counters */

typedef int (*read_op)(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *val);

/*
 * Take the outgoing context off the CPU in one pass: read each counter from
 * counter @first on once into @snap (the incoming context's start values
 * when nothing is written in between), fold it into its count and collect
 * its overflows.  *@have has a bit for each slot in @snap.
 */
static int suspend_current(struct pmuvirt_pcpu *pc, uint64_t *snap, uint32_t *have,
			   unsigned int first)
{
	struct pmuvirt_ctx *ctx = pc->running;
	struct pmuvirt_counter *c, *end;
	read_op read;
	uint32_t got = *have;
	bool paused;
	int ret;

	if (!ctx)
		return 0;
	read = ops_of(pc)->read;
	paused = pc->paused;
	end = ctx->counter + ctx->nr_counters;
	for (c = ctx->counter + first; c < end; c++) {
		uint64_t raw;

		ret = read(pc, c->slot, &raw);
		if (ret)
			return fault(pc, ctx, ret);
		snap[c->slot] = raw;
		got |= 1u << c->slot;
		/* Paused or muted: the events since the pause count for no one. */
		if (pmuvirt_likely(!paused && !c->muted))
			c->count += (raw - c->start) & (~(uint64_t)0 >> (64 - c->width));
		c->start = raw;
		if (c->period)
			collect_overflows(c);
	}
	*have = got;
	ctx->running_on = NULL;
	pc->running = NULL;
	pc->paused = 0;
	publish(ctx);
	return 0;
}

/*
 * Do the control registers already hold @img?  The image last loaded must
 * have managed the same registers (a stacked backend's image grows and
 * shrinks with the number of counters).  An image that manages none (a
 * PMU with the TSC alone) is held wherever the last load managed none.
 */
static bool cache_holds(const struct pmuvirt_pcpu *pc, const struct pmuvirt_hwctl *img)
{
	uint32_t used = img->used;
	unsigned int i;

	if (pc->cache.used != used || (pc->cache_known & used) != used)
		return false;
	for (i = 0; used; i++, used >>= 1)
		if ((used & 1) && pc->cache.reg[i] != img->reg[i])
			return false;
	return true;
}

/*
 * Do the control registers hold @ctx's control?  Known by stamp for the
 * context that loaded it and for one other with an identical image (the
 * twin); otherwise compared, and a match makes @ctx the twin.
 */
static inline bool cache_current(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	if (ctx->stamp && (pc->cache_owner == ctx->stamp || pc->cache_twin == ctx->stamp))
		return true;
	if (!cache_holds(pc, &ctx->img))
		return false;
	if (pc->cache_owner)
		pc->cache_twin = ctx->stamp;
	else
		pc->cache_owner = ctx->stamp;
	return true;
}

/* The slots of @ctx's counters. */
static uint32_t ctx_slots(const struct pmuvirt_ctx *ctx)
{
	uint32_t m = 0;
	unsigned int i;

	for (i = 0; i < ctx->nr_counters; i++)
		m |= 1u << ctx->counter[i].slot;
	return m;
}

/*
 * The running @ctx comes from another security domain (or the counters'
 * owner is unknown): write every counter that may hold the other domain's
 * events (pc->counted, or all when the owner is unknown) and every counter
 * of @ctx, but the TSC and @ctx's i-mode ones (arming wrote them), so no raw
 * value left on this CPU derives from the other domain's events.  A
 * counter that no control enabled since its last re-base still holds that
 * re-base's value and is not written again.  @ctx's a-mode counters start
 * half a range before their threshold, as the others do; the TSC shows
 * time only and cannot be written.
 */
static int rebase(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint64_t *snap,
		  uint32_t have)
{
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint32_t mine = 0, left;
	unsigned int i, s;
	int ret;

	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];

		mine |= 1u << c->slot;
		if (c->period)
			continue;
		if (slot_of(ctx, i)->cls == PMUVIRT_CLASS_TSC) {
			ret = read_slot(pc, c->slot, snap, &have);
			c->start = snap[c->slot];
		} else {
			ret = arm(pc, ctx, i);
		}
		if (ret)
			return ret;
	}
	left = pc->owner_flags ? pc->counted : ~(uint32_t)0;
	for (s = 0; s < pmu->nr_slots; s++) {
		const struct pmuvirt_slot *sl = &pmu->slot[s];

		if (!(left & (1u << s)) || (mine & (1u << s)) || sl->cls == PMUVIRT_CLASS_TSC)
			continue;
		ret = ops_of(pc)->write(pc, s, (sl->threshold - half_range(sl)) &
					       pmuvirt_width_mask(sl->width));
		if (ret)
			return ret;
	}
	pc->owner_domain = ctx->domain;
	pc->owner_flags = PMUVIRT_OWNER_KNOWN | (ctx->flags & PMUVIRT_CTX_DOMAIN);
	pc->counted = mine;
	return 0;
}

/*
 * May i-mode counter @c (on slot @s) start from the raw value the counter
 * holds, without a write?  Yes when the counter reaches its threshold no
 * later than its next notification (the PMI there samples it and arms the
 * rest, silently when it comes early) and no sooner than a quarter of the
 * range from now, so that early PMIs come no more often than an a-mode
 * counter's re-base.  The value is looked at when @snap has it, or when
 * the notification is at least half a range away (a read then saves the
 * write).  Returns 1 and sets @c->start when it may, 0 when it must be
 * armed, or a read's error.
 */
static inline __attribute__((__always_inline__)) int
keep_armed(struct pmuvirt_pcpu *pc, struct pmuvirt_counter *c, const struct pmuvirt_slot *s,
	   uint64_t *snap, uint32_t *have)
{
	uint64_t remaining = c->next_ovf - c->count, to_signal;
	int ret;

	/* nearer than a quarter of the range: it must be armed */
	if (remaining < half_range(s) / 2 ||
	    (!(*have & (1u << c->slot)) && remaining < half_range(s)))
		return 0;
	ret = read_slot(pc, c->slot, snap, have);
	if (ret)
		return ret;
	/* Above half a range (or 0): past the threshold. */
	to_signal = (s->threshold - snap[c->slot]) & pmuvirt_width_mask(s->width);
	if (to_signal < half_range(s) / 2 || to_signal > half_range(s) || to_signal > remaining)
		return 0;
	c->start = snap[c->slot];
	return 1;
}

/* Put @ctx on the CPU; @snap holds values read before any control write. */
static int resume(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint64_t *snap, uint32_t have)
{
	bool self_arming = stacked(pc);
	/* The counters hold this domain's events: i-mode ones may be offset too. */
	bool offsetting = !self_arming && same_domain(pc, ctx);
	bool loaded = false, called = false;
	unsigned int i;
	int ret;

	if (!cache_current(pc, ctx)) {
		ret = ops_of(pc)->load(pc, ctx);
		if (ret < 0)
			return fault(pc, ctx, ret);
		pc->cache.used = ctx->img.used;
		forget_owner(pc, ctx->stamp);
		loaded = ret > 0;
		pc->counted |= ctx_slots(ctx);
	}
	/* Values read before a control write include the write's own events. */
	if (loaded)
		have = 0;

	/* i-mode counters first: arming a stacked instance's counters is a call. */
	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];

		if (!c->period)
			continue;
		collect_overflows(c);
		if (self_arming) {
			ret = read_slot(pc, c->slot, snap, &have);
			c->start = snap[c->slot];
		} else {
			ret = offsetting ? keep_armed(pc, c, slot_of(ctx, i), snap, &have) : 0;
			if (!ret)
				ret = arm(pc, ctx, i);
			else if (ret > 0)
				ret = 0;
		}
		if (ret)
			return fault(pc, ctx, ret);
	}
	if (self_arming && ctx->imode_mask) {
		ret = arm_batch(pc, ctx, ctx->imode_mask, &called);
		if (ret)
			return fault(pc, ctx, ret);
		if (called)
			have = 0;
	}

	/* Another domain's events are in the counters: re-base them all (a write). */
	if (pmuvirt_unlikely(!self_arming && !same_domain(pc, ctx))) {
		ret = rebase(pc, ctx, snap, have);
		if (ret)
			return fault(pc, ctx, ret);
		goto done;
	}
	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];
		const struct pmuvirt_slot *s = slot_of(ctx, i);

		if (c->period)
			continue;
		ret = read_slot(pc, c->slot, snap, &have);
		c->start = snap[c->slot];
		/* After reprogramming, keep the next threshold within half a range. */
		if (!ret && loaded && !self_arming && s->cls != PMUVIRT_CLASS_TSC &&
		    past_threshold(s, c->start))
			ret = arm(pc, ctx, i);
		if (ret)
			return fault(pc, ctx, ret);
	}
done:
	ctx->running_on = pc;
	pc->running = ctx;
	publish(ctx);
	return 0;
}

/* What every offsetting switch to @next needs: counting on, @next sound, its domain owning. */
static inline bool may_offset(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *next)
{
	return !pc->paused && !(next->flags & PMUVIRT_CTX_FAULTED) &&
	       (same_domain(pc, next) || stacked(pc));
}

/*
 * Can the running context hand the counters to @next by offsetting alone?
 * The registers hold @next's control, @next has no i-mode counter to arm,
 * its domain owns the counters, and both have as many counters (on the
 * same slots, which the one pass checks as it goes).
 */
static inline bool offset_only(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *prev,
			       const struct pmuvirt_ctx *next)
{
	return prev && prev->nr_counters == next->nr_counters && next->nr_counters &&
	       !next->imode_mask && !prev->muted_mask && may_offset(pc, next) &&
	       cache_current(pc, next);
}

/* @prev's values are final and @next's counters started: @next runs on @pc. */
static int hand_over(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *prev, struct pmuvirt_ctx *next)
{
	prev->running_on = NULL;
	publish(prev);
	next->running_on = pc;
	pc->running = next;
	publish(next);
	return 0;
}

/* pc->pair_batched: how switch_pair() reads the pair's counters */
#define PAIR_READ_SLOTS		0	/* the backend's read of each slot */
#define PAIR_READ_EACH		1	/* the host's read_counter/read_tsc of each pair_idx */
#define PAIR_READ_COUNTERS	2	/* one call of the host's read_counters */

/*
 * @prev and @next become the pair of @pc: their counters' slots, read
 * indexes and width masks are kept for switch_pair().
 */
static void make_pair(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *prev,
		      const struct pmuvirt_ctx *next)
{
	const struct pmuvirt_arch_ops *ops = ops_of(pc);
	bool indexed = ops->read_index && pc->hw;
	unsigned int i;

	for (i = 0; i < next->nr_counters; i++) {
		const struct pmuvirt_counter *c = &next->counter[i];

		pc->pair_slot[i] = c->slot;
		pc->pair_mask[i] = pmuvirt_width_mask(c->width);
		if (indexed && ops->read_index(pc->pmu, c->slot, &pc->pair_idx[i]))
			indexed = false;
	}
	if (!indexed)
		pc->pair_batched = PAIR_READ_SLOTS;
	else if (pc->hw->read_counters)
		pc->pair_batched = PAIR_READ_COUNTERS;
	else
		pc->pair_batched = PAIR_READ_EACH;
	pc->pair_nr = (uint8_t)next->nr_counters;
	pc->pair[0] = prev->stamp;
	pc->pair[1] = next->stamp;
}

int pmuvirt_hw_read_each(const struct pmuvirt_hw_ops *hw, void *arg, const uint32_t *idx,
			 unsigned int n, uint64_t *vals)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (idx[i] == PMUVIRT_HW_INDEX_TSC)
			ret = hw->read_tsc(arg, &vals[i]);
		else
			ret = hw->read_counter(arg, idx[i], &vals[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The raw values of the pair's counters, in counter order. */
static int read_pair(struct pmuvirt_pcpu *pc, uint64_t *raw)
{
	const struct pmuvirt_hw_ops *hw = pc->hw;
	read_op read = ops_of(pc)->read;
	unsigned int i;
	int ret;

	if (pmuvirt_likely(pc->pair_batched == PAIR_READ_COUNTERS)) {
		pc->stats.reg_reads += pc->pair_nr;
		return hw->read_counters(pc->hw_arg, pc->pair_idx, pc->pair_nr, raw);
	}
	if (pc->pair_batched == PAIR_READ_EACH) {
		pc->stats.reg_reads += pc->pair_nr;
		return pmuvirt_hw_read_each(hw, pc->hw_arg, pc->pair_idx, pc->pair_nr, raw);
	}
	for (i = 0; i < pc->pair_nr; i++) {
		ret = read(pc, pc->pair_slot[i], &raw[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The offset-only switch in one pass: each counter is read once, and the
 * value ends the running context's interval and starts @next's.  Nothing
 * is written.  A counter of @next on another slot than its peer ends the
 * pass: the rest goes the general way, from what was read so far.
 */
static int switch_offset(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *next)
{
	struct pmuvirt_ctx *prev = pc->running;
	struct pmuvirt_counter *o = prev->counter, *n = next->counter;
	struct pmuvirt_counter *end = o + prev->nr_counters;
	read_op read = ops_of(pc)->read;
	uint64_t snap[PMUVIRT_MAX_SLOTS] PMUVIRT_NOINIT;
	uint32_t have = 0;
	int ret;

	for (; o < end; o++, n++) {
		uint64_t raw;

		if (pmuvirt_unlikely(o->slot != n->slot))
			goto general;
		ret = read(pc, o->slot, &raw);
		if (ret)
			return fault(pc, prev, ret);
		o->count += (raw - o->start) & (~(uint64_t)0 >> (64 - o->width));
		o->start = raw;
		n->start = raw;
		if (o->period)
			collect_overflows(o);
	}
	/* Same control, same slots, no i-mode counter: the next switches take switch_pair(). */
	if (!prev->imode_mask && prev->stamp && next->stamp)
		make_pair(pc, prev, next);
	return hand_over(pc, prev, next);

general:
	/* The counters already folded: their values are the snapshot so far. */
	for (n = next->counter, o = prev->counter; o < end && o->slot == n->slot; o++, n++) {
		snap[o->slot] = o->start;
		have |= 1u << o->slot;
	}
	ret = suspend_current(pc, snap, &have, (unsigned int)(o - prev->counter));
	if (ret)
		return ret;
	return resume(pc, next, snap, have);
}

/*
 * Are the running @prev and @next the pair of @pc?  Then the registers hold
 * @next's control, neither has an i-mode counter, and their counters sit
 * on the slots of pc->pair_slot: known from their stamps, which change
 * with every control.
 */
static inline bool is_pair(const struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *prev,
			   const struct pmuvirt_ctx *next)
{
	uint64_t s = next->stamp;

	if (s == pc->pair[0])
		return s && prev->stamp == pc->pair[1];
	return s == pc->pair[1] && s && prev->stamp == pc->pair[0];
}

/*
 * An i-mode pair (the same control with i-mode counters, on a backend that
 * writes its counters itself while they count): @prev's overflows are
 * collected, and @next's i-mode counters armed as resume() arms them when
 * the counters hold the domain's events.  @raw: the pair's values.
 */
static __attribute__((__noinline__)) int pair_imode(struct pmuvirt_pcpu *pc,
						    struct pmuvirt_ctx *prev,
						    struct pmuvirt_ctx *next, const uint64_t *raw)
{
	uint64_t snap[PMUVIRT_MAX_SLOTS] PMUVIRT_NOINIT;
	uint32_t have = 0;
	unsigned int i, nr = pc->pair_nr;
	int ret;

	for (i = 0; i < nr; i++) {
		snap[pc->pair_slot[i]] = raw[i] & pc->pair_mask[i];
		have |= 1u << pc->pair_slot[i];
	}
	for (i = 0; i < nr; i++) {
		struct pmuvirt_counter *c = &next->counter[i];

		if (!c->period)
			continue;
		collect_overflows(&prev->counter[i]);
		collect_overflows(c);
		ret = keep_armed(pc, c, slot_of(next, i), snap, &have);
		if (!ret)
			ret = arm(pc, next, i);
		if (ret < 0)
			return fault(pc, next, ret);
	}
	return 0;
}

/*
 * May @prev and @next, which just switched by suspend and resume, become the
 * pair of @pc although they have i-mode counters?  Both have the same
 * control (the registers hold it), their counters on the same slots, one
 * security domain, and the backend arms by writing while counting goes on.
 * resume() left @next running and its domain owning the counters.
 */
static bool imode_pair(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *prev,
		       const struct pmuvirt_ctx *next)
{
	unsigned int i;

	if (!prev || !prev->imode_mask || prev->imode_mask != next->imode_mask ||
	    prev->nr_counters != next->nr_counters || !prev->stamp || !next->stamp ||
	    stacked(pc) || pc->stop_first || !same_domain(pc, prev) ||
	    (prev->flags & PMUVIRT_CTX_FAULTED))
		return false;
	/* resume() made @next the cache's owner or twin */
	if ((pc->cache_owner != next->stamp && pc->cache_twin != next->stamp) ||
	    (pc->cache_owner != prev->stamp && pc->cache_twin != prev->stamp &&
	     !cache_holds(pc, &prev->img)))
		return false;
	for (i = 0; i < next->nr_counters; i++)
		if (prev->counter[i].slot != next->counter[i].slot)
			return false;
	return true;
}

/*
 * The one pass between the two contexts of the pair: one backend call reads
 * every counter, and each value ends @prev's interval and starts @next's.
 * Nothing is written but the i-mode counters of an i-mode pair that must
 * be armed.
 */
static int switch_pair(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *prev, struct pmuvirt_ctx *next)
{
	struct pmuvirt_counter *o = prev->counter, *n = next->counter;
	uint64_t raw[PMUVIRT_MAX_COUNTERS] PMUVIRT_NOINIT;
	const uint64_t *mask = pc->pair_mask;
	unsigned int i, nr = pc->pair_nr;
	int ret;

	ret = read_pair(pc, raw);
	if (ret)
		return fault(pc, prev, ret);
	/* Both starts stored before the count: the values are loaded once. */
	for (i = 0; i < nr; i++) {
		uint64_t m = mask[i], v = raw[i] & m, start = o[i].start;

		o[i].start = v;
		n[i].start = v;
		o[i].count += (v - start) & m;
	}
	if (pmuvirt_unlikely(next->imode_mask)) {
		ret = pair_imode(pc, prev, next, raw);
		if (ret)
			return ret;
	}
	return hand_over(pc, prev, next);
}

/* Nothing to count on @pc (@next NULL, empty or faulted); the outgoing context is off. */
static inline int park(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *next)
{
	int ret = ops_of(pc)->stop(pc);

	forget_owner(pc, 0);
	if (ret < 0)
		return fault(pc, NULL, ret);
	if (next && (next->flags & PMUVIRT_CTX_FAULTED))
		return -EFAULT;
	if (next) {
		/* Nothing to count yet, but a later control must find it running here. */
		next->running_on = pc;
		pc->running = next;
		publish(next);
	}
	return 0;
}

/*
 * Counting is stopped for a switch to @next (or to nothing): re-base every
 * counter past its threshold that the outgoing context counted on (its
 * overflows are counted, their exception may have gone with the stop) or
 * that an a-mode counter of @next starts from, so that none alerts when
 * counting starts again.  @next's i-mode counters are armed later anyway.
 * @snap[*@have] holds what was read, and then what was written.
 */
static int rebase_crossed(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *next,
			  uint64_t *snap, uint32_t *have)
{
	const struct pmuvirt_slot *sl = pc->pmu->slot;
	uint32_t want = *have;
	unsigned int i, s;
	int ret;

	for (i = 0; next && i < next->nr_counters; i++)
		if (!next->counter[i].period)
			want |= 1u << next->counter[i].slot;
	for (s = 0; want; s++, sl++, want >>= 1) {
		if (!(want & 1) || sl->cls == PMUVIRT_CLASS_TSC)
			continue;
		ret = read_slot(pc, s, snap, have);
		if (!ret && past_threshold(sl, snap[s])) {
			snap[s] = (sl->threshold - half_range(sl)) & pmuvirt_width_mask(sl->width);
			ret = ops_of(pc)->write(pc, s, snap[s]);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Backends with ops->start: stop counting, then take the running context
 * off (its last sample) and re-base what it left past a threshold.  From
 * the stop on no counter moves, so none crosses its threshold for no one
 * before the next context's start values are in.  A failing stop faults
 * the running context (else @next), a failing re-base @next, whose
 * switch-in it serves.
 */
static int stop_and_suspend(struct pmuvirt_pcpu *pc, uint64_t *snap, uint32_t *have,
			    struct pmuvirt_ctx *next)
{
	int ret = ops_of(pc)->stop(pc);

	if (ret < 0)
		return fault(pc, pc->running ? pc->running : next, ret);
	ret = suspend_current(pc, snap, have, 0);
	if (ret)
		return ret;
	ret = rebase_crossed(pc, next, snap, have);
	if (ret)
		return fault(pc, next, ret);
	return 0;
}

/*
 * A switch that does more than offset, on a PMU whose counters must not
 * count while they are written (ops->start, POWER): every start value goes
 * in with counting stopped, and ops->start comes last.
 */
static __attribute__((__noinline__, __cold__)) int switch_stopped(struct pmuvirt_pcpu *pc,
						       struct pmuvirt_ctx *next)
{
	uint64_t snap[PMUVIRT_MAX_SLOTS] PMUVIRT_NOINIT;
	uint32_t have = 0;
	int ret;

	/*
	 * Do the registers hold @next's control?  Asked before the stop
	 * changes them; afterwards the stamp this records tells.
	 */
	if (next && next->nr_counters)
		(void)cache_current(pc, next);
	ret = stop_and_suspend(pc, snap, &have, next);
	if (ret)
		return ret;
	if (!next || !next->nr_counters || (next->flags & PMUVIRT_CTX_FAULTED))
		return park(pc, next);
	ret = resume(pc, next, snap, have);
	if (ret)
		return ret;
	ret = ops_of(pc)->start(pc, next);
	if (ret < 0)
		return fault(pc, next, ret);
	return 0;
}

int pmuvirt_switch(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *next)
{
	struct pmuvirt_ctx *prev = pc->running;
	uint64_t snap[PMUVIRT_MAX_SLOTS] PMUVIRT_NOINIT;
	uint32_t have = 0;
	int ret;

	pc->stats.switches++;
	if (next == prev)
		return 0;
	if (next && next->running_on)
		return -EBUSY;
	/* The offsetting passes fold every counter: a muted one takes the general way. */
	if (prev && next && !prev->muted_mask && is_pair(pc, prev, next) && may_offset(pc, next))
		return switch_pair(pc, prev, next);
	if (next) {
		if (offset_only(pc, prev, next))
			return switch_offset(pc, next);
		if (pmuvirt_unlikely(pc->stop_first))
			return switch_stopped(pc, next);
	} else if (pc->stop_first) {
		return switch_stopped(pc, NULL);
	}
	ret = suspend_current(pc, snap, &have, 0);
	if (ret)
		return ret;
	if (!next || !next->nr_counters || (next->flags & PMUVIRT_CTX_FAULTED))
		return park(pc, next);
	ret = resume(pc, next, snap, have);
	if (!ret && imode_pair(pc, prev, next))
		make_pair(pc, prev, next);
	return ret;
}

int pmuvirt_switch_in(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx)
{
	if (pc->running)
		return -EBUSY;
	if (!ctx)
		return -EINVAL;
	return pmuvirt_switch(pc, ctx);
}

int pmuvirt_switch_out(struct pmuvirt_pcpu *pc)
{
	if (!pc->running)
		return 0;
	return pmuvirt_switch(pc, NULL);
}

/* Give @ctx the control @ctl, validated into @img and @slots: every counter from zero. */
static void apply_control(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			  const struct pmuvirt_hwctl *img, const uint8_t *slots)
{
	unsigned int i;

	ctx->img = *img;
	ctx->nr_counters = (uint16_t)ctl->nr_counters;
	ctx->nr_shared = ctx->nr_counters;
	ctx->imode_mask = 0;
	ctx->sample_mask = 0;
	ctx->values_mask = 0;
	ctx->muted_mask = 0;
	for (i = 0; i < ctl->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];

		c->count = 0;
		c->start = 0;
		c->period = ctl->counter[i].period;
		c->next_ovf = c->period;
		c->pending = 0;
		c->muted = 0;
		c->slot = slots[i];
		c->width = ctx->pmu->slot[slots[i]].width;
		c->event = pmuvirt_ctl_event(&ctl->counter[i]);
		if (c->period)
			ctx->imode_mask |= 1u << i;
		if (ctl->counter[i].flags & PMUVIRT_CTR_SAMPLE)
			ctx->sample_mask |= 1u << i;
		if (ctl->counter[i].flags & PMUVIRT_CTR_SAMPLE_VALUES)
			ctx->values_mask |= 1u << i;
	}
	ctx->flags = (ctx->flags & ~PMUVIRT_CTX_FAULTED) | PMUVIRT_CTX_HAS_CONTROL;
	ctx->fault = 0;
	ctx->stamp = pmuvirt_stamp_next();
}

void pmuvirt_ctx_apply(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
		       const struct pmuvirt_hwctl *img, const uint8_t *slots)
{
	apply_control(ctx, ctl, img, slots);
}

int pmuvirt_ctx_suspend(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx)
{
	uint64_t snap[PMUVIRT_MAX_SLOTS];
	uint32_t have = 0;

	if (!ctx->running_on)
		return 0;
	if (ctx->running_on != pc || pc->running != ctx)
		return -EBUSY;
	if (pc->stop_first)
		return stop_and_suspend(pc, snap, &have, ctx);
	return suspend_current(pc, snap, &have, 0);
}

int pmuvirt_set_control(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx,
			const struct pmuvirt_control *ctl, struct pmuvirt_error *err)
{
	struct pmuvirt_hwctl img;
	uint8_t slots[PMUVIRT_MAX_COUNTERS];
	bool was_running;
	int ret;

	if (!ctx)
		return pmuvirt_fail(err, -1, "no context", -EINVAL);
	if (ctx->running_on && ctx->running_on != pc)
		return pmuvirt_fail(err, -1, "context runs on another CPU", -EBUSY);
	ret = pmuvirt_validate(ctx->pmu, ctl, ctx->max_counters, &img, slots, err);
	if (ret)
		return ret;

	was_running = ctx->running_on != NULL;
	if (was_running) {
		ret = pmuvirt_ctx_suspend(pc, ctx);
		if (ret)
			return ret;
	}
	apply_control(ctx, ctl, &img, slots);
	publish(ctx);
	if (was_running)
		return pmuvirt_switch(pc, ctx);
	return 0;
}

int pmuvirt_ctx_load_control(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			     struct pmuvirt_error *err)
{
	struct pmuvirt_hwctl img;
	uint8_t slots[PMUVIRT_MAX_COUNTERS];
	int ret;

	if (ctx->running_on)
		return pmuvirt_fail(err, -1, "context runs on a CPU", -EBUSY);
	ret = pmuvirt_validate(ctx->pmu, ctl, ctx->max_counters, &img, slots, err);
	if (ret)
		return ret;
	apply_control(ctx, ctl, &img, slots);
	return 0;
}

/* May an ARM name @mask among the first @n counters? */
static bool arm_mask_ok(unsigned int n, uint32_t mask)
{
	return mask && !(n < 32 && (mask >> n));
}

/* The checks of each counter an ARM names among the first @n. */
static int arm_check_counters(const struct pmuvirt_ctx *ctx, unsigned int n, uint32_t mask,
			      const uint64_t *remaining, const uint64_t *period)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (!ctx->counter[i].period || !period[i] || !remaining[i])
			return -EINVAL;
		if (period[i] > PMUVIRT_PERIOD_MAX)
			return -ERANGE;
		/* The logical point of the next notification must not wrap. */
		if (remaining[i] > PMUVIRT_ARM_REMAINING_MAX ||
		    ctx->counter[i].count + remaining[i] < remaining[i])
			return -ERANGE;
	}
	return 0;
}

int pmuvirt_arm_check(const struct pmuvirt_ctx *ctx, uint32_t mask, const uint64_t *remaining,
		      const uint64_t *period)
{
	if (!ctx || !remaining || !period || !arm_mask_ok(ctx->nr_shared, mask))
		return -EINVAL;
	return arm_check_counters(ctx, ctx->nr_shared, mask, remaining, period);
}

int pmuvirt_arm_counters(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint32_t mask,
			 const uint64_t *remaining, const uint64_t *period)
{
	bool running, called = false;
	unsigned int i;
	int ret;

	if (!ctx || !remaining || !period || !arm_mask_ok(ctx->nr_counters, mask))
		return -EINVAL;
	if (ctx->running_on && ctx->running_on != pc)
		return -EBUSY;
	ret = arm_check_counters(ctx, ctx->nr_counters, mask, remaining, period);
	if (ret)
		return ret;
	running = ctx->running_on != NULL;
	if (running && pc->running == ctx) {
		ret = pc->paused ? 0 : sample_current(pc, false);
		if (ret)
			return ret;
	}
	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];

		if (!(mask & (1u << i)))
			continue;
		c->period = period[i];
		/* remaining[i] ahead, modulo 2^64 if the sample above passed the check's count */
		c->next_ovf = c->count + remaining[i];
	}
	if (!running)
		return 0;
	if (stacked(pc)) {
		ret = arm_batch(pc, ctx, mask, &called);
		if (!ret && called)
			ret = restart_from_now(pc, ctx, mask);
	} else {
		ret = 0;
		for (i = 0; !ret && i < ctx->nr_counters; i++)
			if (mask & (1u << i))
				ret = arm(pc, ctx, i);
	}
	if (ret)
		return fault(pc, ctx, ret);
	publish(ctx);
	return 0;
}

int pmuvirt_read_counter(struct pmuvirt_ctx *ctx, unsigned int i, uint64_t *val)
{
	struct pmuvirt_pcpu *pc = ctx->running_on;
	const struct pmuvirt_counter *c;
	uint64_t raw;
	int ret;

	if (i >= ctx->nr_counters)
		return -EINVAL;
	c = &ctx->counter[i];
	*val = c->count;
	if (!pc || pc->paused || c->muted)
		return 0;
	ret = ops_of(pc)->read(pc, c->slot, &raw);
	if (ret) {
		fault(pc, ctx, ret);
		*val = c->count;
		return -EFAULT;
	}
	*val += (raw - c->start) & pmuvirt_width_mask(slot_of(ctx, i)->width);
	return 0;
}

int pmuvirt_read(struct pmuvirt_ctx *ctx, uint64_t *vals)
{
	struct pmuvirt_pcpu *pc = ctx->running_on;
	unsigned int i;

	for (i = 0; i < ctx->nr_counters; i++) {
		const struct pmuvirt_counter *c = &ctx->counter[i];
		uint64_t raw;
		int ret;

		vals[i] = c->count;
		if (!pc || pc->paused || c->muted)
			continue;
		ret = ops_of(pc)->read(pc, c->slot, &raw);
		if (ret) {
			fault(pc, ctx, ret);
			for (; i < ctx->nr_counters; i++)
				vals[i] = ctx->counter[i].count;
			return -EFAULT;
		}
		vals[i] += (raw - c->start) & pmuvirt_width_mask(slot_of(ctx, i)->width);
	}
	return 0;
}

/*
 * One sample record per sampling counter that got notifications in this
 * PMI (@hits: how many, per counter), the host filling in where the
 * context was.  @live: read the values from the counters, otherwise each
 * counter's @count was just sampled.
 */
/* Counters whose overflows make records: sampling ones, with a ring attached. */
static inline uint32_t ctx_sample_mask(const struct pmuvirt_ctx *ctx)
{
	return ctx && ctx->samples ? ctx->sample_mask : 0;
}

/* Kept out of line: its frame (a record, the values) costs every PMI otherwise. */
static __attribute__((__noinline__)) int emit_samples(struct pmuvirt_pcpu *pc,
							struct pmuvirt_ctx *ctx,
							const uint64_t *hits, uint32_t which,
							bool live)
{
	uint64_t vals[PMUVIRT_MAX_COUNTERS];
	uint64_t *frames;
	void *rec;
	bool have_vals = false;
	unsigned int i, k;
	int ret;

	which &= ctx->sample_mask;
	if (!ctx->samples || !which)
		return 0;
	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_sample s;	/* @value[] past @nr_values is never read */
		/* A record speaks of its own group: the context's counters or a session's. */
		unsigned int first = i < ctx->nr_shared ? 0 : ctx->nr_shared;
		unsigned int end = i < ctx->nr_shared ? ctx->nr_shared : ctx->nr_counters;

		if (!(which & (1u << i)))
			continue;
		s.ip = 0;
		s.time = 0;
		s.tid = 0;
		s.cpu = pc->cpu;
		s.flags = 0;
		s.nr_values = 0;
		s.domain = 0;
		s.nr_kernel = 0;
		s.nr_user = 0;
		s.counter = (uint8_t)(i - first);
		s.weight = hits[i] > 0xffffffffu ? 0xffffffffu : (uint32_t)hits[i];
		if (ctx->values_mask & (1u << i)) {
			if (!have_vals) {
				if (live) {
					ret = pmuvirt_read(ctx, vals);
					if (ret)
						return ret;
				} else {
					for (k = 0; k < ctx->nr_counters; k++)
						vals[k] = ctx->counter[k].count;
				}
				have_vals = true;
			}
			s.flags = PMUVIRT_SAMPLE_VALUES;
			s.nr_values = (uint8_t)(end - first);
			for (k = first; k < end; k++)
				s.value[k - first] = vals[k];
		}
		rec = pmuvirt_sample_reserve(ctx->samples, &frames);
		if (!rec)
			continue;	/* full: counted as lost */
		ctx->sample_fill(ctx->sample_arg, pc, ctx, &s, frames,
				 frames ? ctx->samples->chain_depth : 0);
		pmuvirt_sample_commit(ctx->samples, rec, &s);
	}
	return 0;
}

/*
 * PMI of a stacked instance: every counter is a logical value below, so
 * fold them all, deliver what is due and re-arm the i-mode ones in one call.
 */
static int pmi_stacked(struct pmuvirt_pcpu *pc, uint32_t status, uint32_t *mask)
{
	struct pmuvirt_ctx *ctx = pc->running;
	uint64_t hits[PMUVIRT_MAX_COUNTERS] PMUVIRT_NOINIT;
	uint32_t which = 0;
	bool called = false;
	unsigned int i;
	int ret;

	if (ctx && !pc->paused) {
		uint32_t smask = ctx_sample_mask(ctx);

		/* The boundaries crossed, not the growth of @pending, which saturates. */
		ret = sample_counters(pc, false, ~(uint32_t)0, smask ? hits : NULL);
		if (ret)
			return ret;
		*mask |= pmuvirt_ctx_pending(ctx);
		for (i = 0; smask && i < ctx->nr_counters; i++)
			if (hits[i])
				which |= 1u << i;
		if (which & smask) {
			ret = emit_samples(pc, ctx, hits, which, false);
			if (ret)
				return ret;
		}
		ret = arm_batch(pc, ctx, ctx->imode_mask, &called);
		if (!ret && called)
			ret = restart_from_now(pc, ctx, ctx->imode_mask);
		if (ret)
			return fault(pc, ctx, ret);
		publish(ctx);
	}
	ret = ops_of(pc)->pmi_end(pc, status);
	if (ret < 0)
		return fault(pc, ctx, ret);
	return 0;
}

/*
 * PMI of a hardware PMU: sample and re-arm each counter past its threshold;
 * re-base those that crossed for no one.
 */
static int pmi_hw(struct pmuvirt_pcpu *pc, uint32_t status, uint32_t *mask)
{
	struct pmuvirt_ctx *ctx = pc->running;
	const struct pmuvirt_pmu *pmu = pc->pmu;
	uint64_t hits[PMUVIRT_MAX_COUNTERS] PMUVIRT_NOINIT;
	uint32_t used = 0, which = 0, nobody;
	unsigned int i, s;
	int ret;

	for (i = 0; ctx && i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];
		const struct pmuvirt_slot *sl = slot_of(ctx, i);
		uint64_t raw;

		used |= 1u << c->slot;
		if (sl->cls == PMUVIRT_CLASS_TSC)
			continue;
		ret = ops_of(pc)->read(pc, c->slot, &raw);
		if (ret)
			return fault(pc, ctx, ret);
		if (!past_threshold(sl, raw))
			continue;
		if (pc->paused) {
			/* Nothing is counted while paused: park, re-arm on resample. */
			c->start = raw;
			ret = arm_at(pc, ctx, i, true);
			if (c->period)
				pc->paused = PMUVIRT_PAUSED_PARKED;
		} else if (pmuvirt_unlikely(c->muted)) {
			/* Nor while muted: park, re-armed when it counts again (no storm). */
			c->start = raw;
			ret = arm_at(pc, ctx, i, true);
			if (c->period)
				c->muted = PMUVIRT_MUTED_PARKED;
		} else {
			sample(c, sl, raw);
			hits[i] = collect_overflows(c);
			if (hits[i])
				which |= 1u << i;
			ret = arm(pc, ctx, i);
		}
		if (ret)
			return fault(pc, ctx, ret);
	}

	/* Counters that crossed for nobody: re-base them so they stay quiet. */
	for (nobody = status & ~used; nobody; nobody &= nobody - 1) {
		const struct pmuvirt_slot *sl;
		uint64_t raw;

		s = (unsigned int)__builtin_ctz(nobody);
		if (s >= pmu->nr_slots)
			break;
		sl = &pmu->slot[s];
		if (sl->cls == PMUVIRT_CLASS_TSC)
			continue;
		ret = ops_of(pc)->read(pc, s, &raw);
		if (ret)
			return fault(pc, ctx, ret);
		if (past_threshold(sl, raw)) {
			ret = ops_of(pc)->write(pc, s, (sl->threshold - half_range(sl)) &
							       pmuvirt_width_mask(sl->width));
			if (ret)
				return fault(pc, ctx, ret);
		}
	}

	*mask |= which;
	if (pmuvirt_unlikely(which & ctx_sample_mask(ctx))) {
		ret = emit_samples(pc, ctx, hits, which, true);
		if (ret)
			return ret;
	}
	ret = ops_of(pc)->pmi_end(pc, status);
	if (ret < 0)
		return fault(pc, ctx, ret);
	if (ctx)
		publish(ctx);
	return 0;
}

int pmuvirt_pmi(struct pmuvirt_pcpu *pc, uint32_t *ovf_mask)
{
	uint32_t status = 0, mask = 0;
	int ret;

	pc->stats.pmis++;
	if (ovf_mask)
		*ovf_mask = 0;
	ret = ops_of(pc)->pmi_begin(pc, &status);
	if (ret < 0)
		return fault(pc, pc->running, ret);
	if (stacked(pc))
		ret = pmi_stacked(pc, status, &mask);
	else
		ret = pmi_hw(pc, status, &mask);
	if (!ret && ovf_mask)
		*ovf_mask = mask;
	return ret;
}

bool pmuvirt_ctx_own_user_index(const struct pmuvirt_ctx *ctx, uint32_t index)
{
	unsigned int i;

	for (i = 0; i < ctx->nr_shared; i++) {
		const struct pmuvirt_slot *s = &ctx->pmu->slot[ctx->counter[i].slot];

		if (s->cls != PMUVIRT_CLASS_TSC && s->user_index && s->user_index - 1 == index)
			return true;
	}
	return false;
}

uint32_t pmuvirt_ctx_pending(const struct pmuvirt_ctx *ctx)
{
	uint32_t mask = 0;
	unsigned int i;

	for (i = 0; i < ctx->nr_counters; i++)
		if (PMUVIRT_READ_ONCE32(&ctx->counter[i].pending))
			mask |= 1u << i;
	return mask;
}

uint32_t pmuvirt_take_overflows_mask(struct pmuvirt_ctx *ctx, uint32_t which, uint32_t *counts)
{
	uint32_t mask = 0;
	unsigned int i;

	for (i = 0; i < ctx->nr_counters; i++) {
		uint32_t n = 0;

		/* one step: a PMI between a read and a clear would lose what it adds */
		if (which & (1u << i))
			n = PMUVIRT_XCHG32(&ctx->counter[i].pending, 0);
		if (counts)
			counts[i] = n;
		if (n)
			mask |= 1u << i;
	}
	return mask;
}

uint32_t pmuvirt_take_overflows(struct pmuvirt_ctx *ctx, uint32_t *counts)
{
	return pmuvirt_take_overflows_mask(ctx, ~(uint32_t)0, counts);
}

/*
 * Sample the counters in @which (a counter mask) of the running context;
 * @discard drops the events since their last sample.  @hits, if not NULL,
 * receives per counter the period boundaries its count reached (0 for the
 * counters outside @which).
 */
static int sample_counters(struct pmuvirt_pcpu *pc, bool discard, uint32_t which,
			   uint64_t *hits)
{
	struct pmuvirt_ctx *ctx = pc->running;
	unsigned int i;
	int ret;

	if (!ctx)
		return 0;
	for (i = 0; i < ctx->nr_counters; i++) {
		struct pmuvirt_counter *c = &ctx->counter[i];
		uint64_t raw, n;

		if (hits)
			hits[i] = 0;
		if (!(which & (1u << i)))
			continue;
		ret = ops_of(pc)->read(pc, c->slot, &raw);
		if (ret)
			return fault(pc, ctx, ret);
		if (discard)
			c->start = raw;
		else
			sample(c, slot_of(ctx, i), raw);
		n = collect_overflows(c);
		if (hits)
			hits[i] = n;
	}
	publish(ctx);
	return 0;
}

/* Sample every counter of the running context; @discard drops the events since the last sample. */
static int sample_current(struct pmuvirt_pcpu *pc, bool discard)
{
	return sample_counters(pc, discard, ~(uint32_t)0, NULL);
}

/* Only the i-mode counters: the a-mode ones need no sample for a take. */
int pmuvirt_collect(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx)
{
	if (!pc || !ctx)
		return -EINVAL;
	if (!ctx->running_on)
		return 0;
	if (ctx->running_on != pc || pc->running != ctx)
		return -EBUSY;
	return pc->paused ? 0 : sample_counters(pc, false, ctx->imode_mask, NULL);
}

int pmuvirt_mute(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint32_t which, uint32_t mask)
{
	uint32_t change;
	bool live, parked;
	int ret;

	if (!ctx || (mask & ~which) || (ctx->nr_counters < 32 && (which >> ctx->nr_counters)))
		return -EINVAL;
	if (ctx->running_on && ctx->running_on != pc)
		return -EBUSY;
	change = (ctx->muted_mask ^ mask) & which;
	if (!change)
		return 0;
	live = ctx->running_on && pc->running == ctx && !pc->paused;
	for (; change; change &= change - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(change);
		struct pmuvirt_counter *c = &ctx->counter[i];
		uint64_t raw;

		/* stopping: the events so far count; starting: from now */
		if (live) {
			ret = ops_of(pc)->read(pc, c->slot, &raw);
			if (ret)
				return fault(pc, ctx, ret);
			sample(c, slot_of(ctx, i), raw);
			if (c->period)
				collect_overflows(c);
		}
		parked = c->muted == PMUVIRT_MUTED_PARKED;
		c->muted = c->muted ? 0 : PMUVIRT_MUTED;
		ctx->muted_mask ^= 1u << i;
		/* a PMI parked it: its real distance back (off the CPU, the switch in does it) */
		if (parked && live) {
			ret = arm(pc, ctx, i);
			if (ret)
				return fault(pc, ctx, ret);
		}
	}
	publish(ctx);
	return 0;
}

int pmuvirt_pause(struct pmuvirt_pcpu *pc)
{
	int ret;

	if (pc->paused)
		return 0;
	ret = sample_current(pc, false);
	if (!ret && pc->running)
		pc->paused = 1;
	return ret;
}

int pmuvirt_resample(struct pmuvirt_pcpu *pc)
{
	struct pmuvirt_ctx *ctx = pc->running;
	bool parked = pc->paused == PMUVIRT_PAUSED_PARKED;
	unsigned int i;
	int ret;

	pc->paused = 0;
	ret = sample_current(pc, true);
	if (ret || !parked || !ctx || stacked(pc))
		return ret;
	/* i-mode counters parked by a PMI during the pause get their real distance back. */
	for (i = 0; i < ctx->nr_counters; i++) {
		if (!ctx->counter[i].period)
			continue;
		ret = arm(pc, ctx, i);
		if (ret)
			return fault(pc, ctx, ret);
	}
	publish(ctx);
	return 0;
}

void pmuvirt_ctx_release(struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_pcpu *pc = ctx->running_on;

	if (pc && pc->running == ctx)
		pmuvirt_switch(pc, NULL);
	ctx->running_on = NULL;
	ctx->stamp = 0;
	ctx->shared = NULL;
}
