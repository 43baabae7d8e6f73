/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Host-neutral checks of the argument structs a guest passes to the Xen
 * hypercall (include/pmuvirt/xen.h) and a thread passes to the Linux
 * ioctls (include/pmuvirt/linux.h).
 *
 * The host glue copies an argument into its own memory and hands the copy
 * to these functions; they only read it and return 0 or a negative errno.
 * They never change the argument, a context or the hardware, so the glue
 * can call them before anything is changed, and tests and fuzzers can call
 * them without a host.  The control inside an argument is not checked
 * here: pmuvirt_validate() does that, with the PMU.
 */
#ifndef PMUVIRT_ABI_CHECK_H
#define PMUVIRT_ABI_CHECK_H

#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/xen.h>

struct pmuvirt_attach;
struct pmuvirt_counts;
struct pmuvirt_sample_tail;
struct pmuvirt_sample_open;
struct pmuvirt_below;

/*
 * Highest signal number pmuvirt_attach.signo may name: Linux's _NSIG on
 * x86 and POWER (signals are 1 to _NSIG; 0 selects SIGIO).
 */
#define PMUVIRT_LINUX_SIGNO_MAX	64

/**
 * enum pmuvirt_xen_caller - who may make a hypercall command
 * @PMUVIRT_XEN_CALLER_SELF:	any domain: the command acts on the calling
 *				VCPU or its own domain.
 * @PMUVIRT_XEN_CALLER_MANAGER:	the command names a domain: a domain Xen
 *				lets manage it (the XSM check of a domctl
 *				on it; VCPU_READ and VCPU_SET_CONTROL take
 *				the caller's own calling VCPU without it).
 * @PMUVIRT_XEN_CALLER_CONTROL:	the control domain.
 * @PMUVIRT_XEN_CALLER_CONTROLLER: the domain that started the profiling
 *				session (-ENOENT without one, -EPERM for
 *				any other).
 * @PMUVIRT_XEN_CALLER_READER:	the controller or an active domain of the
 *				session, each on the rings it reads
 *				(-ENOENT without a session, -EPERM for any
 *				other domain).
 */
enum pmuvirt_xen_caller {
	PMUVIRT_XEN_CALLER_SELF,
	PMUVIRT_XEN_CALLER_MANAGER,
	PMUVIRT_XEN_CALLER_CONTROL,
	PMUVIRT_XEN_CALLER_CONTROLLER,
	PMUVIRT_XEN_CALLER_READER,
};

/*
 * The hypercall's commands, one row each:
 *
 *	X(NAME, arg, caller, zero0, zero1, domid)
 *
 * NAME		the command is PMUVIRT_XEN_<NAME> (include/pmuvirt/xen.h);
 * arg		its argument is struct pmuvirt_xen_<arg>, of exactly that size;
 * caller	who may call it: PMUVIRT_XEN_CALLER_<caller>, which the
 *		command's handler enforces;
 * zero0, zero1	32-bit fields of the argument that must be zero (reserved,
 *		flags), or none;
 * domid	a 32-bit field naming a domain, which must fit in 16 bits, or
 *		none (SET_POLICY's domain is checked by the glue).
 *
 * src/abi/xen_hcall.c makes of it the table pmuvirt_xen_cmd() returns
 * rows of; the Xen glue (pmuvirt_xen_hcall.c) its dispatch, one call of
 * pmuvirt_xen_op_<arg>() per row, so a row without a handler does not
 * build; union pmuvirt_xen_any_arg below has a member <arg> per row.
 */
#define PMUVIRT_XEN_COMMANDS(X)							\
	X(QUERY,		query,		  SELF,		none,	  none,  none)	\
	X(SET_CONTROL,		set_control,	  SELF,		reserved, none,  none)	\
	X(ARM,			arm,		  SELF,		reserved, none,  none)	\
	X(MAP_SHARED,		map_shared,	  SELF,		none,	  none,  none)	\
	X(READ,			read,		  SELF,		reserved, none,  none)	\
	X(TAKE_OVERFLOWS,	take_overflows,	  SELF,		reserved, none,  none)	\
	X(SET_POLICY,		set_policy,	  MANAGER,	reserved, none,  none)	\
	X(VCPU_READ,		vcpu_read,	  MANAGER,	reserved, none,  domid)	\
	X(VCPU_SET_CONTROL,	vcpu_set_control, MANAGER,	reserved, none,  domid)	\
	X(MAP_PHYS,		map_phys,	  SELF,		reserved, flags, none)	\
	X(UNMAP_PHYS,		unmap_phys,	  SELF,		reserved, none,  none)	\
	X(PROF_START,		prof_start,	  CONTROL,	flags,	  none,  none)	\
	X(PROF_STOP,		prof_stop,	  CONTROLLER,	reserved, flags, none)	\
	X(PROF_MAP,		prof_map,	  READER,	none,	  none,  none)	\
	X(PROF_TAIL,		prof_tail,	  READER,	reserved, none,  none)	\
	X(PROF_RELEASE,		prof_release,	  CONTROLLER,	reserved, flags, none)	\
	X(PROF_UNMAP,		prof_unmap,	  READER,	reserved, flags, none)

/*
 * Room for the argument of any hypercall command, for code that takes them
 * by command number (the glue's dispatch, tests, fuzzers); the member of
 * command PMUVIRT_XEN_<NAME> is its row's <arg>.
 */
union pmuvirt_xen_any_arg {
	struct pmuvirt_xen_hdr hdr;
#define PMUVIRT_XEN_ARG_MEMBER(NAME, arg, ...)	struct pmuvirt_xen_##arg arg;
	PMUVIRT_XEN_COMMANDS(PMUVIRT_XEN_ARG_MEMBER)
#undef PMUVIRT_XEN_ARG_MEMBER
};

/**
 * struct pmuvirt_xen_cmd - the host-neutral part of a command's row
 * @size:	exact size of its argument.
 * @caller:	enum pmuvirt_xen_caller.
 * @zero:	offsets of 32-bit fields that must be zero; 0 for none (the
 *		header sits at offset 0).
 * @domid:	offset of a 32-bit domain id that must fit in 16 bits; 0 for
 *		none.
 */
struct pmuvirt_xen_cmd {
	uint32_t size;
	uint8_t caller;
	uint16_t zero[2];
	uint16_t domid;
};

/**
 * pmuvirt_xen_cmd() - a hypercall command's row
 * @cmd:	PMUVIRT_XEN_*.
 *
 * Return: the row, or NULL for an unknown command.
 */
const struct pmuvirt_xen_cmd *pmuvirt_xen_cmd(unsigned int cmd);

/**
 * pmuvirt_xen_arg_size() - exact argument size of a hypercall command
 * @cmd:	PMUVIRT_XEN_*.
 *
 * Return: sizeof the command's struct, or 0 for an unknown command.
 */
uint32_t pmuvirt_xen_arg_size(unsigned int cmd);

/**
 * pmuvirt_xen_check_hdr() - check the header of a hypercall argument
 * @cmd:	PMUVIRT_XEN_*.
 * @hdr:	the header, copied from the guest.
 *
 * Return: 0; -EOPNOTSUPP for an unknown command; -EINVAL when the version
 * is not PMUVIRT_XEN_VERSION or the size not the command's exact size.
 */
int pmuvirt_xen_check_hdr(unsigned int cmd, const struct pmuvirt_xen_hdr *hdr);

/**
 * pmuvirt_xen_check_arg() - check a whole hypercall argument
 * @cmd:	PMUVIRT_XEN_*.
 * @arg:	the argument, copied from the guest, aligned for its struct.
 * @len:	bytes at @arg.
 *
 * Checks the header again (on the copy that will be used, so a guest that
 * changes it after the header was fetched gains nothing), then what the
 * command's row says: its reserved and flags fields zero, a domain id in
 * 16 bits.  The counters named by ARM are checked by
 * pmuvirt_xen_check_arm(), the control of SET_CONTROL by pmuvirt_validate().
 *
 * Return: 0; -EOPNOTSUPP for an unknown command; -EINVAL when @len is not
 * the command's size, or for a bad header, a nonzero reserved or flags
 * field or a domain id past 16 bits.
 */
int pmuvirt_xen_check_arg(unsigned int cmd, const void *arg, size_t len);

/**
 * pmuvirt_xen_check_arm() - check an ARM argument against the VCPU's control
 * @op:		the argument (already accepted by pmuvirt_xen_check_arg()).
 * @ctx:	the calling VCPU's context.
 *
 * The same argument checks, in the same order and with the same errors, as
 * pmuvirt_arm_counters() makes before it changes anything, on the counters
 * the guest set: pmuvirt_arm_check() (a profiling session's counters,
 * which come after them, are not the guest's to arm).
 *
 * Return: 0; -EINVAL when @mask is empty, names a counter the guest's
 * control does not have or one that is not i-mode, or a named counter has a zero
 * remaining count or period; -ERANGE when a period exceeds
 * PMUVIRT_PERIOD_MAX, or a remaining count exceeds PMUVIRT_ARM_REMAINING_MAX or
 * takes the counter's logical count past 2^64 - 1.
 */
int pmuvirt_xen_check_arm(const struct pmuvirt_xen_arm *op, const struct pmuvirt_ctx *ctx);

/**
 * pmuvirt_xen_check_map_phys() - check a MAP_PHYS argument against the domain
 * @op:		the argument (already accepted by pmuvirt_xen_check_arg()).
 * @nr_frames:	the domain's record frames (QUERY's nr_frames).
 *
 * The glue copies @op->nr_frames guest frame numbers only after this.
 *
 * Return: 0; -EINVAL when the count is not @nr_frames (or the domain has
 * no frames).
 */
int pmuvirt_xen_check_map_phys(const struct pmuvirt_xen_map_phys *op, uint32_t nr_frames);

/**
 * pmuvirt_xen_check_gfns() - check the guest frames MAP_PHYS names
 * @gfns:	the array, copied from the guest.
 * @n:		its entries.
 * @limit:	first guest frame beyond the guest's physical address width.
 *
 * Return: 0; -EINVAL for a frame at or above @limit or one named twice.
 */
int pmuvirt_xen_check_gfns(const uint64_t *gfns, unsigned int n, uint64_t limit);

/**
 * pmuvirt_xen_guest_privilege() - keep Xen's own events out of a guest's control
 * @ctl:	the guest's control (a copy), rewritten in place.
 * @pv:		the guest is paravirtual.
 * @caps:	the caps of Xen's PMU (PMUVIRT_CAP_GUEST_ONLY: Xen can have
 *		the hardware leave itself out).
 * @err:	on failure, which counter and why.
 *
 * A PV guest's kernel runs outside ring 0 (ring 3 on 64-bit, ring 1 on
 * 32-bit), where the hardware's user filter counts; ring 0 is Xen.  So for
 * PV every counter that asks for kernel mode counts in user mode instead:
 * it then counts everything the guest runs and nothing of Xen (the hardware
 * cannot tell the guest's kernel from its user mode there).  A PV guest
 * runs in the host's mode, so guest-only counting is refused for it.  An
 * HVM or PVH guest's kernel shares the supervisor filter with Xen: its
 * kernel-mode counters get PMUVIRT_CTR_GUEST, which counts only while the
 * guest runs, when @caps has PMUVIRT_CAP_GUEST_ONLY, and are refused
 * otherwise.  The TSC and controls pmuvirt_validate() will refuse anyway
 * are left alone.
 *
 * Return: 0; -EOPNOTSUPP for kernel-mode counting by an HVM guest when Xen
 * cannot leave itself out, and for guest-only counting by a PV guest.
 */
int pmuvirt_xen_guest_privilege(struct pmuvirt_control *ctl, bool pv, uint32_t caps,
				struct pmuvirt_error *err);

/**
 * pmuvirt_xen_check_saved() - may a saved VCPU's control come back
 * @in:		a blob from the save stream (pmuvirt_ctx_restore() checks
 *		the rest of it).
 * @pv:		the restored domain is paravirtual.
 * @caps:	the caps of Xen's PMU.
 * @err:	on failure, which counter and why.
 *
 * A control Xen saved keeps pmuvirt_xen_guest_privilege()'s rule:
 * applying it again changes nothing.  One that would be rewritten, or
 * refused, did not come from a Xen with the same rules (a PV blob given
 * to an HVM domain, a guest-only counter where Xen cannot leave itself
 * out, a kernel-mode counter added in transit).
 *
 * Return: 0; -EOPNOTSUPP as pmuvirt_xen_guest_privilege(); -EINVAL when
 * the rule would rewrite a counter.
 */
int pmuvirt_xen_check_saved(const struct pmuvirt_saved_ctx *in, bool pv, uint32_t caps,
			    struct pmuvirt_error *err);

/**
 * pmuvirt_xen_check_prof_start() - check a PROF_START argument
 * @op:		the argument (already accepted by pmuvirt_xen_check_arg()).
 * @err:	on failure, which counter of @op->ctl (or -1) and why.
 *
 * What can be checked without Xen: the domain list (at most
 * PMUVIRT_XEN_PROF_MAX_DOMAINS, each below 0x7ff0 and listed once, zero
 * past the count, active bits only for listed ones), the ring size (a power of two of pages in range), the
 * record format (a chain depth of 1 to PMUVIRT_CHAIN_MAX with call
 * chains, 0 without), the high-water mark (1 to 100 percent) and the shape of the control (its
 * version; 1 to PMUVIRT_XEN_PROF_MAX_COUNTERS counters, each an i-mode
 * sampling counter, none the TSC).  The control then goes to
 * pmuvirt_validate() with the PMU, the domains to Xen.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_xen_check_prof_start(const struct pmuvirt_xen_prof_start *op,
				 struct pmuvirt_error *err);

/**
 * pmuvirt_xen_prof_format() - the record format of a session's rings
 * @op:		the argument, accepted by pmuvirt_xen_check_prof_start().
 * @fmt:	receives the format.
 */
void pmuvirt_xen_prof_format(const struct pmuvirt_xen_prof_start *op,
			     struct pmuvirt_sample_format *fmt);

/**
 * pmuvirt_xen_prof_records() - records per ring of a session
 * @ring_pages:	pages per ring (accepted by pmuvirt_xen_check_prof_start()).
 * @fmt:	the records' format (pmuvirt_xen_prof_format()).
 *
 * Return: the largest power of two of records that fits in @ring_pages
 * pages after the ring's header; 0 for a format that is not one.
 */
uint32_t pmuvirt_xen_prof_records(uint32_t ring_pages, const struct pmuvirt_sample_format *fmt);

/**
 * struct pmuvirt_xen_prof_where - where a counter interrupt found the CPU
 * @ip:		the interrupted instruction pointer.
 * @cs:		the interrupted code segment selector (its low two bits: the ring).
 * @guest:	the interrupted frame is a guest's (Xen: guest_mode(regs));
 *		otherwise Xen itself was interrupted.
 * @hvm:	the VCPU is an HVM or PVH one.
 * @pv32:	the VCPU is a 32-bit PV one (its kernel runs in ring 1).
 * @kernel:	a 64-bit PV VCPU is in its kernel (Xen's TF_kernel_mode): the
 *		kernel runs in ring 3 like user code there.
 */
struct pmuvirt_xen_prof_where {
	uint64_t ip;
	uint32_t cs;
	bool guest;
	bool hvm;
	bool pv32;
	bool kernel;
};

/**
 * pmuvirt_xen_prof_mode() - Xen, guest kernel or guest user
 * @w:		the interrupted state.
 *
 * Return: PMUVIRT_SAMPLE_HYPERVISOR (Xen), PMUVIRT_SAMPLE_USER (guest
 * user mode) or 0 (the guest's kernel).
 */
uint32_t pmuvirt_xen_prof_mode(const struct pmuvirt_xen_prof_where *w);

/*
 * The guest state an HVM or PVH VCPU's VM exit leaves in the VMCB (AMD
 * APM vol. 2, appendix B: offsets in the save area) or the VMCS (Intel
 * SDM vol. 3, appendix B: field encodings).
 */
#define PMUVIRT_XEN_VMCB_CPL		0x4cbu	/* u8: the guest's CPL */
#define PMUVIRT_XEN_VMCB_RIP		0x578u
#define PMUVIRT_XEN_VMCS_GUEST_SS_AR	0x4818u	/* access rights: DPL in bits 5-6 is the CPL */
#define PMUVIRT_XEN_VMCS_GUEST_RIP	0x681eu

/**
 * enum pmuvirt_xen_hvm_kind - which VM-exit state holds an HVM guest's registers
 * @PMUVIRT_XEN_HVM_SVM:	AMD's VMCB (fields PMUVIRT_XEN_VMCB_*).
 * @PMUVIRT_XEN_HVM_VMX:	Intel's VMCS (fields PMUVIRT_XEN_VMCS_*).
 */
enum pmuvirt_xen_hvm_kind {
	PMUVIRT_XEN_HVM_SVM = 1,
	PMUVIRT_XEN_HVM_VMX = 2,
};

/*
 * Reads one field of the VMCB or VMCS of the VCPU that runs here: 0 and
 * *@val, or a negative errno for a field it cannot read.
 */
typedef int (*pmuvirt_xen_hvm_read_t)(void *arg, uint32_t field, uint64_t *val);

/**
 * pmuvirt_xen_prof_hvm_guest() - an HVM or PVH guest's IP and CPL as of its VM exit
 * @w:		where the counter interrupt found the CPU; on success it
 *		names the guest: @ip the guest's RIP, @cs its CPL, @guest
 *		and @hvm set.
 * @kind:	SVM or VMX.
 * @read:	reads a VMCB offset or a VMCS encoding.
 * @arg:	for @read.
 *
 * For a counter interrupt that made the guest exit (SVM takes it right
 * after the exit, in Xen's frame; VMX hands Xen's handler the guest's
 * frame without its CPL) and for a record made in Xen while the VCPU is
 * current, where the interrupted state is not known.  The values are the
 * guest's and are checked: a CPL above 3 is refused.
 *
 * Return: 0; -EINVAL for an unknown @kind or a CPL above 3; @read's error.
 * @w is unchanged on an error.
 */
int pmuvirt_xen_prof_hvm_guest(struct pmuvirt_xen_prof_where *w, unsigned int kind,
			       pmuvirt_xen_hvm_read_t read, void *arg);

/**
 * pmuvirt_xen_prof_record() - the host's part of a session's sample record
 * @s:		the record the core made (counter, CPU, weight, values set).
 * @w:		the interrupted state.
 * @domain:	the running VCPU's domain (PMUVIRT_XEN_DOMID_IDLE when idle).
 * @vcpu:	its VCPU id.
 * @profiled:	the session names the domain: a guest-mode IP, the VCPU and
 *		the counter values are recorded.  Otherwise the record keeps
 *		the domain and the mode (and Xen's IP when Xen was
 *		interrupted) and nothing of the domain's: a guest IP is
 *		withheld (0, PMUVIRT_SAMPLE_NO_IP), @tid is 0, the values are
 *		cleared (no PMUVIRT_SAMPLE_VALUES, @nr_values 0, every value
 *		0).  An idle PCPU (PMUVIRT_XEN_DOMID_IDLE) is Xen's: its
 *		records keep the PCPU and the values.
 * @time:	the host's clock.
 */
void pmuvirt_xen_prof_record(struct pmuvirt_sample *s, const struct pmuvirt_xen_prof_where *w,
			     uint32_t domain, uint32_t vcpu, bool profiled, uint64_t time);

/**
 * pmuvirt_xen_prof_for_guest() - a record that a guest (an active domain) reads
 * @s:		a record of pmuvirt_xen_prof_record().
 *
 * Xen's addresses stay Xen's: a record of Xen's mode keeps its mode and
 * loses its IP (0, PMUVIRT_SAMPLE_NO_IP).  Guest records are unchanged.
 */
void pmuvirt_xen_prof_for_guest(struct pmuvirt_sample *s);

/*
 * A 64-bit PV guest's address space (Xen's x86-64 layout): user mode below
 * PMUVIRT_XEN_PV_USER_END, the guest kernel from PMUVIRT_XEN_PV_KERNEL_START
 * (Xen's HYPERVISOR_VIRT_END) up; Xen's own range lies between.
 */
#define PMUVIRT_XEN_PV_USER_END		0x0000800000000000ull
#define PMUVIRT_XEN_PV_KERNEL_START	0xffff880000000000ull
/* Deepest guest kernel stack a chain is read from (Linux: 16 KiB, 32 with KASAN). */
#define PMUVIRT_XEN_PV_KSTACK_MAX	0x8000u

/**
 * pmuvirt_xen_pv_guest_addr() - a range of a 64-bit PV guest's own addresses
 * @addr:	its start.
 * @len:	its length.
 *
 * Return: true when [@addr, @addr + @len) lies wholly in the guest's user
 * half or wholly in its kernel's range, never in Xen's.
 */
bool pmuvirt_xen_pv_guest_addr(uint64_t addr, uint32_t len);

/**
 * struct pmuvirt_xen_pv_stack - a 64-bit PV VCPU's stack at a counter interrupt
 * @bp:		the interrupted rbp (the innermost frame pointer).
 * @sp:		the interrupted rsp.
 * @kernel_sp:	the stack the guest kernel registered with Xen for its
 *		entries from user mode (Xen: v->arch.pv.kernel_sp; Linux
 *		sets it at each task switch to the top of the task's kernel
 *		stack).
 */
struct pmuvirt_xen_pv_stack {
	uint64_t bp;
	uint64_t sp;
	uint64_t kernel_sp;
};

/**
 * pmuvirt_xen_prof_pv_limit() - how far a PV guest's call chain may be read
 * @w:		the interrupted state.
 * @st:		the VCPU's stack registers.
 *
 * A 64-bit PV guest interrupted in guest mode: in user mode the user half
 * (@st->sp below PMUVIRT_XEN_PV_USER_END); in its kernel the running
 * task's kernel stack, when @st->sp lies in the kernel's range less than
 * PMUVIRT_XEN_PV_KSTACK_MAX below @st->kernel_sp (otherwise, e.g. on an
 * interrupt stack, no frames).  Xen, an HVM, PVH or 32-bit PV guest: none.
 *
 * Return: the end of the stack (pmuvirt_chain_fp()'s @limit), or 0: no
 * frames are read.
 */
uint64_t pmuvirt_xen_prof_pv_limit(const struct pmuvirt_xen_prof_where *w,
				   const struct pmuvirt_xen_pv_stack *st);

/**
 * pmuvirt_xen_prof_pv_chain() - the call chain of a session's record
 * @s:		the record (pmuvirt_xen_prof_record() done); @nr_kernel or
 *		@nr_user get the frames' count, the other 0.
 * @w:		the interrupted state.
 * @profiled:	the session names the domain: only then are frames read.
 * @st:		the VCPU's stack registers.
 * @read:	reads the guest's memory, fault-safe.
 * @arg:	for @read.
 * @frames:	where the frames go (the record's slots), or NULL.
 * @max:	room at @frames.
 *
 * Frames by frame pointers (pmuvirt_chain_fp()) from @st->bp, within
 * [@st->sp, pmuvirt_xen_prof_pv_limit()): a guest kernel's are the
 * record's kernel frames, a guest user's its user frames.
 */
void pmuvirt_xen_prof_pv_chain(struct pmuvirt_sample *s, const struct pmuvirt_xen_prof_where *w,
			       bool profiled, const struct pmuvirt_xen_pv_stack *st,
			       pmuvirt_chain_read_fn read, void *arg, uint64_t *frames,
			       unsigned int max);

/**
 * enum pmuvirt_linux_caller - who may make an ioctl
 * @PMUVIRT_LINUX_CALLER_THREAD: a thread with a context: the request acts
 *				on it (-ESRCH without one, after the
 *				argument's checks).
 * @PMUVIRT_LINUX_CALLER_NEW:	a thread without a context: the request
 *				gives it one (-EBUSY for a thread that has
 *				one, after its control was accepted).
 * @PMUVIRT_LINUX_CALLER_FILE:	any process holding the file.
 */
enum pmuvirt_linux_caller {
	PMUVIRT_LINUX_CALLER_THREAD,
	PMUVIRT_LINUX_CALLER_NEW,
	PMUVIRT_LINUX_CALLER_FILE,
};

/*
 * The ioctls of /dev/pmuvirt, one row each:
 *
 *	X(NAME, name, nr, arg, caller)
 *
 * NAME		the request is PMUVIRT_IOC_<NAME> (include/pmuvirt/linux.h),
 *		whose number (_IOC_NR) is @nr;
 * name		its handler in the module is ioc_<name>() (pmuvirt_ioctl.c);
 * arg		its argument is struct pmuvirt_<arg>, of exactly that size,
 *		starting with its size and PMUVIRT_LINUX_VERSION, checked by
 *		pmuvirt_linux_check_<arg>();
 * caller	who may call it: PMUVIRT_LINUX_CALLER_<caller>.
 *
 * src/abi/linux_ioctl.c makes of it the table pmuvirt_linux_ioctl()
 * returns rows of; the module its dispatch (one ioc_<name>() per row, so a
 * row without a handler does not build) and a check, at build time, that
 * PMUVIRT_IOC_<NAME> encodes @nr and the argument's size.  A sample ring's
 * descriptor takes SAMPLE_TAIL alone, for its own ring.
 */
#define PMUVIRT_LINUX_IOCTLS(X)							\
	X(ATTACH,	attach,		1, attach,	NEW)			\
	X(READ,		read,		2, counts,	THREAD)			\
	X(DETACH,	detach,		3, counts,	THREAD)			\
	X(RESUME,	resume,		4, counts,	THREAD)			\
	X(BELOW,	below,		5, below,	FILE)			\
	X(SAMPLE_TAIL,	sample_tail,	6, sample_tail,	THREAD)			\
	X(SAMPLE_OPEN,	sample_open,	7, sample_open,	FILE)

/**
 * struct pmuvirt_linux_ioctl - the host-neutral part of an ioctl's row
 * @size:	exact size of its argument.
 * @caller:	enum pmuvirt_linux_caller.
 * @check:	the argument's check, pmuvirt_linux_check_<arg>().
 */
struct pmuvirt_linux_ioctl {
	uint32_t size;
	uint8_t caller;
	int (*check)(const void *arg);
};

/**
 * pmuvirt_linux_ioctl() - an ioctl's row
 * @nr:		its number, _IOC_NR(PMUVIRT_IOC_*).
 *
 * Return: the row, or NULL for an unknown number.
 */
const struct pmuvirt_linux_ioctl *pmuvirt_linux_ioctl(unsigned int nr);

/**
 * pmuvirt_linux_check_arg() - check a copied-in ioctl argument by its row
 * @nr:		_IOC_NR(PMUVIRT_IOC_*).
 * @arg:	the argument, copied from the caller.
 * @len:	bytes at @arg.
 *
 * Return: 0; -EOPNOTSUPP for an unknown number (the module answers
 * -ENOTTY before it gets here); -EINVAL when @len is not the
 * row's size or the row's check refuses the argument.
 */
int pmuvirt_linux_check_arg(unsigned int nr, const void *arg, size_t len);

/**
 * pmuvirt_linux_check_hdr() - check the first two words of an ioctl argument
 * @hdr:	size and version, copied from the caller.
 * @size:	the exact size of the request's struct.
 *
 * Return: 0, or -EINVAL when the size or PMUVIRT_LINUX_VERSION differ.
 */
int pmuvirt_linux_check_hdr(const uint32_t hdr[2], size_t size);

/**
 * pmuvirt_linux_check_attach() - check a copied-in struct pmuvirt_attach
 * @a:		the argument.
 *
 * Size and version, flags within PMUVIRT_ATTACH_FLAGS, @caps (an output)
 * zero, @sample_format within PMUVIRT_SAMPLE_FMT_ALL, @chain_depth at
 * most PMUVIRT_CHAIN_MAX, @signo at most PMUVIRT_LINUX_SIGNO_MAX,
 * @sample_pages 0 or a power of two from 2 to PMUVIRT_SAMPLE_PAGES_MAX,
 * PMUVIRT_ATTACH_SAMPLE_FILE only with PMUVIRT_ATTACH_REPORT and @signo 0,
 * PMUVIRT_ATTACH_SUM only with PMUVIRT_ATTACH_INHERIT.
 * The control is not looked at (pmuvirt_validate() and
 * pmuvirt_linux_check_sample_pages() check it).
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_linux_check_attach(const struct pmuvirt_attach *a);

/**
 * pmuvirt_linux_check_sample_pages() - the sample ring size of an attach
 * @a:		the argument.
 *
 * After pmuvirt_linux_check_attach() and pmuvirt_validate(): a control
 * with a PMUVIRT_CTR_SAMPLE counter needs @sample_pages, a control without
 * one needs 0 and no PMUVIRT_ATTACH_SAMPLE_FILE.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_linux_check_sample_pages(const struct pmuvirt_attach *a);

/**
 * pmuvirt_linux_sample_format() - the record format of an attach's ring
 * @a:		the argument, after pmuvirt_linux_check_sample_pages().
 * @fmt:	receives the format (values: one slot per counter).
 *
 * Return: 0; -EINVAL for a @sample_format or @chain_depth without
 * @sample_pages, unknown format bits, or a @chain_depth that does not go
 * with PMUVIRT_SAMPLE_FMT_CHAIN (1 to PMUVIRT_CHAIN_MAX with it, 0 without).
 */
int pmuvirt_linux_sample_format(const struct pmuvirt_attach *a, struct pmuvirt_sample_format *fmt);

/**
 * pmuvirt_linux_check_sample_tail() - check a copied-in struct pmuvirt_sample_tail
 * @t:		the argument of PMUVIRT_IOC_SAMPLE_TAIL.
 *
 * Size and version, and the reserved word zero (the tail itself is checked
 * against the ring by the module).
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_linux_check_sample_tail(const struct pmuvirt_sample_tail *t);

/**
 * pmuvirt_linux_check_sample_open() - check a copied-in struct pmuvirt_sample_open
 * @o:		the argument of PMUVIRT_IOC_SAMPLE_OPEN.
 *
 * Size and version, @flags and the reserved words zero.  The other fields
 * are outputs and are not looked at.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_linux_check_sample_open(const struct pmuvirt_sample_open *o);

/**
 * pmuvirt_linux_check_counts() - check a copied-in struct pmuvirt_counts
 * @c:		the argument of PMUVIRT_IOC_READ, _DETACH or _RESUME.
 *
 * Size and version, and the reserved word zero.  The other fields are
 * outputs and are not looked at.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_linux_check_counts(const struct pmuvirt_counts *c);

/**
 * pmuvirt_linux_check_below() - check a copied-in struct pmuvirt_below
 * @b:		the argument of PMUVIRT_IOC_BELOW.
 *
 * Size and version, @flags and the reserved word zero.  The other fields
 * are outputs and are not looked at.
 *
 * Return: 0 or -EINVAL.
 */
int pmuvirt_linux_check_below(const struct pmuvirt_below *b);

#endif /* PMUVIRT_ABI_CHECK_H */
