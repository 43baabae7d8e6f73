/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The interface between the host-neutral core and an architecture backend.
 * Included by src/core and src/arch only.
 *
 * A backend fills a struct pmuvirt_pmu at probe time (slots, widths,
 * thresholds, caps, ops) and implements the operations below.  Every
 * register access goes through pc->hw and is counted in pc->stats; the
 * counts are for accounting only, the core never decides on them.
 *
 * Return values: every operation returns a negative errno on failure.  On
 * success @read, @read_index and @write return 0, @load and @arm return how
 * much they wrote (see there), and @stop, @start, @pmi_begin, @pmi_end and
 * @clear_status return 0 or a count the core ignores (pmuvirt_cache_write()'s
 * result).
 */
#ifndef PMUVIRT_ARCH_H
#define PMUVIRT_ARCH_H

#include "pmuvirt_defaults.h"
#include <pmuvirt/pmuvirt.h>

/**
 * struct pmuvirt_arch_ops - what a backend implements
 * @name:	backend name.
 * @flags:	PMUVIRT_OPS_*.
 * @encode:	validate the architecture-specific parts of @ctl (raw codes,
 *		filters, events this model has) and build the register image
 *		@img for the slot assignment @slots that the core already made
 *		(pmuvirt_assign()).  Must not touch hardware.  The core has
 *		checked version, sizes, reserved fields and period ranges.
 * @slot_ok:	optional: may counter @ctr be placed on slot @slot?  The
 *		assigner asks it for every candidate; NULL means "general
 *		counters can count anything, fixed ones only their events".
 * @load:	make the control registers hold @ctx->img, writing only those
 *		that differ from pc->cache or are not in pc->cache_known, and
 *		keep the cache exact after each successful write.  Returns the
 *		number of control registers written (0: the registers already
 *		held the image, so counter values read before stay valid).
 *		A backend with @start leaves counting stopped instead, so
 *		counter values read before stay valid: it returns 0.
 * @stop:	stop all counting on @pc with as few writes as possible
 *		(x86 v2+: GLOBAL_CTRL = 0; POWER: MMCR0 FC); keep the cache exact.
 * @start:	optional, for a PMU whose counters must not count while they
 *		are written (POWER: a negative PMC alerts as soon as counting
 *		runs with alerts enabled).  A switch that does more than offset
 *		then calls @stop before it samples the outgoing context, writes
 *		the incoming one's start values with counting stopped, and calls
 *		@start last: count with the control @load loaded for @ctx.
 *		NULL: @load starts counting, and a switch writes counters while
 *		they count.
 * @read:	raw value of @slot.
 * @read_index: optional: the index that the hardware's read_counter takes
 *		for @slot (PMUVIRT_HW_INDEX_TSC for read_tsc), when @read of
 *		@slot is that read masked to the slot's width; a negative errno
 *		for a slot read otherwise.  The core then reads the counters
 *		of a CPU's pair through the host's read_counters in one call.
 *		NULL: always through @read.
 * @write:	set the raw value of @slot (counting may be running).
 * @arm:	PMUVIRT_OPS_STACKED backends only (the others leave it NULL):
 *		make each slot in @slots signal an overflow after
 *		@remaining[slot] events, with @period[slot] as the reload for
 *		later ones, all in one step (one hypercall), so that the
 *		events of that step fall outside every counter.  @start[slot]
 *		holds the raw value just sampled and receives the raw value
 *		after arming.  Arrays are indexed by slot.  Returns the number
 *		of calls made below (0: nothing needed arming, @start is
 *		unchanged and no event was spent).  Without it the core
 *		writes slot.threshold - min(remaining, 2^(width-1)).
 * @pmi_begin:	stop counting and report in @status the slots that the
 *		hardware flags as overflowed (every slot when the PMU has no
 *		status register).
 * @pmi_end:	clear the overflow status of @clear and resume counting as
 *		the cache says.
 * @clear_status: optional: clear stale overflow status bits of @slots.
 */
struct pmuvirt_arch_ops {
	const char *name;
	uint32_t flags;
	int (*encode)(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
		      const uint8_t *slots, struct pmuvirt_hwctl *img,
		      struct pmuvirt_error *err);
	bool (*slot_ok)(const struct pmuvirt_pmu *pmu, const struct pmuvirt_counter_ctl *ctr,
			unsigned int slot);
	int (*load)(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx);
	int (*stop)(struct pmuvirt_pcpu *pc);
	int (*start)(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx);
	int (*read)(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *val);
	int (*read_index)(const struct pmuvirt_pmu *pmu, unsigned int slot, uint32_t *idx);
	int (*write)(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t val);
	int (*arm)(struct pmuvirt_pcpu *pc, uint32_t slots, const uint64_t *remaining,
		   const uint64_t *period, uint64_t *start);
	int (*pmi_begin)(struct pmuvirt_pcpu *pc, uint32_t *status);
	int (*pmi_end)(struct pmuvirt_pcpu *pc, uint32_t clear);
	int (*clear_status)(struct pmuvirt_pcpu *pc, uint32_t slots);
};

/*
 * struct pmuvirt_arch_ops.flags
 * PMUVIRT_OPS_STACKED: the counters are those of another pmuvirt instance
 * below (PV).  They cannot be written (@write fails) and never hold another
 * security domain's events, so the core never re-bases them; i-mode
 * counters are armed with @arm, one call for all of a context's, and a PMI
 * is handled by folding every counter.
 */
#define PMUVIRT_OPS_STACKED	0x1u

/* Helpers the core offers to backends (src/core/util.c). */

/* Mask of the low @width bits (width 1..64). */
static inline uint64_t pmuvirt_width_mask(unsigned int width)
{
	return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

/* struct pmuvirt_counter.event of a counter that @cc controls. */
static inline uint8_t pmuvirt_ctl_event(const struct pmuvirt_counter_ctl *cc)
{
	return (cc->flags & PMUVIRT_CTR_RAW) ? PMUVIRT_EV_NONE : (uint8_t)cc->event;
}

/* Register accessors that count in pc->stats; inline, as every hot path calls them. */
static inline int pmuvirt_hw_read_reg(struct pmuvirt_pcpu *pc, uint32_t reg, uint64_t *val)
{
	pc->stats.reg_reads++;
	return pc->hw->read_reg(pc->hw_arg, reg, val);
}

static inline int pmuvirt_hw_write_reg(struct pmuvirt_pcpu *pc, uint32_t reg, uint64_t val)
{
	pc->stats.reg_writes++;
	return pc->hw->write_reg(pc->hw_arg, reg, val);
}

static inline int pmuvirt_hw_write_ctl(struct pmuvirt_pcpu *pc, uint32_t reg, uint64_t val)
{
	pc->stats.ctl_writes++;
	return pmuvirt_hw_write_reg(pc, reg, val);
}

static inline int pmuvirt_hw_read_counter(struct pmuvirt_pcpu *pc, uint32_t idx, uint64_t *val)
{
	pc->stats.reg_reads++;
	return pc->hw->read_counter(pc->hw_arg, idx, val);
}

static inline int pmuvirt_hw_read_tsc(struct pmuvirt_pcpu *pc, uint64_t *val)
{
	pc->stats.reg_reads++;
	return pc->hw->read_tsc(pc->hw_arg, val);
}

/*
 * Write image register @i to hardware register @reg if the cache does not
 * already hold @val; keeps the cache exact.  Returns 1 when it wrote, 0 when
 * the cache already held @val, or the accessor's (negative) error.
 */
static inline int pmuvirt_cache_write(struct pmuvirt_pcpu *pc, unsigned int i, uint32_t reg,
				      uint64_t val)
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

/*
 * @n / @d for 64-bit unsigned values (@d nonzero), by shift and subtract:
 * 32-bit hosts need no libgcc helper.  Up to 64 steps; for cold paths.
 */
uint64_t pmuvirt_div64(uint64_t n, uint64_t d);

/* Write @ctx's state to its shared record, if it has one (ctx.c). */
void pmuvirt_ctx_publish(struct pmuvirt_ctx *ctx);

/*
 * pmuvirt_set_control() of a context that runs on no CPU, without
 * publishing its shared record: the caller publishes once the context's
 * state is final (ctx.c).  -EBUSY when @ctx runs; the errors of
 * pmuvirt_validate(), with @ctx unchanged.
 */
int pmuvirt_ctx_load_control(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			     struct pmuvirt_error *err);

/*
 * Take @ctx, running on @pc, off the CPU with a last sample of every
 * counter (overflows collected), as pmuvirt_set_control() does first: no
 * register is written (a backend with a start operation stops counting
 * first).  Afterwards @pc runs no context until pmuvirt_switch().  0 when
 * @ctx runs nowhere; -EBUSY when it runs on another pcpu; -EFAULT.
 */
int pmuvirt_ctx_suspend(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx);

/*
 * Give @ctx, running nowhere, the control @ctl that pmuvirt_validate()
 * turned into @img and @slots: every counter from zero, i-mode counters
 * notifying after their period, a new stamp.  Publishes nothing.
 */
void pmuvirt_ctx_apply(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
		       const struct pmuvirt_hwctl *img, const uint8_t *slots);

/*
 * pmuvirt_ctx_save() of the first @ctl->nr_counters counters of @ctx, which
 * count @ctl; the counters after them are left out.
 */
int pmuvirt_ctx_save_part(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			  struct pmuvirt_saved_ctx *out);

/*
 * pmuvirt_ctx_restore() of a blob whose first @nr_own counters are the
 * context's own and the rest a session's: the shared record, published
 * once when the state is final, shows the own ones (save.c).
 */
int pmuvirt_ctx_restore_own(struct pmuvirt_ctx *ctx, const struct pmuvirt_saved_ctx *in,
			    unsigned int nr_own, struct pmuvirt_error *err);

/* Set @err (if not NULL) and return @code. */
int pmuvirt_fail(struct pmuvirt_error *err, int counter, const char *reason, int code);

/*
 * Assign the counters of @ctl to slots of @pmu: the TSC to the TSC slot,
 * portable events to a fixed counter that counts them when one is free,
 * everything else to general counters (asking ops->slot_ok).  Counters with
 * the fewest candidate slots are placed first.
 * Returns 0, -ENOSPC or -ENODEV (no slot of any kind can take a counter).
 */
int pmuvirt_assign(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
		   uint8_t *slots, struct pmuvirt_error *err);

/* Does @slot of @pmu count portable event @ev? */
static inline bool pmuvirt_slot_counts(const struct pmuvirt_pmu *pmu, unsigned int slot,
				       unsigned int ev)
{
	return ev < 32 && (pmu->slot[slot].events & (1u << ev));
}

#endif /* PMUVIRT_ARCH_H */
