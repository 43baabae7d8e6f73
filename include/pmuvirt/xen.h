/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt's hypercall ABI under Xen (x86).
 *
 * One hypercall, PMUVIRT_XEN_HYPERCALL, with two arguments: a command
 * (PMUVIRT_XEN_*) and the guest address of that command's argument struct.
 * Every argument struct starts with struct pmuvirt_xen_hdr; @size must be
 * the exact size of the command's struct and @version PMUVIRT_XEN_VERSION.
 * A command acts on the calling VCPU (or its domain), except SET_POLICY,
 * VCPU_READ and VCPU_SET_CONTROL, which name a domain: a domain uses them
 * on itself, or on another domain it is allowed to manage (dom0).
 *
 * Return values are 0 or a negative errno (Linux numbering): -EINVAL for a
 * wrong version, size, reserved field or argument, -EFAULT for a guest
 * address Xen cannot read or write, -ENODEV when pmuvirt has no PMU or the
 * VCPU has no counters, -EOPNOTSUPP for an unknown command (a Xen without
 * pmuvirt returns -ENOSYS for the hypercall itself), -EBUSY for every
 * command when pmuvirt refused to start because another user of the PMU
 * (Xen's vPMU, the NMI watchdog, xenoprof) was there first.  SET_CONTROL
 * adds the errors of pmuvirt_validate_policy() (-EPERM: an event the
 * domain's policy does not permit), and -EBUSY when a system-wide
 * profiling session holds the counters the control would need.
 *
 * Layout rules as in abi.h: fixed-width fields, explicit padding, guest
 * addresses as uint64_t, every struct a multiple of 8 bytes.
 */
#ifndef PMUVIRT_XEN_H
#define PMUVIRT_XEN_H

#include "types.h"
#include "abi.h"

/* __HYPERVISOR_arch_7: arch_0 is MCA and arch_1 Xen's paging continuation. */
#define PMUVIRT_XEN_HYPERCALL		55
/* VIRQ_ARCH_1 (per VCPU): new overflow notifications; x86 uses ARCH_0 for MCA. */
#define PMUVIRT_XEN_VIRQ		17
#define PMUVIRT_XEN_VERSION		1

/* Commands (first hypercall argument). */
#define PMUVIRT_XEN_QUERY		1	/* struct pmuvirt_xen_query */
#define PMUVIRT_XEN_SET_CONTROL		2	/* struct pmuvirt_xen_set_control */
#define PMUVIRT_XEN_ARM			3	/* struct pmuvirt_xen_arm */
#define PMUVIRT_XEN_MAP_SHARED		4	/* struct pmuvirt_xen_map_shared */
#define PMUVIRT_XEN_READ		5	/* struct pmuvirt_xen_read */
#define PMUVIRT_XEN_TAKE_OVERFLOWS	6	/* struct pmuvirt_xen_take_overflows */
#define PMUVIRT_XEN_SET_POLICY		7	/* struct pmuvirt_xen_set_policy */
#define PMUVIRT_XEN_VCPU_READ		8	/* struct pmuvirt_xen_vcpu_read */
#define PMUVIRT_XEN_VCPU_SET_CONTROL	9	/* struct pmuvirt_xen_vcpu_set_control */
#define PMUVIRT_XEN_MAP_PHYS		10	/* struct pmuvirt_xen_map_phys */
#define PMUVIRT_XEN_UNMAP_PHYS		11	/* struct pmuvirt_xen_unmap_phys */

/*
 * The save stream (xl save, migration) carries each counting VCPU's
 * struct pmuvirt_saved_ctx (abi.h): for an HVM or PVH domain as an HVM
 * context record of type PMUVIRT_XEN_HVM_SAVE_CODE, followed by a record
 * of type PMUVIRT_XEN_HVM_VPMU_SAVE_CODE holding the struct
 * pmuvirt_vpmu_saved (vpmu.h) of each VCPU whose guest used its emulated
 * PMU; for a PV domain as
 * PMUVIRT_XEN_SAVE_MSRS 64-bit words in the VCPU's MSR list of
 * XEN_DOMCTL_get_vcpu_msrs/set_vcpu_msrs, word k at index
 * PMUVIRT_XEN_SAVE_MSR + k.  No guest can reach these indexes with
 * rdmsr/wrmsr: only the toolstack moves them.  Xen checks every restored
 * word as untrusted input (pmuvirt_ctx_restore(), the privilege rule, the
 * domain's event policy).
 */
#define PMUVIRT_XEN_HVM_SAVE_CODE	21
#define PMUVIRT_XEN_HVM_VPMU_SAVE_CODE	22
#define PMUVIRT_XEN_SAVE_MSR		0x504d0000u
#define PMUVIRT_XEN_SAVE_MSRS		109

/* pmuvirt_xen_set_policy.domid: the caller's own domain (Xen's DOMID_SELF). */
#define PMUVIRT_XEN_DOMID_SELF		0x7ff0u

/**
 * struct pmuvirt_xen_hdr - first member of every argument struct
 * @version:	PMUVIRT_XEN_VERSION.
 * @size:	sizeof the whole argument struct.
 */
struct pmuvirt_xen_hdr {
	uint32_t version;
	uint32_t size;
};

/* One physical counter, as struct pmuvirt_slot. */
struct pmuvirt_xen_slot {
	uint8_t cls;
	uint8_t index;
	uint8_t width;
	uint8_t flags;
	uint32_t events;
	uint32_t user_index;
	uint32_t reserved;
	uint64_t threshold;
};

/**
 * struct pmuvirt_xen_query - what the PMU offers (all fields but @hdr out)
 * @abi_version: PMUVIRT_ABI_VERSION of struct pmuvirt_control.
 * @arch, @model, @caps, @nr_slots, @nr_gp, @nr_fixed: as struct pmuvirt_pmu.
 * @virq:	PMUVIRT_XEN_VIRQ.
 * @max_counters: most counters a control may have.
 * @nr_records:	shared records of the domain (one per possible VCPU).
 * @record_size: sizeof(struct pmuvirt_shared_ctx).
 * @nr_frames:	frames holding the records (see PMUVIRT_XEN_MAP_SHARED).
 * @vcpu_id:	the calling VCPU.
 * @name:	model name, NUL-terminated.
 * @slot:	the first @nr_slots entries are valid.
 */
struct pmuvirt_xen_query {
	struct pmuvirt_xen_hdr hdr;
	uint32_t abi_version;
	uint32_t arch;
	uint32_t model;
	uint32_t caps;
	uint32_t nr_slots;
	uint32_t nr_gp;
	uint32_t nr_fixed;
	uint32_t virq;
	uint32_t max_counters;
	uint32_t nr_records;
	uint32_t record_size;
	uint32_t nr_frames;
	uint32_t vcpu_id;
	uint32_t reserved;
	char name[40];
	struct pmuvirt_xen_slot slot[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_xen_set_control - give the calling VCPU a new control
 * @err_counter: out: counter the failure refers to, -1 for the whole
 *		control or on success.
 * @reserved:	must be zero.
 * @ctl:	the control; counts restart at zero.
 */
struct pmuvirt_xen_set_control {
	struct pmuvirt_xen_hdr hdr;
	int32_t err_counter;
	uint32_t reserved;
	struct pmuvirt_control ctl;
};

/**
 * struct pmuvirt_xen_arm - set when i-mode counters of the calling VCPU
 *			    next signal
 * @mask:	counters to arm (bit i = counter i of the current control;
 *		all must be i-mode).
 * @reserved:	must be zero.
 * @remaining:	per counter in @mask: events until its next notification
 *		(1 to PMUVIRT_ARM_REMAINING_MAX, and not past 2^64 - 1 from
 *		the counter's logical count; -ERANGE otherwise).
 * @period:	per counter in @mask: events between later notifications
 *		(1 to PMUVIRT_PERIOD_MAX, on any counter width).
 *
 * All counters in @mask are armed from one sample (pmuvirt_arm_counters()),
 * so the hypercall's own events fall outside every counter.
 */
struct pmuvirt_xen_arm {
	struct pmuvirt_xen_hdr hdr;
	uint32_t mask;
	uint32_t reserved;
	uint64_t remaining[PMUVIRT_MAX_COUNTERS];
	uint64_t period[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_xen_map_shared - where the domain's VCPU records live
 * @nr_records:	out: records (one per possible VCPU; record i is VCPU i).
 * @record_size: out: sizeof(struct pmuvirt_shared_ctx).
 * @per_frame:	out: records per frame; a record never crosses a frame.
 * @nr_frames:	in: capacity of @frames; out: frames needed.
 * @frames:	in: guest address of a uint64_t array that receives the
 *		frame numbers (PV: machine frames, to map read-only).
 *
 * Record i is at byte (i % per_frame) * record_size of frame
 * i / per_frame.  -ENOSPC (with @nr_frames set) when the array is too
 * small; -EOPNOTSUPP for HVM and PVH guests (they use MAP_PHYS).
 */
struct pmuvirt_xen_map_shared {
	struct pmuvirt_xen_hdr hdr;
	uint32_t nr_records;
	uint32_t record_size;
	uint32_t per_frame;
	uint32_t nr_frames;
	uint64_t frames;
};

/**
 * struct pmuvirt_xen_read - logical values of the calling VCPU's counters
 * @nr_counters: out: valid entries of @value.
 * @reserved:	must be zero.
 * @value:	out.
 */
struct pmuvirt_xen_read {
	struct pmuvirt_xen_hdr hdr;
	uint32_t nr_counters;
	uint32_t reserved;
	uint64_t value[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_xen_take_overflows - drain pending notifications
 * @mask:	out: counters with notifications (bit i = counter i).
 * @reserved:	must be zero.
 * @count:	out: notifications per counter.
 */
struct pmuvirt_xen_take_overflows {
	struct pmuvirt_xen_hdr hdr;
	uint32_t mask;
	uint32_t reserved;
	uint32_t count[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_xen_set_policy - the event policy of a domain
 * @domid:	the domain, or PMUVIRT_XEN_DOMID_SELF.
 * @reserved:	must be zero.
 * @policy:	the policy (pmuvirt_policy_validate()); DENY with nothing
 *		listed lifts every restriction.
 *
 * Only a domain allowed to manage @domid may call it (Xen's XSM check for
 * a domctl: by default the control domain); others get -EPERM.  The
 * policy applies to every later SET_CONTROL of the domain's VCPUs.  A
 * VCPU whose control the new policy does not permit loses it (counts
 * nothing, as after an empty control): the calling VCPU at once, the
 * others when Xen next switches them in.  At the same moments it binds
 * the counters of the emulated PMU of HVM and PVH VCPUs (a refused one
 * counts nothing); PMUVIRT_POLICY_NO_VPMU takes that PMU away.  -ESRCH: no such domain;
 * -EINVAL: a malformed policy or a @domid past 16 bits.
 */
struct pmuvirt_xen_set_policy {
	struct pmuvirt_xen_hdr hdr;
	uint32_t domid;
	uint32_t reserved;
	struct pmuvirt_policy policy;
};

/**
 * struct pmuvirt_xen_vcpu_read - logical counts of any VCPU of a domain
 * @domid:	the domain, or PMUVIRT_XEN_DOMID_SELF.
 * @vcpu:	the VCPU's id in that domain.
 * @nr_counters: out: valid entries of @value (0: the VCPU counts nothing).
 * @reserved:	must be zero.
 * @value:	out: as struct pmuvirt_xen_read.
 *
 * The caller's own domain, or one it is allowed to manage (Xen's XSM
 * check for XEN_DOMCTL_getvcpucontext: by default only the control
 * domain); -EPERM otherwise, before anything of the domain is read.
 * -ESRCH: no such domain (or it is dying); -ENOENT: no such VCPU;
 * -EINVAL: a @domid past 16 bits or a reserved field set.  Another VCPU
 * than the caller's is paused for the read.
 */
struct pmuvirt_xen_vcpu_read {
	struct pmuvirt_xen_hdr hdr;
	uint32_t domid;
	uint32_t vcpu;
	uint32_t nr_counters;
	uint32_t reserved;
	uint64_t value[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_xen_vcpu_set_control - SET_CONTROL for any VCPU of a domain
 * @domid:	the domain, or PMUVIRT_XEN_DOMID_SELF.
 * @vcpu:	the VCPU's id in that domain.
 * @err_counter: out: as struct pmuvirt_xen_set_control.
 * @reserved:	must be zero.
 * @ctl:	the control, checked as SET_CONTROL checks it, under the
 *		target domain's policy and privilege mode; counts restart at 0.
 *
 * Access and errors as struct pmuvirt_xen_vcpu_read (the XSM check is the
 * one for XEN_DOMCTL_setvcpucontext), plus those of SET_CONTROL.  A
 * pmuvirt.ko in the target domain owns its VCPUs' controls: setting one
 * under it restarts the counts its threads are built on.
 */
struct pmuvirt_xen_vcpu_set_control {
	struct pmuvirt_xen_hdr hdr;
	uint32_t domid;
	uint32_t vcpu;
	int32_t err_counter;
	uint32_t reserved;
	struct pmuvirt_control ctl;
};

/*
 * System-wide profiling (commands 16 to 20).  The control domain starts one
 * session for the whole machine: sampling counters on every PCPU that
 * append records (struct pmuvirt_sample, abi.h) to rings Xen shares
 * read-only with that domain (the controller): one ring per VCPU of each
 * domain the session names, one per PCPU for the idle VCPU and for the
 * domains it does not name (their guest IPs withheld, PMUVIRT_SAMPLE_NO_IP).
 * A record names the domain, the VCPU (@tid), the PCPU (@cpu) and the mode
 * (Xen: PMUVIRT_SAMPLE_HYPERVISOR; guest user: PMUVIRT_SAMPLE_USER; guest
 * kernel: neither).  A ring's reader gets PMUVIRT_XEN_PROF_VIRQ on its
 * VCPU 0 when the ring holds @high_water_pct percent of its records
 * unread; it reads the rings and gives the room back with PROF_TAIL.
 *
 * Passive and active domains (Xenoprof's model): the rings of a domain the
 * session names are read by the controller (passive), or, when PROF_START
 * marks it active, by that domain itself: Xen shares them with it alone,
 * sends it the VIRQ, and its own tool maps them (PROF_MAP) and drains them
 * (PROF_TAIL).  An active domain sees only its own VCPUs' records, and in
 * them no address of Xen's: a record of Xen's mode carries
 * PMUVIRT_SAMPLE_NO_IP.  The controller alone starts, stops and releases
 * the session.  A PV active domain maps its rings by machine frame; Xen
 * places a PVH or HVM one's at guest frames it names (PROF_MAP) and takes
 * them out again at PROF_UNMAP.
 *
 * The session's counters sit next to each VCPU's own counters: a control
 * and the session may be in force together when the PMU has counters for
 * both, otherwise whichever comes second gets -EBUSY (PROF_START when a
 * VCPU's control leaves too few counters, SET_CONTROL and VCPU_SET_CONTROL
 * while the session holds them).
 */
#define PMUVIRT_XEN_PROF_START		16	/* struct pmuvirt_xen_prof_start */
#define PMUVIRT_XEN_PROF_STOP		17	/* struct pmuvirt_xen_prof_stop */
#define PMUVIRT_XEN_PROF_MAP		18	/* struct pmuvirt_xen_prof_map */
#define PMUVIRT_XEN_PROF_TAIL		19	/* struct pmuvirt_xen_prof_tail */
#define PMUVIRT_XEN_PROF_RELEASE	20	/* struct pmuvirt_xen_prof_release */
#define PMUVIRT_XEN_PROF_UNMAP		21	/* struct pmuvirt_xen_prof_unmap */

/* VIRQ_ARCH_2, per VCPU: a ring of the session passed its high-water mark. */
#define PMUVIRT_XEN_PROF_VIRQ		18
#define PMUVIRT_XEN_PROF_MAX_DOMAINS	32
#define PMUVIRT_XEN_PROF_MAX_COUNTERS	8	/* sampling counters of a session */
#define PMUVIRT_XEN_PROF_MIN_PAGES	2	/* pages per ring */
#define PMUVIRT_XEN_PROF_MAX_PAGES	256
#define PMUVIRT_XEN_PROF_MAX_FRAMES	65536	/* pages of all rings together */
#define PMUVIRT_XEN_PROF_MAX_PLACED	1024	/* ring pages of one PVH or HVM active domain */
/* Where a ring's records start: right after its 128-byte header. */
#define PMUVIRT_XEN_PROF_DATA_OFFSET	128
/* pmuvirt_sample.domain of an idle PCPU's samples (Xen's DOMID_IDLE). */
#define PMUVIRT_XEN_DOMID_IDLE		0x7fffu

/**
 * struct pmuvirt_xen_prof_start - start the system-wide session
 * @flags:	zero (reserved).
 * @nr_domains:	entries of @domains (0 to PMUVIRT_XEN_PROF_MAX_DOMAINS).
 * @ring_pages:	pages per ring, a power of two from PMUVIRT_XEN_PROF_MIN_PAGES
 *		to PMUVIRT_XEN_PROF_MAX_PAGES; a ring holds the largest power of
 *		two of records that fits after its header.
 * @high_water_pct: 1 to 100: the VIRQ goes out when a ring holds this
 *		share of its records unread.
 * @nr_rings:	out: rings of the session (see PROF_MAP).
 * @nr_records:	out: records per ring.
 * @err_counter: out: the counter of @ctl a refusal refers to, -1 otherwise.
 * @sample_format: what each record holds: PMUVIRT_SAMPLE_FMT_*, values
 *		one slot per counter of @ctl; 0 for PMUVIRT_SAMPLE_FMT_DEFAULT
 *		with 16 value slots (168-byte records).  With
 *		PMUVIRT_SAMPLE_FMT_CHAIN a guest record of a 64-bit PV VCPU
 *		of a named domain holds the guest's call chain, found by frame pointers in the
 *		guest's memory: in its kernel the callers on the kernel stack
 *		(@nr_kernel), in user mode the user callers (@nr_user).  Other
 *		records (Xen's, an idle PCPU's, an HVM, PVH or 32-bit PV
 *		guest's, a domain not named) hold no frames.
 * @active:	bit i set: @domains[i] is active (reads its own rings); no
 *		bit from @nr_domains on.
 * @chain_depth: with PMUVIRT_SAMPLE_FMT_CHAIN, frame slots of a record,
 *		1 to PMUVIRT_CHAIN_MAX; 0 otherwise.
 * @domains:	the domains whose VCPUs get rings of their own, each once,
 *		each existing and below 0x7ff0 (Xen's DOMID_FIRST_RESERVED);
 *		entries from @nr_domains on are zero.
 * @ctl:	the sampling counters: 1 to PMUVIRT_XEN_PROF_MAX_COUNTERS, each i-mode with
 *		PMUVIRT_CTR_SAMPLE (PMUVIRT_CTR_SAMPLE_VALUES for records that
 *		carry every session counter's value), no TSC.  The mode flags
 *		say what is sampled: PMUVIRT_CTR_KERNEL Xen (ring 0),
 *		PMUVIRT_CTR_USER the PV guests (their kernel and user mode).
 *
 * Only the control domain may start a session, and only on domains it may
 * manage (the XSM check of XEN_DOMCTL_getvcpucontext): -EPERM otherwise.
 * -EBUSY: a session exists (started, or stopped and not released), or a
 * VCPU's control and the session do not fit on the PMU together; -ESRCH:
 * a listed domain does not exist; -ENODEV: the PMU cannot sample;
 * -ENOSPC: more than PMUVIRT_XEN_PROF_MAX_FRAMES ring pages, or more than
 * PMUVIRT_XEN_PROF_MAX_PLACED for a PVH or HVM active domain;
 * -ENOMEM; -EINVAL: a malformed argument or control (@err_counter).
 */
struct pmuvirt_xen_prof_start {
	struct pmuvirt_xen_hdr hdr;
	uint32_t flags;
	uint32_t nr_domains;
	uint32_t ring_pages;
	uint32_t high_water_pct;
	uint32_t nr_rings;
	uint32_t nr_records;
	int32_t err_counter;
	uint32_t sample_format;
	uint32_t active;
	uint32_t chain_depth;
	uint16_t domains[PMUVIRT_XEN_PROF_MAX_DOMAINS];
	struct pmuvirt_control ctl;
};

/**
 * struct pmuvirt_xen_prof_stop - stop sampling
 * @flags:	zero (reserved).
 * @reserved:	zero.
 *
 * When it returns no session counter counts anywhere and no record is
 * written; the rings stay mapped and readable until PROF_RELEASE.  Only
 * the controller; -ENOENT without a running session.
 */
struct pmuvirt_xen_prof_stop {
	struct pmuvirt_xen_hdr hdr;
	uint32_t flags;
	uint32_t reserved;
};

/* pmuvirt_xen_prof_ring.flags */
#define PMUVIRT_XEN_PROF_RING_PCPU	0x1u	/* a PCPU's ring: @id is the PCPU */

/**
 * struct pmuvirt_xen_prof_ring - one ring of the session
 * @domain:	the domain whose VCPU writes it, or PMUVIRT_XEN_DOMID_IDLE
 *		for a PCPU's ring.
 * @id:		the VCPU, or with PMUVIRT_XEN_PROF_RING_PCPU the PCPU.
 * @frame:	index of its first frame in PROF_MAP's frame list; the ring
 *		is @ring_pages frames from there, mapped in that order.
 * @flags:	PMUVIRT_XEN_PROF_RING_*.
 */
struct pmuvirt_xen_prof_ring {
	uint32_t domain;
	uint32_t id;
	uint32_t frame;
	uint32_t flags;
};

/**
 * struct pmuvirt_xen_prof_map - the caller's rings and their frames
 * @nr_rings:	in: capacity of @rings; out: rings the caller reads.
 * @nr_frames:	in: capacity of @frames; out: frames of those rings.
 * @ring_pages:	out: frames per ring.
 * @nr_records:	out: records per ring.
 * @rings:	guest address of struct pmuvirt_xen_prof_ring[@nr_rings].
 * @frames:	guest address of uint64_t[@nr_frames].  A PV caller: out:
 *		machine frames, owned by the caller, to map read-only
 *		(privcmd, DOMID_SELF).  A PVH or HVM caller: in: the guest
 *		frames (distinct, without memory of their own) where Xen
 *		places the frames read-only, replacing a placement before.
 *
 * The rings a caller reads: the controller's are the PCPUs' and those of
 * the passive domains; an active domain's are its own VCPUs'.  The
 * controller or an active domain; -ENOENT without a session, -EPERM for
 * any other domain; -ENOSPC (counts set) when an array is too small;
 * -E2BIG for a PVH or HVM caller with more than PMUVIRT_XEN_PROF_MAX_PLACED
 * ring pages; -EINVAL for a guest frame beyond the address width or named twice;
 * -EBUSY for one Xen must not take over (nothing stays placed then).
 */
struct pmuvirt_xen_prof_map {
	struct pmuvirt_xen_hdr hdr;
	uint32_t nr_rings;
	uint32_t nr_frames;
	uint32_t ring_pages;
	uint32_t nr_records;
	uint64_t rings;
	uint64_t frames;
};

/**
 * struct pmuvirt_xen_prof_tail - give read records back to the writers
 * @nr_rings:	entries at @tails: the count of rings the caller reads
 *		(PROF_MAP's, in its order).
 * @reserved:	zero.
 * @tails:	guest address of uint32_t[@nr_rings]: each ring's new tail
 *		(records read since the ring was made, mod 2^32), at most its
 *		head and at most a ring behind it.
 *
 * Every tail is checked before any is stored: -EINVAL and nothing changed
 * for a bad one.  The controller or an active domain, as PROF_MAP.
 */
struct pmuvirt_xen_prof_tail {
	struct pmuvirt_xen_hdr hdr;
	uint32_t nr_rings;
	uint32_t reserved;
	uint64_t tails;
};

/**
 * struct pmuvirt_xen_prof_unmap - take a PVH or HVM reader's rings out of its physical map
 * @flags:	zero (reserved).
 * @reserved:	zero.
 *
 * The guest frames PROF_MAP placed the caller's rings at are empty again
 * (the caller gives them back to its allocator only after this).  The
 * controller or an active domain whose p2m Xen translates; -EOPNOTSUPP for
 * a PV caller (it unmaps its own mappings), -ENOENT without a session.
 */
struct pmuvirt_xen_prof_unmap {
	struct pmuvirt_xen_hdr hdr;
	uint32_t flags;
	uint32_t reserved;
};

/*
 * /dev/pmuvirt-xenprof: pmuvirt.ko's device in a PVH or HVM domain, for a
 * session that names the domain active (root only).  ioctl
 * PMUVIRT_XENPROF_IOC_MAP takes struct pmuvirt_xen_prof_map as PROF_MAP
 * does (@hdr, @nr_rings the capacity of @rings, a user address; @frames
 * ignored): the module places the domain's rings at guest frames of its
 * own and returns the counts and the ring list (-ENOSPC with the counts
 * when @nr_rings is too small; PROF_MAP's errors; -EBUSY once placed for
 * that file).  mmap(NULL, @nr_frames pages, PROT_READ, MAP_SHARED, fd, 0)
 * then maps them read-only, ring i from page @rings[i].frame.  Closing the
 * file (after the last munmap) takes them out again (PROF_UNMAP).
 */
#define PMUVIRT_XENPROF_IOC_MAGIC	0xD9
#define PMUVIRT_XENPROF_IOC_MAP_NR	0x40
#ifdef _IOWR
#define PMUVIRT_XENPROF_IOC_MAP	_IOWR(PMUVIRT_XENPROF_IOC_MAGIC, PMUVIRT_XENPROF_IOC_MAP_NR, \
				      struct pmuvirt_xen_prof_map)
#endif

/**
 * struct pmuvirt_xen_prof_release - free a stopped session's rings
 * @flags:	zero (reserved).
 * @reserved:	zero.
 *
 * -EBUSY while the session runs or while a reader (the controller or an
 * active domain) still maps a ring frame or has it placed (PROF_UNMAP
 * first; nothing is freed then); -ENOENT without a session.  Only the controller.  A controller
 * that goes away stops and frees its session; ring pages an active domain
 * still maps then stay allocated (Xen logs it) until that domain goes.
 */
struct pmuvirt_xen_prof_release {
	struct pmuvirt_xen_hdr hdr;
	uint32_t flags;
	uint32_t reserved;
};

/**
 * struct pmuvirt_xen_map_phys - place the records in the guest's physical map
 * @nr_records:	out: as MAP_SHARED.
 * @record_size: out: as MAP_SHARED.
 * @per_frame:	out: as MAP_SHARED.
 * @nr_frames:	in: entries of @gfns, which must be the domain's frame
 *		count (QUERY's @nr_frames); out: that count.
 * @gfns:	in: guest address of a uint64_t array: record frame i appears
 *		at guest frame @gfns[i], read-only (the guest's writes are
 *		discarded).
 * @flags:	must be zero.
 * @reserved:	must be zero.
 *
 * MAP_SHARED for HVM and PVH guests, whose page tables hold guest frames:
 * the same layout, but the guest names the frames (PV guests: -EOPNOTSUPP,
 * they map the machine frames of MAP_SHARED).  Frames placed before are
 * taken from their old guest frames first, so a guest places them again
 * after a restore or to move them.  A guest frame that holds the guest's
 * RAM has it freed, as XENMEM_add_to_physmap does for shared_info; give a
 * frame without memory (a ballooned one) to keep the RAM.  -EINVAL
 * (with the layout written back): another count, a guest frame beyond the
 * guest's physical address width, one named twice, a flag or reserved
 * field set; -EBUSY: a guest frame
 * holding MMIO, a grant, another domain's page or one Xen is paging; the
 * frames before that one are placed.
 */
struct pmuvirt_xen_map_phys {
	struct pmuvirt_xen_hdr hdr;
	uint32_t nr_records;
	uint32_t record_size;
	uint32_t per_frame;
	uint32_t nr_frames;
	uint64_t gfns;
	uint32_t flags;
	uint32_t reserved;
};

/**
 * struct pmuvirt_xen_unmap_phys - take the records out of the physical map
 * @nr_frames:	out: frames taken out (0: none were placed).
 * @reserved:	must be zero.
 *
 * HVM and PVH guests only.  The guest frames are left empty.
 */
struct pmuvirt_xen_unmap_phys {
	struct pmuvirt_xen_hdr hdr;
	uint32_t nr_frames;
	uint32_t reserved;
};

#endif /* PMUVIRT_XEN_H */
