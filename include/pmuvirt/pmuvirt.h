/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt: host-neutral virtualization of hardware event counters.
 *
 * Objects (the caller allocates all of them; the library never allocates):
 *   struct pmuvirt_pmu   what the PMU of the machine can do (one per system,
 *                        filled by a backend's probe function)
 *   struct pmuvirt_pcpu  one per physical CPU (or per VCPU for a guest
 *                        instance): the register cache and the running
 *                        context
 *   struct pmuvirt_ctx   one per counted context (a VCPU in a hypervisor, a
 *                        thread in a kernel); size from pmuvirt_ctx_size()
 *
 * Concurrency contract: a struct pmuvirt_pcpu and the context running on it
 * are touched only by their own CPU with interrupts (hypervisor) or
 * preemption and the PMU interrupt (kernel) off.  A suspended context may be
 * touched by any CPU under the caller's own lock for that context.  There is
 * no global lock; the only shared write is an atomic increment that stamps a
 * context when its control changes.
 *
 * Field names are visible so callers can embed the structs; only the
 * functions below may change them.
 */
#ifndef PMUVIRT_PMUVIRT_H
#define PMUVIRT_PMUVIRT_H

#include "types.h"
#include "abi.h"

#define PMUVIRT_MAX_SLOTS	16	/* physical counters, TSC included */
#define PMUVIRT_MAX_GP		8	/* general counters used */
#define PMUVIRT_MAX_FIXED	7	/* fixed counters used */
#define PMUVIRT_HWCTL_REGS	16	/* control registers in an image */

/* Counter classes (struct pmuvirt_slot.cls). */
enum pmuvirt_class {
	PMUVIRT_CLASS_GP = 0,
	PMUVIRT_CLASS_FIXED = 1,
	PMUVIRT_CLASS_TSC = 2,
};

/* struct pmuvirt_pmu.arch */
enum pmuvirt_arch {
	PMUVIRT_ARCH_NONE = 0,
	PMUVIRT_ARCH_X86 = 1,
	PMUVIRT_ARCH_PPC = 2,
	PMUVIRT_ARCH_PV = 3,	/* stacked on another pmuvirt instance */
};

/* struct pmuvirt_pmu.caps */
#define PMUVIRT_CAP_GLOBAL_STATUS	0x1u	/* one register says who overflowed */
#define PMUVIRT_CAP_GLOBAL_CTRL		0x2u	/* one register starts/stops all */
#define PMUVIRT_CAP_FW_WRITE		0x4u	/* full-width counter writes */
#define PMUVIRT_CAP_FREEZE_ON_PMI	0x8u	/* hardware stops counting on a PMI */
/* Counters can leave the host out and count a guest only (PMUVIRT_CTR_GUEST). */
#define PMUVIRT_CAP_GUEST_ONLY		0x10u

/**
 * struct pmuvirt_slot - one physical counter
 * @cls:	enum pmuvirt_class.
 * @index:	index within its class (IA32_PMCx x, IA32_FIXED_CTRx x, PMCx-1).
 * @width:	counter width in bits (32, 40, 48 or 64).
 * @flags:	reserved, zero.
 * @events:	bit (1 << enum pmuvirt_event) for each portable event this
 *		slot can count.
 * @user_index: what a user-mode reader passes to its read instruction, plus
 *		one (x86: rdpmc ECX + 1; POWER: PMC number; TSC:
 *		PMUVIRT_SHARED_TSC); 0 when user mode cannot read it.
 * @threshold:	raw value at which the counter signals an overflow (0 on x86,
 *		where counters overflow when they wrap; 0x80000000 on POWER).
 */
struct pmuvirt_slot {
	uint8_t cls;
	uint8_t index;
	uint8_t width;
	uint8_t flags;
	uint32_t events;
	uint32_t user_index;
	uint32_t reserved;
	uint64_t threshold;
};

struct pmuvirt_arch_ops;

/**
 * struct pmuvirt_pmu - a probed PMU
 * @ops:	the backend's operations.
 * @arch:	enum pmuvirt_arch.
 * @model:	backend-specific model number (see the backend's header).
 * @caps:	PMUVIRT_CAP_*.
 * @nr_slots:	valid entries of @slot.
 * @nr_gp, @nr_fixed: counters per class (@nr_slots also counts the TSC).
 * @name:	human-readable model name.
 * @slot:	the physical counters; general counters first, then fixed
 *		counters, then the TSC.
 * @arch_data:	backend-private facts (reserved-bit masks, versions).
 * @lower:	PV backend only: the instance below, opaque to the core.
 */
struct pmuvirt_pmu {
	const struct pmuvirt_arch_ops *ops;
	uint32_t arch;
	uint32_t model;
	uint32_t caps;
	uint32_t nr_slots;
	uint32_t nr_gp;
	uint32_t nr_fixed;
	char name[40];
	struct pmuvirt_slot slot[PMUVIRT_MAX_SLOTS];
	uint64_t arch_data[8];
	void *lower;
};

/**
 * struct pmuvirt_hw_ops - how a backend reaches the hardware of one CPU
 *
 * Each returns 0 or a negative errno (the _safe accessors' failure).  Tests
 * and tools put fakes here; kernels put their rdmsr_safe/wrmsr_safe,
 * mfspr/mtspr wrappers.  Functions reached through these pointers need
 * PMUVIRT_CF_CHECK under Xen.
 * @read_reg:	rdmsr (x86, @reg an MSR) or mfspr (POWER, @reg an SPR).
 * @write_reg:	wrmsr or mtspr.
 * @read_counter: rdpmc with ECX = @idx (x86) or mfspr of PMC @idx (POWER).
 * @read_tsc:	rdtsc (x86) or mftb (POWER).
 * @read_cpuid: x86 only: leaf @leaf, sub-leaf @sub into @out (EAX..EDX).
 * @read_counters: optional: @read_counter of each of the @n indexes in
 *		@idx into @vals, in order (@read_tsc where the index is
 *		PMUVIRT_HW_INDEX_TSC), stopping at the first failure and
 *		returning its error.  The switch between the two contexts of a
 *		CPU's pair reads all counters through one call of it.
 */
#define PMUVIRT_HW_INDEX_TSC	0xffffffffu	/* read_counters: this one is read_tsc */

struct pmuvirt_hw_ops {
	int (*read_reg)(void *arg, uint32_t reg, uint64_t *val);
	int (*write_reg)(void *arg, uint32_t reg, uint64_t val);
	int (*read_counter)(void *arg, uint32_t idx, uint64_t *val);
	int (*read_tsc)(void *arg, uint64_t *val);
	int (*read_cpuid)(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4]);
	int (*read_counters)(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals);
};

/**
 * pmuvirt_hw_read_each() - what @read_counters does, one read at a time
 * @hw:		the host's operations: their @read_counter and @read_tsc.
 * @arg, @idx, @n, @vals: as for @read_counters.
 *
 * The core reads so for a host without @read_counters; a host whose
 * counters cost the same read one by one can make it its @read_counters.
 *
 * Return: 0 or the first failing read's error (no read after it is made).
 */
int pmuvirt_hw_read_each(const struct pmuvirt_hw_ops *hw, void *arg, const uint32_t *idx,
			 unsigned int n, uint64_t *vals);

/**
 * struct pmuvirt_hwctl - an image of the control registers
 * @reg:	register values; the backend says which register each is.
 * @used:	bit i set when @reg[i] is part of the image.
 */
struct pmuvirt_hwctl {
	uint64_t reg[PMUVIRT_HWCTL_REGS];
	uint32_t used;
	uint32_t reserved;
};

/**
 * struct pmuvirt_stats - what a pcpu did (for cost accounting)
 */
struct pmuvirt_stats {
	uint64_t reg_reads;	/* counter and register reads, rdpmc and rdtsc included */
	uint64_t reg_writes;	/* register and counter writes */
	uint64_t ctl_writes;	/* of which control-register writes */
	uint64_t switches;	/* pmuvirt_switch() calls */
	uint64_t pmis;		/* pmuvirt_pmi() calls */
};

struct pmuvirt_ctx;

/**
 * struct pmuvirt_pcpu - per-CPU state
 * @pmu:	the PMU.
 * @hw, @hw_arg: register access.
 * @cpu:	the CPU number (PCPU in a hypervisor, VCPU in a guest); shared
 *		records name it in their @below field.
 * @running:	the context whose counters are on the hardware, or NULL.
 * @cache:	what the control registers hold.
 * @cache_known: bit i set when @cache.reg[i] is known to equal the register.
 * @paused:	nonzero between pmuvirt_pause() and pmuvirt_resample().
 * @owner_flags: nonzero when @owner_domain is known (library-private bits).
 * @cache_owner: stamp of the context whose control the cache holds, 0 none.
 * @cache_twin:	stamp of another context whose control the cache was found
 *		to hold (an identical image), 0 none; forgotten with @cache_owner.
 * @owner_domain: security domain of the last context that counted here:
 *		the counters' raw values derive from its events only.
 * @counted:	slots whose raw values may derive from @owner_domain's events:
 *		enabled by a control loaded since their last re-base
 *		(library-private; meaningful while @owner_flags is nonzero).
 * @pair:	stamps of two contexts that switch into each other in one pass:
 *		both found to hold the cached control, with no i-mode counter
 *		or (on a backend that writes counters while they count) the
 *		same i-mode counters, their counters on the slots of
 *		@pair_slot; 0 none.  Forgotten whenever the control registers
 *		change.
 * @pair_nr:	their number of counters.
 * @pair_slot:	the slot of each of their counters, in counter order.
 * @pair_batched: how the pair's switch reads its counters (library-private
 *		values): nonzero when every slot of the pair is read by
 *		@read_counter or @read_tsc, with the indexes of @pair_idx, in
 *		one call of @read_counters where @hw has it.
 * @pair_idx:	the @read_counter index of each pair slot (when batched).
 * @pair_mask:	the width mask of each pair slot.
 * @stop_first:	the backend has a start operation: a switch that writes
 *		counters stops counting before it samples (library-private).
 * @stats:	access counts.
 */
struct pmuvirt_pcpu {
	const struct pmuvirt_pmu *pmu;
	const struct pmuvirt_hw_ops *hw;
	void *hw_arg;
	uint32_t cpu;
	uint32_t cache_known;
	uint32_t paused;	/* between pmuvirt_pause() and pmuvirt_resample() */
	uint32_t owner_flags;
	uint32_t counted;
	struct pmuvirt_ctx *running;
	uint64_t cache_owner;
	uint64_t cache_twin;
	uint64_t owner_domain;
	uint64_t pair[2];
	struct pmuvirt_hwctl cache;
	struct pmuvirt_stats stats;
	uint8_t pair_nr;
	uint8_t pair_batched;
	uint8_t stop_first;
	uint8_t pair_slot[PMUVIRT_MAX_COUNTERS];
	uint32_t pair_idx[PMUVIRT_MAX_COUNTERS];
	uint64_t pair_mask[PMUVIRT_MAX_COUNTERS];
	void *host;	/* free for the host's use */
};

/**
 * struct pmuvirt_counter - state of one virtual counter
 * @count:	logical value when last sampled.
 * @start:	raw value below when last sampled (meaningful while running).
 * @next_ovf:	i-mode: logical value of the next overflow notification,
 *		1 to 2^63 events ahead of @count modulo 2^64 (both wrap as a
 *		64-bit counter does).
 * @period:	i-mode period; 0 for a-mode.
 * @pending:	overflow notifications found and not yet taken; saturates
 *		at 0xffffffff.
 * @slot:	physical slot (index into pmuvirt_pmu.slot).
 * @event:	enum pmuvirt_event, or PMUVIRT_EV_NONE for a raw code.
 * @width:	the slot's width, kept here for the switch path.
 * @muted:	PMUVIRT_MUTED while pmuvirt_mute() keeps the counter from
 *		counting (its events since @start count for no one), or
 *		PMUVIRT_MUTED_PARKED once a PMI parked it meanwhile; else 0.
 */
#define PMUVIRT_MUTED		1
#define PMUVIRT_MUTED_PARKED	2

struct pmuvirt_counter {
	uint64_t count;
	uint64_t start;
	uint64_t next_ovf;
	uint64_t period;
	uint32_t pending;
	uint8_t slot;
	uint8_t event;
	uint8_t width;
	uint8_t muted;
};

/* struct pmuvirt_ctx.flags */
#define PMUVIRT_CTX_FAULTED	0x1u	/* a register access failed; kept off hardware */
#define PMUVIRT_CTX_HAS_CONTROL	0x2u
#define PMUVIRT_CTX_DOMAIN	0x4u	/* @domain was set by the host */

/**
 * struct pmuvirt_ctx - a counted context; allocate pmuvirt_ctx_size() bytes
 */
struct pmuvirt_sample_writer;

/**
 * typedef pmuvirt_sample_fill_fn - the host's part of a sample record
 * @arg:	from pmuvirt_ctx_attach_samples().
 * @pc:		the pcpu whose PMI this is (pc->host is the host's).
 * @ctx:	the context the record is for.
 * @s:		the record: the core has set @cpu, @counter, @weight and the
 *		values; the host sets @ip, @time, @tid and PMUVIRT_SAMPLE_USER
 *		from the interrupted context.
 * @frames:	where the call chain goes when the ring's records hold one
 *		(struct pmuvirt_sample_chain's order; the host sets
 *		@s->nr_kernel and @s->nr_user), else NULL.
 * @max_frames:	room at @frames.
 *
 * Called from the PMI (an NMI on some hosts): it must not sleep or lock.
 * It is not called for a record a full ring would drop.
 */
typedef void (*pmuvirt_sample_fill_fn)(void *arg, const struct pmuvirt_pcpu *pc,
				       const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s,
				       uint64_t *frames, unsigned int max_frames);

struct pmuvirt_ctx {
	uint64_t stamp;
	uint64_t domain;	/* security domain; see pmuvirt_ctx_set_domain() */
	const struct pmuvirt_pmu *pmu;
	struct pmuvirt_pcpu *running_on;
	struct pmuvirt_shared_ctx *shared;
	uint16_t nr_counters;
	uint16_t max_counters;
	uint16_t nr_shared;	/* counters the shared record shows; see pmuvirt_ctx_join() */
	uint16_t reserved16;
	uint32_t flags;
	uint32_t imode_mask;
	int32_t fault;
	uint32_t sample_mask;	/* counters with PMUVIRT_CTR_SAMPLE */
	uint32_t values_mask;	/* of which with PMUVIRT_CTR_SAMPLE_VALUES */
	uint32_t muted_mask;	/* counters with @muted set; see pmuvirt_mute() */
	struct pmuvirt_sample_writer *samples;
	pmuvirt_sample_fill_fn sample_fill;
	void *sample_arg;
	struct pmuvirt_hwctl img;
	struct pmuvirt_counter counter[];
};

/**
 * struct pmuvirt_error - why a control was refused
 * @counter:	index of the offending counter, or -1 for the whole control.
 * @reason:	a static string a caller can log.
 */
struct pmuvirt_error {
	int counter;
	const char *reason;
};

/**
 * pmuvirt_strerror() - text for a negative errno returned by pmuvirt
 * @err:	the value returned.
 *
 * Return: a static string; never NULL.
 */
const char *pmuvirt_strerror(int err);

/**
 * pmuvirt_ctx_size() - bytes to allocate for a context
 * @max_counters: the most counters its controls will have (1..PMUVIRT_MAX_COUNTERS).
 *
 * Return: the size, or 0 if @max_counters is out of range.
 */
size_t pmuvirt_ctx_size(unsigned int max_counters);

/**
 * pmuvirt_ctx_init() - initialise a context with no counters
 * @ctx:	storage of @size bytes.
 * @size:	from pmuvirt_ctx_size().
 * @pmu:	the probed PMU.
 *
 * Return: 0; -EINVAL if @size is too small for even one counter.
 */
int pmuvirt_ctx_init(struct pmuvirt_ctx *ctx, size_t size, const struct pmuvirt_pmu *pmu);

/**
 * pmuvirt_ctx_set_domain() - put a context in a security domain
 * @ctx:	the context (not running).
 * @domain:	the host's tag for the domain: any 64-bit value that names no
 *		other domain for as long as a CPU may remember it (Xen: a
 *		domain, Linux: a process).  Tags that get reused (Xen domids,
 *		Linux PIDs) need a generation or another never-reused id.
 *
 * A switch between contexts of one domain writes no counter (a-mode
 * counters are offset).  A context switched in on a CPU whose counters
 * last counted for another domain first has every counter except the TSC
 * written (re-based), so neither its shared record nor a raw counter read
 * shows anything of the other domain's events.  A context whose domain
 * was never set is a domain of its own.  Backends that cannot write their
 * counters (PV) re-base nothing; see docs/security.md.
 *
 * Return: 0; -EINVAL without @ctx; -EBUSY if @ctx is running.
 */
int pmuvirt_ctx_set_domain(struct pmuvirt_ctx *ctx, uint64_t domain);

/**
 * pmuvirt_ctx_attach_shared() - publish the context's state to user mode
 * @ctx:	the context (not running).
 * @rec:	a record in memory that readers map, or NULL to detach.
 *
 * The library keeps @rec up to date on every change, bracketed by its
 * sequence counter.
 */
void pmuvirt_ctx_attach_shared(struct pmuvirt_ctx *ctx, struct pmuvirt_shared_ctx *rec);

/**
 * pmuvirt_validate() - check a control against a PMU without side effects
 * @pmu:	the PMU.
 * @ctl:	the control.
 * @max_counters: capacity of the context it is meant for.
 * @img:	if not NULL, receives the register image.
 * @slots:	if not NULL, receives the slot of each counter.
 * @err:	if not NULL, receives the counter and reason on failure.
 *
 * Return: 0; -EINVAL for a malformed control or a bit that may not be set,
 * -ENOSPC when the counters cannot all be placed, -EOPNOTSUPP for an event
 * this PMU cannot count, -ERANGE for an i-mode period above PMUVIRT_PERIOD_MAX, -ENODEV
 * when the PMU has no counters of the kind asked for.
 */
int pmuvirt_validate(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
		     unsigned int max_counters, struct pmuvirt_hwctl *img, uint8_t *slots,
		     struct pmuvirt_error *err);

/**
 * pmuvirt_policy_validate() - check an event policy
 * @pol:	the policy (from an administrator: a hypercall, an ioctl, a
 *		boot option).
 *
 * Return: 0; -EINVAL for a wrong version or action, a nonzero reserved
 * field, a flag other than PMUVIRT_POLICY_NO_VPMU, an unknown event bit, more than PMUVIRT_POLICY_MAX_RAW raw
 * entries, or an entry whose @match has bits outside its @mask (it could
 * never match).
 */
int pmuvirt_policy_validate(const struct pmuvirt_policy *pol);

/**
 * pmuvirt_policy_permits() - may one counter be counted under a policy
 * @pol:	a policy pmuvirt_policy_validate() accepted, or NULL (no
 *		policy: everything is permitted).
 * @ctr:	the counter: a portable event, or a raw code (PMUVIRT_CTR_RAW).
 *
 * Return: true when @pol permits the counter's event (@pol's flags do
 * not take part).
 */
bool pmuvirt_policy_permits(const struct pmuvirt_policy *pol, const struct pmuvirt_counter_ctl *ctr);

/**
 * pmuvirt_validate_policy() - pmuvirt_validate() under an event policy
 * @pmu, @ctl, @max_counters, @img, @slots, @err: as pmuvirt_validate().
 * @pol:	a validated policy, or NULL for none.
 *
 * The generic checks of pmuvirt_validate() come first (a malformed control
 * is -EINVAL whatever the policy), then the policy, then counter
 * assignment and the backend's checks.  A caller that applies the control
 * with pmuvirt_set_control() calls this first; the control that passes it
 * passes pmuvirt_validate() with the same result.
 *
 * Return: as pmuvirt_validate(), and -EPERM (with @err naming the counter)
 * for an event @pol does not permit.
 */
int pmuvirt_validate_policy(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
			    unsigned int max_counters, struct pmuvirt_hwctl *img, uint8_t *slots,
			    const struct pmuvirt_policy *pol, struct pmuvirt_error *err);

/**
 * pmuvirt_set_control() - give a context a new control; counts restart at 0
 * @pc:		the pcpu the context runs on, or NULL if it is not running.
 * @ctx:	the context.
 * @ctl:	the control (validated first; on error nothing changes).
 * @err:	if not NULL, the reason on failure.
 *
 * Pending overflows of the old control are dropped with it.
 *
 * Return: 0 or a negative errno as for pmuvirt_validate(); -EBUSY if @ctx is
 * running on a pcpu other than @pc; -EFAULT if a register access failed
 * (the context is then faulted: off the hardware and reading its last counts).
 */
int pmuvirt_set_control(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx,
			const struct pmuvirt_control *ctl, struct pmuvirt_error *err);

/**
 * pmuvirt_pcpu_init() - initialise per-CPU state; the cache starts unknown
 * @pc:		storage.
 * @pmu:	the probed PMU.
 * @hw:		register access for this CPU.
 * @hw_arg:	passed to @hw.
 * @cpu:	the CPU number.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_pcpu_init(struct pmuvirt_pcpu *pc, const struct pmuvirt_pmu *pmu,
		      const struct pmuvirt_hw_ops *hw, void *hw_arg, uint32_t cpu);

/**
 * pmuvirt_pcpu_drop() - take the running context off a CPU whose PMU is gone
 * @pc:		the pcpu of a CPU that went offline, or whose PMU lost its state.
 *
 * Touches no register: the context keeps the counts of its last sample
 * (the events since then are lost with the PMU) and runs nowhere, so it
 * may be switched in elsewhere or freed.  @pc names no context afterwards.
 */
void pmuvirt_pcpu_drop(struct pmuvirt_pcpu *pc);

/**
 * pmuvirt_pcpu_invalidate() - forget what the control registers hold
 * @pc:		the pcpu; call it after anyone else wrote the PMU registers,
 *		or when its CPU comes back online or from suspend.
 *
 * A context still running on @pc is dropped first (pmuvirt_pcpu_drop()):
 * what the registers hold is no longer its state.
 */
void pmuvirt_pcpu_invalidate(struct pmuvirt_pcpu *pc);

/**
 * pmuvirt_switch() - switch the counters of a CPU to another context
 * @pc:		the pcpu.
 * @next:	the incoming context, or NULL to stop counting.
 *
 * The outgoing context (pc->running) and @next are served from one snapshot
 * of the counters: a-mode counters are offset (read only, never written)
 * when the counters last counted for @next's security domain, and re-based
 * by a write otherwise (see pmuvirt_ctx_set_domain()); i-mode counters are
 * saved and re-armed.  Control registers are written
 * only where @next's image differs from what they hold.  Overflows found on
 * the way out become pending on the outgoing context.
 *
 * Return: 0; -EBUSY if @next runs on another pcpu; -EFAULT if a register
 * access failed (the affected context is faulted and off the hardware,
 * counters stopped).
 */
int pmuvirt_switch(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *next);

/**
 * pmuvirt_switch_hook() - pmuvirt_switch() for a host's context-switch hook
 * @pc:		this CPU's pcpu.
 * @next:	the incoming context, or NULL to stop counting.
 *
 * A hook must never leave the outgoing context counting on @pc while the
 * host moves on to @next.  pmuvirt_switch() refuses (-EBUSY) a @next that
 * still runs on another pcpu and then leaves @pc as it was; this function
 * switches @pc to no context in that case, so the outgoing context is
 * suspended with its counts and nothing counts until the next switch.
 * Afterwards pc->running is @next or NULL, whatever the result, and the
 * host names the owner of @pc's counters after pc->running.
 *
 * Return: as pmuvirt_switch(); -EBUSY when @next ran elsewhere (then
 * pc->running is NULL and @next is left where it was).
 */
int pmuvirt_switch_hook(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *next);

/**
 * pmuvirt_switch_in() - pmuvirt_switch() onto an idle pcpu
 * @pc:		the pcpu (no current context).
 * @ctx:	the context.
 *
 * Return: as pmuvirt_switch(); -EBUSY if @pc already runs a context.
 */
int pmuvirt_switch_in(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx);

/**
 * pmuvirt_switch_out() - suspend the current context and stop the counters
 * @pc:		the pcpu.
 *
 * Return: as pmuvirt_switch().
 */
int pmuvirt_switch_out(struct pmuvirt_pcpu *pc);

/**
 * pmuvirt_arm_counters() - set when i-mode counters next signal
 * @pc:		the pcpu @ctx runs on, or NULL if it is suspended.
 * @ctx:	the context.
 * @mask:	its i-mode counters to arm (bit i = counter i).
 * @remaining:	per counter: events from now until the next notification
 *		(1 to PMUVIRT_ARM_REMAINING_MAX, and the counter's logical
 *		count plus it at most 2^64 - 1).
 * @period:	per counter: events between later notifications (1 to
 *		PMUVIRT_PERIOD_MAX on any counter width).
 *
 * This is what a stacked instance's "write the counters" becomes one level
 * down: the guest restores a thread's i-mode counters by telling its VCPU
 * how far the thread is from its next overflows.  All counters in @mask are
 * armed from one sample.
 *
 * Return: 0; -EINVAL for a bad mask, a counter that is not i-mode, or zero
 * values; -ERANGE for a period above PMUVIRT_PERIOD_MAX or a remaining
 * count above PMUVIRT_ARM_REMAINING_MAX or past 2^64 - 1; -EBUSY if @ctx
 * runs on another pcpu; -EFAULT if a register access failed.
 */
int pmuvirt_arm_counters(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint32_t mask,
			 const uint64_t *remaining, const uint64_t *period);

/**
 * pmuvirt_arm_check() - would an ARM of the counters its owner set be taken?
 * @ctx:	the context.
 * @mask:	counters to arm, as pmuvirt_arm_counters()'s.
 * @remaining:	as pmuvirt_arm_counters()'s.
 * @period:	as pmuvirt_arm_counters()'s.
 *
 * The argument checks pmuvirt_arm_counters() makes, in its order and with
 * its errors, on the counters of the control its owner set (see
 * pmuvirt_ctx_nr_own(): a joined session's counters are not the owner's
 * to arm).  Changes nothing; does not look at where @ctx runs.
 *
 * Return: 0; -EINVAL for an empty mask, one that names a counter the
 * owner's control does not have or one that is not i-mode, or a named
 * counter with a zero remaining count or period; -ERANGE as
 * pmuvirt_arm_counters().
 */
int pmuvirt_arm_check(const struct pmuvirt_ctx *ctx, uint32_t mask, const uint64_t *remaining,
		      const uint64_t *period);

/**
 * pmuvirt_read() - logical 64-bit values of a context's counters
 * @ctx:	the context (running: call on its own CPU).
 * @vals:	receives ctx->nr_counters values.
 *
 * Return: 0, or -EFAULT if a register read failed (the values are then the
 * last ones known).
 */
int pmuvirt_read(struct pmuvirt_ctx *ctx, uint64_t *vals);

/**
 * pmuvirt_read_counter() - logical 64-bit value of one counter of a context
 * @ctx:	the context (running: call on its own CPU).
 * @i:		the counter (index in its control).
 * @val:	receives the value.
 *
 * What pmuvirt_read() gives for counter @i, with one register read at most.
 *
 * Return: 0; -EINVAL when @ctx has no counter @i; -EFAULT if the register
 * read failed (@val is then the last value known).
 */
int pmuvirt_read_counter(struct pmuvirt_ctx *ctx, unsigned int i, uint64_t *val);

/**
 * pmuvirt_pmi() - handle a performance-monitor interrupt on this CPU
 * @pc:		the pcpu.
 * @ovf_mask:	receives the counters of the current context that got new
 *		overflow notifications (bit i = counter i); they are also
 *		added to its pending notifications.
 *
 * Folds wrapped a-mode counters into their sums (exact past 2^width),
 * re-arms i-mode counters and clears the overflow status.
 *
 * Return: 0 or -EFAULT.
 */
int pmuvirt_pmi(struct pmuvirt_pcpu *pc, uint32_t *ovf_mask);

/**
 * pmuvirt_take_overflows() - drain a context's pending notifications
 * @ctx:	the context.
 * @counts:	if not NULL, receives ctx->nr_counters counts.
 *
 * Safe against a PMI on the same CPU at any point (each counter's
 * notifications are taken with one atomic exchange).
 *
 * Return: mask of counters that had notifications.  Each notification is
 * returned exactly once.
 */
uint32_t pmuvirt_take_overflows(struct pmuvirt_ctx *ctx, uint32_t *counts);

/**
 * pmuvirt_take_overflows_mask() - drain the pending notifications of some counters
 * @ctx:	the context.
 * @which:	the counters to drain (bit i = counter i).
 * @counts:	if not NULL, receives ctx->nr_counters counts (0 outside @which).
 *
 * pmuvirt_take_overflows() of the counters in @which; the others keep
 * theirs.  A host whose context also holds counters that another party
 * takes (a vPMU's, include/pmuvirt/vpmu.h) drains its own this way.
 *
 * Return: mask of the counters in @which that had notifications.
 */
uint32_t pmuvirt_take_overflows_mask(struct pmuvirt_ctx *ctx, uint32_t which, uint32_t *counts);

/**
 * pmuvirt_collect() - make pending every boundary a running count has reached
 * @pc:		this CPU's pcpu.
 * @ctx:	the context.
 *
 * Samples the i-mode counters of @ctx when it is the context running on
 * @pc (and not paused), so that pmuvirt_take_overflows() right after
 * returns every period boundary their counts have passed, also those whose
 * PMI has not been handled yet (in flight, or held back by a host's rate
 * limit).  That PMI then finds no new boundary for them and re-arms the
 * counters; until it comes they stay armed as they were.  Like a
 * switch-out, it makes no sample record.  A suspended context has nothing
 * to collect: its switch-out did it.
 *
 * Return: 0; -EINVAL for a NULL argument; -EBUSY if @ctx runs on another
 * pcpu; -EFAULT if a register read failed.
 */
int pmuvirt_collect(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx);

/**
 * pmuvirt_mute() - choose which counters of a context count
 * @pc:		the calling pcpu.
 * @ctx:	the context.
 * @which:	the counters to set (bit i = counter i); the others keep
 *		their state.
 * @mask:	of those, the ones that stop counting; the rest count.
 *
 * A muted counter keeps its value: the events the hardware counts for it
 * meanwhile count for no one and bring no overflow notification nearer (a
 * PMI they raise parks the counter half its range away, and it is armed
 * for the distance left when it counts again: one write), and readers of
 * the shared record see the count alone.  For a host that knows of mode
 * changes the PMU cannot tell apart, such as a PV guest kernel and its
 * user space, which both run in ring 3 (docs/xen.md).
 *
 * While @ctx runs on @pc (and is not paused) each counter whose state
 * changes is read once: one that stops is sampled, one that starts counts
 * from the value read.  Nothing is written.  Otherwise only the state
 * changes.  pmuvirt_set_control() and the like start every counter unmuted.
 *
 * Return: 0; -EINVAL for a NULL @ctx, a bit of @which past its counters
 * or of @mask outside @which; -EBUSY if @ctx runs on another pcpu;
 * -EFAULT if a register read failed.
 */
int pmuvirt_mute(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx *ctx, uint32_t which, uint32_t mask);

/**
 * pmuvirt_ctx_pending() - which counters have pending notifications
 * @ctx:	the context.
 *
 * Looks without taking: the notifications stay pending for
 * pmuvirt_take_overflows().  Safe against a PMI on the same CPU (each
 * counter's count is read once); a PMI right after the call may add more.
 *
 * Return: mask of the counters with at least one pending notification
 * (bit i = counter i); 0 if none.
 */
uint32_t pmuvirt_ctx_pending(const struct pmuvirt_ctx *ctx);

/**
 * pmuvirt_ctx_nr_counters() - how many counters a context counts with
 * @ctx:	the context.
 *
 * Return: the counters of its control, a joined profiling session's
 * included (pmuvirt_ctx_join()): what pmuvirt_read() and
 * pmuvirt_take_overflows() fill.
 */
static inline unsigned int pmuvirt_ctx_nr_counters(const struct pmuvirt_ctx *ctx)
{
	return ctx->nr_counters;
}

/**
 * pmuvirt_ctx_nr_own() - how many of a context's counters its owner set
 * @ctx:	the context.
 *
 * Return: the counters of the control pmuvirt_set_control() or
 * pmuvirt_ctx_restore() gave it, which come first; a joined session's
 * come after them and are not the owner's to see or arm.
 */
static inline unsigned int pmuvirt_ctx_nr_own(const struct pmuvirt_ctx *ctx)
{
	return ctx->nr_shared;
}

/**
 * pmuvirt_ctx_own_mask() - the counters a context's owner set, as a mask
 * @ctx:	the context.
 *
 * Return: bit i for each of the first pmuvirt_ctx_nr_own() counters.
 */
static inline uint32_t pmuvirt_ctx_own_mask(const struct pmuvirt_ctx *ctx)
{
	return ctx->nr_shared >= 32 ? ~0u : (1u << ctx->nr_shared) - 1;
}

/**
 * pmuvirt_ctx_imode_mask() - a context's i-mode counters
 * @ctx:	the context.
 *
 * Return: bit i for each counter with a period: the only ones that can
 * have pending notifications.
 */
static inline uint32_t pmuvirt_ctx_imode_mask(const struct pmuvirt_ctx *ctx)
{
	return ctx->imode_mask;
}

/**
 * pmuvirt_ctx_max_counters() - the most counters a context's controls may have
 * @ctx:	the context.
 *
 * Return: what its storage was sized for (pmuvirt_ctx_size()): the limit
 * to pass to pmuvirt_validate() for its controls.
 */
static inline unsigned int pmuvirt_ctx_max_counters(const struct pmuvirt_ctx *ctx)
{
	return ctx->max_counters;
}

/**
 * pmuvirt_ctx_running_on() - where a context counts
 * @ctx:	the context.
 *
 * Return: the pcpu whose counters hold it, or NULL when it is switched out.
 */
static inline struct pmuvirt_pcpu *pmuvirt_ctx_running_on(const struct pmuvirt_ctx *ctx)
{
	return ctx->running_on;
}

/**
 * pmuvirt_ctx_samples() - the sample ring a context writes
 * @ctx:	the context.
 *
 * Return: the writer pmuvirt_ctx_attach_samples() gave it, or NULL.
 */
static inline struct pmuvirt_sample_writer *pmuvirt_ctx_samples(const struct pmuvirt_ctx *ctx)
{
	return ctx->samples;
}

/**
 * pmuvirt_ctx_own_user_index() - does the owner count on a counter user mode reads?
 * @ctx:	the context.
 * @index:	a user read index (x86: rdpmc's ECX).
 *
 * Return: true when one of the counters its owner set sits on a general or
 * fixed slot whose user read index (struct pmuvirt_slot.user_index - 1) is
 * @index.
 */
bool pmuvirt_ctx_own_user_index(const struct pmuvirt_ctx *ctx, uint32_t index);

/**
 * pmuvirt_pause() - account the running context up to now
 * @pc:		the pcpu.
 *
 * Use with pmuvirt_resample() around work that must not be counted
 * (a hypercall, hypervisor work under policy exclude).
 *
 * Return: 0 or -EFAULT.
 */
int pmuvirt_pause(struct pmuvirt_pcpu *pc);

/**
 * pmuvirt_resample() - restart the running context's counting from now
 * @pc:		the pcpu.
 *
 * Events since the last sample (pmuvirt_pause(), a switch) are discarded:
 * call it right after a privileged call returns (compensation).
 *
 * Return: 0 or -EFAULT.
 */
int pmuvirt_resample(struct pmuvirt_pcpu *pc);

/**
 * pmuvirt_ctx_release() - take a context off the hardware before freeing it
 * @ctx:	the context; if running, call on its CPU.
 *
 * Stops its counters if it is running.  Afterwards no cache refers to it.
 */
void pmuvirt_ctx_release(struct pmuvirt_ctx *ctx);

/**
 * pmuvirt_ctx_save() - the virtual state of a suspended context, as a blob
 * @ctx:	the context; not running on any CPU (switch it out first).
 * @ctl:	the control last set on @ctx (the host keeps it; the core
 *		keeps only its register image).
 * @out:	receives the blob, check included.
 *
 * Return: 0; -EINVAL when @ctx has no control or @ctl is not the one it
 * counts (other counter number, event or mode); -EBUSY when @ctx runs;
 * -EFAULT when @ctx faulted (its counts are not known).  @out is written
 * only on 0.
 */
int pmuvirt_ctx_save(const struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
		     struct pmuvirt_saved_ctx *out);

/**
 * pmuvirt_saved_check() - the check a saved blob must carry
 * @s:		the blob.
 *
 * Return: FNV-1a (32-bit) of every byte of @s before @s->check; a tool
 * that converts or edits a blob sets @s->check to it.
 */
uint32_t pmuvirt_saved_check(const struct pmuvirt_saved_ctx *s);

/**
 * pmuvirt_ctx_restore() - give a context the state of a saved blob
 * @ctx:	the context, initialized for this machine's PMU (which may
 *		differ from the saving one's) and not running.
 * @in:		the blob, untrusted, in memory nobody else writes (copy a
 *		guest's or a stream's bytes first).  The host applies its
 *		event policy to @in->ctl first, as to any control.
 * @err:	if not NULL, receives the counter and reason on failure.
 *
 * Counting goes on from the saved logical values: the next switch-in
 * starts the counters from there, i-mode counters notify at the saved
 * next_ovf and the saved pending notifications stay to be taken.  The
 * shared record is published once, with the restored state.
 *
 * Return: 0; -EINVAL for a blob that is malformed, corrupted (check) or of
 * another version or byte order, or whose counter state is impossible;
 * -EBUSY when @ctx runs; any error of pmuvirt_validate() for a control
 * this PMU cannot count.  @ctx is unchanged on any error.
 */
int pmuvirt_ctx_restore(struct pmuvirt_ctx *ctx, const struct pmuvirt_saved_ctx *in,
			struct pmuvirt_error *err);

/**
 * struct pmuvirt_sample_format - what a ring's records hold
 * @format:	PMUVIRT_SAMPLE_FMT_*.
 * @nr_values:	value slots: 1 to PMUVIRT_MAX_COUNTERS with
 *		PMUVIRT_SAMPLE_FMT_VALUES, 0 without.
 * @chain_depth: call-chain frame slots: 1 to PMUVIRT_CHAIN_MAX with
 *		PMUVIRT_SAMPLE_FMT_CHAIN, 0 without.
 */
struct pmuvirt_sample_format {
	uint32_t format;
	uint32_t nr_values;
	uint32_t chain_depth;
};

/**
 * struct pmuvirt_sample_writer - the writer's private view of a sample ring
 * @ring:	the shared header.
 * @data:	record 0.
 * @record_size: bytes of a record.
 * @format:	PMUVIRT_SAMPLE_FMT_* of the records.
 * @mask:	records - 1.
 * @head:	records written (mod 2^32); the shared @head is a copy.
 * @lost:	records dropped; the shared @lost is a copy.
 * @nr_values:	value slots of a record.
 * @chain_depth: frame slots of a record.
 * @chain_offset: byte offset of the frames in a record.
 *
 * Lives in memory the reader cannot write: nothing here is read back from
 * the shared ring.
 */
struct pmuvirt_sample_writer {
	struct pmuvirt_sample_ring *ring;
	uint8_t *data;
	uint32_t record_size;
	uint32_t format;
	uint32_t mask;
	uint32_t head;
	uint32_t lost;
	uint8_t nr_values;
	uint8_t chain_depth;
	uint16_t chain_offset;
};

/**
 * pmuvirt_sample_ring_bytes() - bytes a sample ring needs
 * @nr_records:	records (a power of two, 1 to PMUVIRT_SAMPLE_MAX_RECORDS).
 * @data_offset: bytes from the header to record 0 (a multiple of 8, at
 *		least sizeof(struct pmuvirt_sample_ring), at most 16 MiB).
 * @fmt:	what a record holds; NULL for PMUVIRT_SAMPLE_FMT_DEFAULT with
 *		PMUVIRT_MAX_COUNTERS values (168-byte records).
 *
 * Return: the size, or 0 if an argument is out of range.
 */
size_t pmuvirt_sample_ring_bytes(uint32_t nr_records, uint32_t data_offset,
				 const struct pmuvirt_sample_format *fmt);

/**
 * pmuvirt_sample_init() - make an empty sample ring in shared memory
 * @w:		the writer (private memory).
 * @mem:	the ring's memory, shared with the reader; 8-byte aligned.
 * @size:	its size in bytes.
 * @nr_records:	as pmuvirt_sample_ring_bytes().
 * @data_offset: as pmuvirt_sample_ring_bytes().
 * @fmt:	as pmuvirt_sample_ring_bytes().
 *
 * Writes the header (head, tail and lost zero) and nothing else.
 *
 * Return: 0; -EINVAL for a bad geometry or format or @size below
 * pmuvirt_sample_ring_bytes().
 */
int pmuvirt_sample_init(struct pmuvirt_sample_writer *w, void *mem, size_t size,
			uint32_t nr_records, uint32_t data_offset,
			const struct pmuvirt_sample_format *fmt);

/**
 * pmuvirt_sample_reserve() - take the next record of a ring, to fill in
 * @w:		the writer.
 * @frames:	receives where the record's call chain goes (room for
 *		@w->chain_depth frames), or NULL when the format has none.
 *
 * The ring's @tail is read once and not trusted (see abi.h).  The record
 * is the reader's only after pmuvirt_sample_commit(); the writer must
 * commit it before it reserves again.  One writer at a time (the
 * context's CPU with the PMI off, or the PMI itself); the reader may run
 * on any CPU.
 *
 * Return: the record; NULL when the ring is full (or @tail is bad): that
 * is counted in @lost.
 */
void *pmuvirt_sample_reserve(struct pmuvirt_sample_writer *w, uint64_t **frames);

/**
 * pmuvirt_sample_commit() - write a reserved record and hand it to the reader
 * @w:		the writer.
 * @rec:	from pmuvirt_sample_reserve().
 * @s:		the record's fields; those the format leaves out are not
 *		stored.  @nr_values and the chain counts are clamped to the
 *		ring's slots; the frames are already in place.
 */
void pmuvirt_sample_commit(struct pmuvirt_sample_writer *w, void *rec,
			   const struct pmuvirt_sample *s);

/**
 * pmuvirt_sample_write() - append a record
 * @w:		the writer.
 * @s:		the record.
 * @chain:	its call chain (@s->nr_kernel + @s->nr_user frames), or NULL.
 *
 * pmuvirt_sample_reserve(), the frames copied, pmuvirt_sample_commit().
 *
 * Return: 0; -ENOSPC when the ring is full (or @tail is bad): the record
 * is counted in @lost and not written.
 */
int pmuvirt_sample_write(struct pmuvirt_sample_writer *w, const struct pmuvirt_sample *s,
			 const struct pmuvirt_sample_chain *chain);

/**
 * typedef pmuvirt_chain_read_fn - read a stack for a call-chain walk
 * @arg:	the host's.
 * @addr:	the stack address.
 * @buf:	receives @len bytes.
 * @len:	bytes to read: 16 for pmuvirt_chain_fp(), 24 for
 *		pmuvirt_chain_backchain().
 *
 * Return: 0, or non-zero when the memory cannot be read (the walk ends).
 * Called from the PMI: it must not fault, sleep or lock.
 */
typedef int (*pmuvirt_chain_read_fn)(void *arg, uint64_t addr, void *buf, unsigned int len);

/**
 * pmuvirt_chain_fp() - return addresses of a stack of 64-bit frame pointers
 * @fp:		the innermost frame pointer (x86-64: rbp).
 * @sp:		the stack pointer: no frame lies below it.
 * @limit:	no frame reaches past it (the top of the address space the
 *		stack may be in).
 * @read:	how the host reads the stack.
 * @arg:	passed to @read.
 * @frames:	receives the return addresses, innermost first.
 * @max:	room at @frames.
 *
 * Each frame is {saved frame pointer, return address} at the frame
 * pointer (x86-64's and AArch64's layout).  A frame must be 8-byte
 * aligned and lie above the one before, so a corrupt or hostile stack ends
 * the walk within @max frames and never makes it leave [@sp, @limit).  A
 * return address of 0 or a failed read ends it too.
 *
 * Return: frames stored.
 */
unsigned int pmuvirt_chain_fp(uint64_t fp, uint64_t sp, uint64_t limit,
			      pmuvirt_chain_read_fn read, void *arg, uint64_t *frames,
			      unsigned int max);

/**
 * pmuvirt_chain_backchain() - return addresses of a 64-bit POWER stack
 * @ip:		the interrupted instruction address.
 * @sp:		the interrupted r1: the innermost frame, or the caller's
 *		when the interrupted function made none; no frame lies
 *		below it.
 * @lr:		the interrupted LR.
 * @limit:	no frame reaches past it (the top of the address space the
 *		stack may be in, or the end of the stack).
 * @read:	how the host reads the stack: the 24-byte frame header
 *		{back chain, CR save, LR save} at a frame.  A host may give
 *		a frame's back chain as 0 to make it the last (an interrupt
 *		frame, whose back chain leads to the interrupted context).
 * @arg:	passed to @read.
 * @frames:	receives the return addresses, innermost first.
 * @max:	room at @frames.
 *
 * The back-chain ABI of 64-bit POWER (ELFv1 and ELFv2): a frame's first
 * doubleword is the caller's r1, and a function saves its return address
 * in its caller's frame, at 16.  The first caller is @lr; then each frame
 * above @sp gives its LR save slot.  The first of these slots is
 * ambiguous: it repeats @lr when the interrupted function made a frame and
 * saved LR (the repeat is dropped), it is the caller's return address when
 * the function is a leaf without a frame, and it is stale when the
 * function made a frame without saving LR; the last two look alike, so a
 * slot that differs from @lr is kept, and a 0 there is skipped.  @lr of 0
 * is skipped too, and so is @lr equal to @ip: the instruction before set
 * it (a branch and link to the next instruction, or scv, which leaves its
 * return address in LR), so it names no caller.
 *
 * Each frame must be 16-byte aligned and lie above the one before, so a
 * corrupt or hostile stack ends the walk within @max frames and never
 * makes it leave [@sp, @limit).  A failed read, a back chain that breaks
 * these rules (0 included) or a 0 in a later slot ends it.
 *
 * Return: frames stored.
 */
unsigned int pmuvirt_chain_backchain(uint64_t ip, uint64_t sp, uint64_t lr, uint64_t limit,
				     pmuvirt_chain_read_fn read, void *arg, uint64_t *frames,
				     unsigned int max);

/**
 * pmuvirt_ctx_attach_samples() - where a context's sampling counters write
 * @ctx:	the context (not running).
 * @w:		an initialized writer, or NULL to detach.
 * @fill:	the host's part of each record (not NULL with @w).
 * @arg:	passed to @fill.
 *
 * Each PMI that finds period boundaries reached on a counter with
 * PMUVIRT_CTR_SAMPLE appends one record for it (weight: how many), however
 * many notifications are pending (their count saturates; the records'
 * do not depend on it).
 *
 * Return: 0; -EINVAL without @ctx or with @w and no @fill; -EBUSY if
 * @ctx is running.
 */
int pmuvirt_ctx_attach_samples(struct pmuvirt_ctx *ctx, struct pmuvirt_sample_writer *w,
			       pmuvirt_sample_fill_fn fill, void *arg);

/*
 * A system-wide session (a hypervisor's profiler) samples on every CPU
 * whatever runs there.  Its counters are added after a context's own
 * counters (pmuvirt_ctx_join()) and taken away again (pmuvirt_ctx_leave()),
 * the own counters' logical counts, periods and notifications going on
 * unchanged; the shared record shows only the own counters.  The two share
 * the PMU only when it has counters for both (pmuvirt_session_fits()).
 */

/**
 * pmuvirt_session_merge() - a context's own control followed by a session's counters
 * @own:	the control the context's owner set, or NULL for none.
 * @session:	the session's counters.
 * @out:	@own's counters (without PMUVIRT_CTR_SAMPLE and _SAMPLE_VALUES:
 *		the session's ring takes only the session's records), then
 *		@session's.
 *
 * Return: 0; -EBUSY when together they are more than PMUVIRT_MAX_COUNTERS.
 */
int pmuvirt_session_merge(const struct pmuvirt_control *own, const struct pmuvirt_control *session,
			  struct pmuvirt_control *out);

/**
 * pmuvirt_session_fits() - the arbitration rule: may both count at once
 * @pmu:	the PMU.
 * @own:	a context's control (valid on its own), or NULL.
 * @session:	the session's counters (valid on their own).
 * @max_counters: capacity of the context.
 * @err:	if not NULL, the reason on failure.
 *
 * Return: 0 when the PMU (and the context) has counters for both; -EBUSY
 * when not, so whichever of the two asks second is refused; other errors
 * of pmuvirt_validate() on the merged control.
 */
int pmuvirt_session_fits(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *own,
			 const struct pmuvirt_control *session, unsigned int max_counters,
			 struct pmuvirt_error *err);

/**
 * pmuvirt_ctx_join() - add a session's counters to a suspended context
 * @ctx:	the context, not running.
 * @own:	the control @ctx counts (the host keeps it), or NULL if none.
 * @merged:	pmuvirt_session_merge() of @own and the session.
 * @w, @fill, @arg: where the session counters' records go (as
 *		pmuvirt_ctx_attach_samples()); @w may be NULL.
 * @scratch:	room for a saved blob (not on a small stack).
 * @err:	if not NULL, the reason on failure.
 *
 * @ctx's own counters keep their logical counts, periods and pending
 * notifications (a faulted context, whose counts are unknown, starts
 * again); the session's start at zero.  pmuvirt_read() returns all
 * counters, the shared record shows the own ones (ctx->nr_shared), and a
 * record's @counter and values are relative to its group.  The shared
 * record is published once, when the state is final: a reader never sees
 * the own counts at zero or the session's counters.
 *
 * Return: 0; -EBUSY when @ctx runs; -EINVAL for bad arguments or an @own
 * @ctx does not count; the errors of pmuvirt_validate() for @merged.  On
 * error @ctx is unchanged.
 */
int pmuvirt_ctx_join(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *own,
		     const struct pmuvirt_control *merged, struct pmuvirt_sample_writer *w,
		     pmuvirt_sample_fill_fn fill, void *arg, struct pmuvirt_saved_ctx *scratch,
		     struct pmuvirt_error *err);

/**
 * pmuvirt_ctx_leave() - take a session's counters away from a suspended context
 * @ctx:	the context, not running, joined with @merged.
 * @own:	the context's own control.
 * @merged:	what it counts now.
 * @scratch:	room for a saved blob.
 * @err:	if not NULL, the reason on failure.
 *
 * The own counters go on as they were; no ring is attached afterwards.
 * The shared record is published once, with the final state.
 *
 * Return: as pmuvirt_ctx_join().
 */
int pmuvirt_ctx_leave(struct pmuvirt_ctx *ctx, const struct pmuvirt_control *own,
		      const struct pmuvirt_control *merged, struct pmuvirt_saved_ctx *scratch,
		      struct pmuvirt_error *err);

#endif /* PMUVIRT_PMUVIRT_H */
