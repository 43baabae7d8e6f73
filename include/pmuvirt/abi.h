/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt ABI: what crosses a trust boundary (user to kernel, guest to
 * hypervisor) or is shared with user mode.  Fixed-width fields only, no
 * pointers, no bitfields, every 64-bit field at an 8-byte offset and every
 * struct a multiple of 8 bytes, so i686, x86-64, ppc64 and ppc64le agree on
 * the layout.  Values are in the byte order of the machine that both sides
 * run on (they always share one CPU).
 */
#ifndef PMUVIRT_ABI_H
#define PMUVIRT_ABI_H

#include "types.h"

#define PMUVIRT_ABI_VERSION		1

/* Most counters one context may use (including the TSC). */
#define PMUVIRT_MAX_COUNTERS		16

/*
 * Largest distance to the next notification that an ARM (a hypercall, or
 * pmuvirt_arm_counters()) accepts: 2^63 events, far beyond reach, and the
 * value a stacked instance uses to push a counter out of reach.
 */
#define PMUVIRT_ARM_REMAINING_MAX	((uint64_t)1 << 63)

/*
 * Largest i-mode period, on a counter of any width: 2^62 events.  A period
 * longer than half the counter's range is reached in several armings.
 */
#define PMUVIRT_PERIOD_MAX		((uint64_t)1 << 62)

/* Portable events.  Raw codes use PMUVIRT_CTR_RAW instead. */
enum pmuvirt_event {
	PMUVIRT_EV_NONE = 0,
	PMUVIRT_EV_INSTRUCTIONS = 1,
	PMUVIRT_EV_CYCLES = 2,
	PMUVIRT_EV_BRANCHES = 3,
	PMUVIRT_EV_BRANCH_MISSES = 4,
	PMUVIRT_EV_TSC = 5,		/* time stamp / time base; a-mode only */
	PMUVIRT_EV_NR
};

/* pmuvirt_counter_ctl.flags */
#define PMUVIRT_CTR_USER	0x1u	/* count in user mode */
#define PMUVIRT_CTR_KERNEL	0x2u	/* count in kernel (supervisor) mode */
#define PMUVIRT_CTR_RAW		0x4u	/* .event is a raw architecture code */
#define PMUVIRT_CTR_SAMPLE	0x8u	/* i-mode only: each overflow appends a sample record */
#define PMUVIRT_CTR_SAMPLE_VALUES 0x10u	/* with SAMPLE: records carry every counter's value */
/*
 * Count only while the CPU runs a hardware-virtualized guest (VMX non-root,
 * SVM guest mode): the hypervisor's own execution is left out by the
 * hardware.  Needs PMUVIRT_CAP_GUEST_ONLY; a hypervisor sets it on the
 * kernel-mode counters of its HVM and PVH guests.
 */
#define PMUVIRT_CTR_GUEST	0x20u
#define PMUVIRT_CTR_FLAGS_ALL	0x3fu

/**
 * struct pmuvirt_counter_ctl - one counter of a control
 * @event:	an enum pmuvirt_event, or with PMUVIRT_CTR_RAW the raw event
 *		code of the architecture (x86: event select bits 0-7, unit
 *		mask 8-15, edge 18, invert 23, counter mask 24-31, AMD event
 *		bits 32-35; POWER: the PMCxSEL value in bits 0-7 and the PMC
 *		number 1-6 in bits 8-11, 0 = any).  Bits pmuvirt owns itself
 *		(enable, interrupt, user/kernel, freeze) must be zero.
 * @period:	0 for an a-mode (accumulating) counter; for an i-mode counter
 *		the number of events between overflow notifications, at most
 *		PMUVIRT_PERIOD_MAX (2^62) on any counter width.
 * @flags:	PMUVIRT_CTR_*; at least one of USER and KERNEL unless the
 *		event is PMUVIRT_EV_TSC.  SAMPLE only with a period (never
 *		on the TSC), SAMPLE_VALUES only with SAMPLE, GUEST never on
 *		the TSC.
 * @reserved:	must be zero.
 */
struct pmuvirt_counter_ctl {
	uint64_t event;
	uint64_t period;
	uint32_t flags;
	uint32_t reserved;
};

/**
 * struct pmuvirt_control - what a context counts
 * @version:	PMUVIRT_ABI_VERSION.
 * @nr_counters: number of valid entries in @counter.
 * @flags:	must be zero (reserved).
 * @reserved:	must be zero.
 * @counter:	the counters, in the order the caller reads them back.
 */
struct pmuvirt_control {
	uint32_t version;
	uint32_t nr_counters;
	uint32_t flags;
	uint32_t reserved;
	struct pmuvirt_counter_ctl counter[PMUVIRT_MAX_COUNTERS];
};

/*
 * Event policy: what an administrator lets a context (a domain's VCPUs, an
 * unprivileged user's threads) count, in the manner of KVM's PMU event
 * filter.  With PMUVIRT_POLICY_ALLOW only the listed events may be counted,
 * with PMUVIRT_POLICY_DENY every event but the listed ones.  Portable events
 * are listed by bit in @events; raw codes by masked entries: a raw code is
 * listed when it matches at least one entry without PMUVIRT_POLICY_EXCLUDE
 * and no entry with it.  A raw code that names a portable event's hardware
 * event (x86 0xc0: instructions retired) is still a raw code: list both, or
 * allow no raw codes at all (ALLOW with @nr_raw 0).  There is no fixed
 * counter bitmap: a control names events, never counters, and a fixed
 * counter only ever counts its own portable event, which @events decides.
 */
#define PMUVIRT_POLICY_ALLOW		0	/* only the listed events */
#define PMUVIRT_POLICY_DENY		1	/* every event but the listed ones */
#define PMUVIRT_POLICY_MAX_RAW		32

/* pmuvirt_policy_raw.flags */
#define PMUVIRT_POLICY_EXCLUDE		0x1u	/* codes this entry matches are not listed */

/*
 * pmuvirt_policy.flags: the context's guest sees no emulated PMU (a Xen
 * HVM or PVH domain's stock guests, docs/xen.md "Stock guests"); the
 * events of pmuvirt's own counters are decided by the rest of the policy.
 */
#define PMUVIRT_POLICY_NO_VPMU		0x1u
#define PMUVIRT_POLICY_FLAGS		PMUVIRT_POLICY_NO_VPMU	/* every flag */

/**
 * struct pmuvirt_policy_raw - a set of raw event codes
 * @match:	what the masked code must equal; no bit outside @mask.
 * @mask:	bits of the raw code compared: code c matches when
 *		(c & @mask) == @match.
 * @flags:	PMUVIRT_POLICY_EXCLUDE.
 * @reserved:	must be zero.
 */
struct pmuvirt_policy_raw {
	uint64_t match;
	uint64_t mask;
	uint32_t flags;
	uint32_t reserved;
};

/**
 * struct pmuvirt_policy - which events a context may count
 * @version:	PMUVIRT_ABI_VERSION.
 * @action:	PMUVIRT_POLICY_ALLOW or PMUVIRT_POLICY_DENY.
 * @events:	bit (1 << enum pmuvirt_event) for each listed portable event
 *		(PMUVIRT_EV_NONE's bit and bits past the last event are zero).
 * @nr_raw:	valid entries of @raw (at most PMUVIRT_POLICY_MAX_RAW).
 * @flags:	PMUVIRT_POLICY_NO_VPMU; the other bits must be zero.
 * @reserved:	must be zero.
 * @raw:	the listed raw codes.
 *
 * DENY with nothing listed permits everything; ALLOW with nothing listed
 * permits nothing.
 */
struct pmuvirt_policy {
	uint32_t version;
	uint32_t action;
	uint32_t events;
	uint32_t nr_raw;
	uint32_t flags;
	uint32_t reserved;
	struct pmuvirt_policy_raw raw[PMUVIRT_POLICY_MAX_RAW];
};

/*
 * Shared records: the user-visible state of one context (a thread, or a
 * VCPU seen from its guest).  The logical value of counter i is
 *
 *	count + ((below - start) mod 2^width)
 *
 * where "below" is the value of what the context sits on: the hardware
 * counter (rdpmc index = index - 1, or the TSC) for a context on a physical
 * CPU, or counter index - 1 of VCPU record number @below for a thread of a
 * guest.  index == 0 means the counter is not live: count is the value.
 * Writers make seq odd, update, and make it even again; readers retry while
 * seq is odd or changed.
 */
#define PMUVIRT_SHARED_NONE	0xffffffffu	/* @below when not running */
#define PMUVIRT_SHARED_TSC	0x80000000u	/* index flag: read the TSC */

struct pmuvirt_shared_counter {
	uint64_t count;
	uint64_t start;
	uint32_t index;
	uint32_t width;
};

struct pmuvirt_shared_ctx {
	uint32_t seq;
	uint32_t version;
	uint32_t nr_counters;
	uint32_t below;
	struct pmuvirt_shared_counter counter[PMUVIRT_MAX_COUNTERS];
};

/*
 * A context's virtual state outside the context: what a hypervisor puts in
 * a domain's save stream for each VCPU (xl save, live migration) and a
 * kernel could keep across a checkpoint.  Native byte order; a blob of the
 * other order fails the magic.  pmuvirt_ctx_save() fills one and
 * pmuvirt_ctx_restore() checks every field before it changes anything.
 */
#define PMUVIRT_SAVED_MAGIC	0x504d5653u	/* "PMVS" */
#define PMUVIRT_SAVED_VERSION	1

/**
 * struct pmuvirt_saved_ctx - one context's counters, controls and notifications
 * @magic:	PMUVIRT_SAVED_MAGIC.
 * @version:	PMUVIRT_SAVED_VERSION.
 * @size:	sizeof(struct pmuvirt_saved_ctx).
 * @flags:	zero (reserved).
 * @ctl:	the control the context counts.
 * @count:	logical value of each counter.
 * @period:	i-mode: the period in force (pmuvirt_arm_counters() may have
 *		replaced the control's); 0 for a-mode counters.
 * @next_ovf:	i-mode: logical value of the next notification, 1 to
 *		PMUVIRT_ARM_REMAINING_MAX events ahead of @count modulo 2^64
 *		(near 2^64 it wraps below @count); 0 for a-mode counters.
 * @pending:	notifications found and not yet taken (0 for a-mode).
 * @reserved:	zero.
 * @check:	FNV-1a (32-bit) of every byte before it.
 *
 * Entries from @ctl.nr_counters on are zero, in @ctl too.
 */
struct pmuvirt_saved_ctx {
	uint32_t magic;
	uint32_t version;
	uint32_t size;
	uint32_t flags;
	struct pmuvirt_control ctl;
	uint64_t count[PMUVIRT_MAX_COUNTERS];
	uint64_t period[PMUVIRT_MAX_COUNTERS];
	uint64_t next_ovf[PMUVIRT_MAX_COUNTERS];
	uint32_t pending[PMUVIRT_MAX_COUNTERS];
	uint32_t reserved;
	uint32_t check;
};

/*
 * Sample rings: where a sampling counter's overflows go (one ring per
 * context).  A ring is a header followed, at @data_offset bytes, by
 * @nr_records records of @record_size bytes (a power of two of them).
 * The writer (the kernel or hypervisor, in a PMI) and one reader (the
 * context's owner) share it, each on any CPU:
 *
 *	writer: tail = @tail; full barrier; if head - tail < nr: write
 *		record (head mod nr); write barrier; @head = ++head;
 *		else @lost++ (saturating)
 *	reader: head = @head; read barrier; copy records tail .. head - 1;
 *		full barrier; @tail = head
 *
 * @head and @tail count records since the ring was made, modulo 2^32, so
 * head - tail (mod 2^32) is the number of unread records.  The writer keeps
 * its own copy of @head, @lost and the geometry and reads only @tail from
 * the ring; @tail is the reader's to write and never trusted: a value with
 * head - tail above @nr_records makes the writer drop records (counted in
 * @lost), never write outside the records.
 *
 * What a record holds is the ring's @format, chosen when the ring is made
 * (docs/sampling.md, "Sample records"): a struct pmuvirt_sample_head, then
 * in this order the 8-byte fields @format names: the IP, the time,
 * @nr_values counter values, @chain_depth call-chain frames.  Fields the
 * format leaves out take no room.
 */
#define PMUVIRT_SAMPLE_MAGIC		0x504d5352u	/* "PMSR" */
#define PMUVIRT_SAMPLE_VERSION		3
#define PMUVIRT_SAMPLE_MAX_RECORDS	(1u << 20)

/* struct pmuvirt_sample_ring.format: what each record holds */
#define PMUVIRT_SAMPLE_FMT_IP		0x1u	/* the interrupted IP */
#define PMUVIRT_SAMPLE_FMT_TIME		0x2u	/* the host's clock */
#define PMUVIRT_SAMPLE_FMT_MODE		0x4u	/* USER/HYPERVISOR flags and @domain */
#define PMUVIRT_SAMPLE_FMT_VALUES	0x8u	/* counter values (@nr_values slots) */
#define PMUVIRT_SAMPLE_FMT_CHAIN	0x10u	/* the call chain (@chain_depth slots) */
#define PMUVIRT_SAMPLE_FMT_ALL		0x1fu
#define PMUVIRT_SAMPLE_FMT_DEFAULT	(PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_TIME | \
					 PMUVIRT_SAMPLE_FMT_MODE | PMUVIRT_SAMPLE_FMT_VALUES)

/* Deepest call chain a record holds (frames, kernel and user together). */
#define PMUVIRT_CHAIN_MAX		127

/*
 * pmuvirt_sample.flags.  The mode of @ip: USER, HYPERVISOR, or neither
 * (the kernel; under a hypervisor, the guest's kernel).
 */
#define PMUVIRT_SAMPLE_USER		0x1u	/* @ip is a user-mode address */
#define PMUVIRT_SAMPLE_VALUES		0x2u	/* @value holds @nr_values counter values */
#define PMUVIRT_SAMPLE_HYPERVISOR	0x4u	/* @ip is the hypervisor's */
#define PMUVIRT_SAMPLE_NO_IP		0x8u	/* @ip withheld (0): a domain the session does not profile */
#define PMUVIRT_SAMPLE_FLAGS_ALL	0xfu

/**
 * struct pmuvirt_sample - one record, as a reader unpacks it (168 bytes)
 * @ip:		instruction pointer of the interrupted context (0 when the
 *		ring's format has no PMUVIRT_SAMPLE_FMT_IP).
 * @time:	the host's clock when the record was made (Linux: local_clock()
 *		in nanoseconds; the fakes: the fake TSC); 0 without
 *		PMUVIRT_SAMPLE_FMT_TIME.
 * @tid:	thread (or VCPU) id the host gives the context.
 * @cpu:	CPU the context ran on (struct pmuvirt_pcpu.cpu).
 * @flags:	PMUVIRT_SAMPLE_*; without PMUVIRT_SAMPLE_FMT_MODE neither
 *		USER nor HYPERVISOR.
 * @counter:	the counter (index in the control) whose overflow this is.
 * @nr_values:	valid entries of @value (0 without PMUVIRT_SAMPLE_VALUES).
 * @weight:	period boundaries this record stands for: 1, more when one
 *		interrupt found several (saturates at 0xffffffff).
 * @domain:	the domain the context belongs to (Xen: its domain id, the
 *		idle domain's for samples of an idle PCPU); 0 on a host
 *		without domains or without PMUVIRT_SAMPLE_FMT_MODE.
 * @nr_kernel:	call-chain frames in the kernel (struct pmuvirt_sample_chain).
 * @nr_user:	call-chain frames in user mode, after the kernel's.
 * @value:	with PMUVIRT_SAMPLE_VALUES, the logical value of each of the
 *		context's counters at the interrupt, in control order.
 */
struct pmuvirt_sample {
	uint64_t ip;
	uint64_t time;
	uint32_t tid;
	uint32_t cpu;
	uint16_t flags;
	uint8_t counter;
	uint8_t nr_values;
	uint32_t weight;
	uint32_t domain;
	uint16_t nr_kernel;
	uint16_t nr_user;
	uint64_t value[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_sample_chain - a record's call chain, as a reader unpacks it
 * @frame:	return addresses, innermost first: @nr_kernel of the
 *		kernel (the callers of a kernel @ip), then @nr_user of user
 *		mode.  When @ip is a kernel address, the first user frame is
 *		where the thread entered the kernel; otherwise the user frames
 *		are the callers of @ip.
 *
 * The counts are the record's (struct pmuvirt_sample); their sum is at most
 * the ring's @chain_depth.  Frames are what the stack held: a stack
 * without frame pointers ends the chain early or gives wrong callers.
 */
struct pmuvirt_sample_chain {
	uint64_t frame[PMUVIRT_CHAIN_MAX];
};

/**
 * struct pmuvirt_sample_head - the start of every record in a ring (24 bytes)
 * @tid:	as struct pmuvirt_sample.
 * @cpu:	as struct pmuvirt_sample.
 * @flags:	as struct pmuvirt_sample.
 * @counter:	as struct pmuvirt_sample.
 * @nr_values:	as struct pmuvirt_sample; at most the ring's @nr_values.
 * @weight:	as struct pmuvirt_sample.
 * @domain:	as struct pmuvirt_sample.
 * @nr_kernel:	kernel frames of the chain.
 * @nr_user:	user frames; @nr_kernel + @nr_user <= the ring's @chain_depth.
 * @reserved:	zero.
 */
struct pmuvirt_sample_head {
	uint32_t tid;
	uint32_t cpu;
	uint16_t flags;
	uint8_t counter;
	uint8_t nr_values;
	uint32_t weight;
	uint32_t domain;
	uint8_t nr_kernel;
	uint8_t nr_user;
	uint16_t reserved;
};

/**
 * struct pmuvirt_sample_ring - the header of a sample ring (128 bytes)
 * @magic:	PMUVIRT_SAMPLE_MAGIC.
 * @version:	PMUVIRT_SAMPLE_VERSION.
 * @record_size: bytes of a record: 24, plus 8 for each of IP and time,
 *		8 * @nr_values and 8 * @chain_depth, for the parts @format has.
 * @nr_records:	records in the ring, a power of two, at most
 *		PMUVIRT_SAMPLE_MAX_RECORDS.
 * @data_offset: bytes from the header to record 0 (a multiple of 8).
 * @format:	PMUVIRT_SAMPLE_FMT_*.
 * @head:	writer: records written (mod 2^32).
 * @lost:	writer: records dropped because the ring was full
 *		(saturates at 0xffffffff).
 * @nr_values:	value slots of a record: 1 to PMUVIRT_MAX_COUNTERS with
 *		PMUVIRT_SAMPLE_FMT_VALUES, 0 without.
 * @chain_depth: frame slots of a record: 1 to PMUVIRT_CHAIN_MAX with
 *		PMUVIRT_SAMPLE_FMT_CHAIN, 0 without.
 * @reserved:	zero.
 *
 * @head and @lost sit on another 64-byte line than @tail.
 */
struct pmuvirt_sample_ring {
	uint32_t magic;
	uint32_t version;
	uint32_t record_size;
	uint32_t nr_records;
	uint32_t data_offset;
	uint32_t format;
	uint32_t head;
	uint32_t lost;
	uint8_t nr_values;
	uint8_t chain_depth;
	uint16_t reserved2;
	uint32_t reserved1[7];
	uint32_t tail;
	uint32_t reserved[15];
};

/**
 * pmuvirt_sample_record_size() - bytes of a record of a ring format
 * @format:	PMUVIRT_SAMPLE_FMT_*.
 * @nr_values:	value slots (0 without PMUVIRT_SAMPLE_FMT_VALUES).
 * @chain_depth: frame slots (0 without PMUVIRT_SAMPLE_FMT_CHAIN).
 *
 * Return: the size, or 0 when the three do not make a format.
 */
static inline uint32_t pmuvirt_sample_record_size(uint32_t format, uint32_t nr_values,
						  uint32_t chain_depth)
{
	uint32_t size = sizeof(struct pmuvirt_sample_head);

	if (format & ~PMUVIRT_SAMPLE_FMT_ALL)
		return 0;
	if ((format & PMUVIRT_SAMPLE_FMT_VALUES) ? !nr_values || nr_values > PMUVIRT_MAX_COUNTERS :
						   nr_values != 0)
		return 0;
	if ((format & PMUVIRT_SAMPLE_FMT_CHAIN) ? !chain_depth || chain_depth > PMUVIRT_CHAIN_MAX :
						  chain_depth != 0)
		return 0;
	if (format & PMUVIRT_SAMPLE_FMT_IP)
		size += 8;
	if (format & PMUVIRT_SAMPLE_FMT_TIME)
		size += 8;
	return size + 8 * nr_values + 8 * chain_depth;
}

#endif /* PMUVIRT_ABI_H */
