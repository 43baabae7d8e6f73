/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * PAPI component for pmuvirt.ko: per-thread virtual counters.
 *
 * An event set is one pmuvirt control.  PAPI_start attaches the calling
 * thread (PMUVIRT_IOC_ATTACH), PAPI_read reads the thread's mapped record
 * (rdtsc/rdpmc, no system call; the read ioctl when user mode may not read
 * a counter), PAPI_stop detaches.  PAPI_reset and PAPI_write move a base
 * kept here, so no ioctl is needed for them.  An overflow threshold makes
 * the counter an i-mode counter with that period; the module sends the
 * component's signal and the handler takes the notifications with
 * PMUVIRT_IOC_RESUME, which also re-enables the signal.
 *
 * Native events are the portable ones (instructions, cycles, branches,
 * branch-misses, tsc) and raw codes written "rHEX" (x86: the event select
 * bits, see include/pmuvirt/abi.h).  PAPI_INHERIT is the module's summed
 * inheritance (PMUVIRT_ATTACH_INHERIT | PMUVIRT_ATTACH_SUM): reads then go
 * through the read ioctl, which adds the ended descendants' counts.
 * Counting is per thread only: attach to another thread and system-wide
 * (CPU) granularity are refused with PAPI's error codes, and so is an
 * overflow threshold on the TSC, which cannot interrupt (PAPI_ECMP).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "papi_memory.h"
#include "extras.h"

#include "libpmuvirt-user.h"

papi_vector_t _pmuvirt_vector;

#define PV_NR_PORTABLE	(PMUVIRT_EV_NR - 1)
/* Native codes of raw events: PV_RAW_BASE + slot in raw_codes[]. */
#define PV_RAW_BASE	0x100u
#define PV_MAX_RAW	256

struct pv_event {
	const char *name;
	const char *descr;
};

static const struct pv_event pv_events[PV_NR_PORTABLE] = {
	{ "instructions", "Instructions retired by the thread" },
	{ "cycles", "Core cycles while the thread runs" },
	{ "branches", "Branch instructions retired by the thread" },
	{ "branch-misses", "Mispredicted branches retired by the thread" },
	{ "tsc", "Time-stamp counter ticks while the thread runs (no overflow)" },
};

/* Raw codes named so far, shared by all threads (a code never leaves the table). */
static pthread_mutex_t raw_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t raw_codes[PV_MAX_RAW];
static unsigned int nr_raw;

static int pv_fd = -1;

/**
 * struct pv_context - one thread's state
 * @u:		its attachment (libpmuvirt-user).
 * @running:	the control state attached now, or NULL.
 */
struct pv_context {
	struct pmuvirt_user u;
	struct pv_control *running;
};

/**
 * struct pv_control - one event set
 * @nr:		counters in use.
 * @domain:	PAPI_DOM_* of the event set.
 * @inherit:	PAPI_INHERIT: new tasks count too, summed into the reads.
 * @code:	native code of each counter.
 * @period:	overflow threshold of each counter (0: none).
 * @base:	subtracted from the logical value (PAPI_reset, PAPI_write).
 * @last:	values at the last read while attached (returned after stop).
 * @values:	what PAPI_read receives.
 */
struct pv_control {
	unsigned int nr;
	int domain;
	bool inherit;
	unsigned int code[PMUVIRT_MAX_COUNTERS];
	uint64_t period[PMUVIRT_MAX_COUNTERS];
	uint64_t base[PMUVIRT_MAX_COUNTERS];
	uint64_t last[PMUVIRT_MAX_COUNTERS];
	long long values[PMUVIRT_MAX_COUNTERS];
};

static int pv_errno_to_papi(int err)
{
	switch (err) {
	case ENOSPC:
	case EBUSY:
		return PAPI_ECNFLCT;
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
		return PAPI_ENOEVNT;
	case EACCES:
	case EPERM:
		return PAPI_EPERM;
	case ERANGE:
		return PAPI_EINVAL;
	case ENOMEM:
		return PAPI_ENOMEM;
	default:
		return PAPI_ESYS;
	}
}

static int pv_code_event(unsigned int code, uint64_t *event, uint32_t *raw)
{
	if (code < PV_NR_PORTABLE) {
		*event = code + 1;
		*raw = 0;
		return PAPI_OK;
	}
	if (code >= PV_RAW_BASE && code - PV_RAW_BASE < __atomic_load_n(&nr_raw, __ATOMIC_ACQUIRE)) {
		*event = raw_codes[code - PV_RAW_BASE];
		*raw = PMUVIRT_CTR_RAW;
		return PAPI_OK;
	}
	return PAPI_ENOEVNT;
}

static bool pv_is_tsc(unsigned int code)
{
	return code == PMUVIRT_EV_TSC - 1;
}

/* The pmuvirt control of an event set. */
static int pv_build(const struct pv_control *c, struct pmuvirt_control *ctl)
{
	uint32_t flags = 0;
	unsigned int i;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = c->nr;
	if (c->domain & PAPI_DOM_USER)
		flags |= PMUVIRT_CTR_USER;
	if (c->domain & (PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR))
		flags |= PMUVIRT_CTR_KERNEL;
	for (i = 0; i < c->nr; i++) {
		uint32_t raw;
		int ret = pv_code_event(c->code[i], &ctl->counter[i].event, &raw);

		if (ret != PAPI_OK)
			return ret;
		ctl->counter[i].flags = pv_is_tsc(c->code[i]) ? 0 : flags | raw;
		ctl->counter[i].period = c->period[i];
	}
	return PAPI_OK;
}

static uint32_t pv_attach_flags(const struct pv_control *c)
{
	return c->inherit ? PMUVIRT_ATTACH_INHERIT | PMUVIRT_ATTACH_SUM : 0;
}

/*
 * Whether the module takes @c: a trial attach and detach of the calling
 * thread, so that an event set that cannot be counted fails when the event
 * is added (PAPI_ECNFLCT lets PAPI's multiplexer split it), not at start.
 * A thread that counts already (EBUSY) is checked at start instead.  An
 * empty set is tried as one TSC counter, for its attach flags.
 */
static int pv_try(const struct pv_control *c)
{
	struct pmuvirt_attach a;
	struct pmuvirt_counts n;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.version = PMUVIRT_LINUX_VERSION;
	a.flags = pv_attach_flags(c);
	if (c->nr) {
		ret = pv_build(c, &a.control);
		if (ret != PAPI_OK)
			return ret;
	} else if (a.flags) {
		a.control.version = PMUVIRT_ABI_VERSION;
		a.control.nr_counters = 1;
		a.control.counter[0].event = PMUVIRT_EV_TSC;
	} else {
		return PAPI_OK;
	}
	a.signo = _pmuvirt_vector.cmp_info.hardware_intr_sig;
	if (ioctl(pv_fd, PMUVIRT_IOC_ATTACH, &a)) {
		if (errno == EBUSY)
			return PAPI_OK;
		return pv_errno_to_papi(errno);
	}
	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	n.version = PMUVIRT_LINUX_VERSION;
	if (ioctl(pv_fd, PMUVIRT_IOC_DETACH, &n))
		return PAPI_ESYS;
	return PAPI_OK;
}

static int pv_init_component(int cidx)
{
	papi_vector_t *v = &_pmuvirt_vector;
	int ret;

	v->cmp_info.CmpIdx = cidx;
	v->cmp_info.num_native_events = PV_NR_PORTABLE;
	v->cmp_info.hardware_intr_sig = SIGRTMIN + 2;
	pv_fd = pmuvirt_user_open(1);
	if (pv_fd < 0) {
		snprintf(v->cmp_info.disabled_reason, PAPI_MAX_STR_LEN,
			 "cannot open " PMUVIRT_DEVICE ": %s (load pmuvirt.ko)", strerror(errno));
		v->cmp_info.disabled = PAPI_ECMP;
		return PAPI_ECMP;
	}
	/* Presets are defined in papi_events.csv under "CPU,pmuvirt". */
	ret = _papi_load_preset_table("pmuvirt", 0, cidx);
	if (ret != PAPI_OK) {
		snprintf(v->cmp_info.disabled_reason, PAPI_MAX_STR_LEN,
			 "cannot load the pmuvirt presets");
		v->cmp_info.disabled = ret;
		close(pv_fd);
		pv_fd = -1;
		return ret;
	}
	return PAPI_OK;
}

static int pv_shutdown_component(void)
{
	if (pv_fd >= 0)
		close(pv_fd);
	pv_fd = -1;
	return PAPI_OK;
}

static int pv_init_thread(hwd_context_t *hctx)
{
	struct pv_context *ctx = (struct pv_context *)hctx;

	memset(ctx, 0, sizeof(*ctx));
	ctx->u.fd = -1;
	return PAPI_OK;
}

static int pv_shutdown_thread(hwd_context_t *hctx)
{
	struct pv_context *ctx = (struct pv_context *)hctx;

	if (ctx->running) {
		pmuvirt_user_detach(&ctx->u, NULL);
		ctx->running = NULL;
	}
	return PAPI_OK;
}

static int pv_init_control_state(hwd_control_state_t *hctl)
{
	struct pv_control *c = (struct pv_control *)hctl;

	memset(c, 0, sizeof(*c));
	c->domain = _pmuvirt_vector.cmp_info.default_domain;
	return PAPI_OK;
}

static int pv_update_control_state(hwd_control_state_t *hctl, NativeInfo_t *native,
				   int count, hwd_context_t *hctx)
{
	struct pv_control *c = (struct pv_control *)hctl;
	struct pv_control old = *c;
	int i, ret;

	(void)hctx;
	if (count < 0 || count > PMUVIRT_MAX_COUNTERS)
		return PAPI_ECNFLCT;
	c->nr = count;
	for (i = 0; i < count; i++) {
		uint64_t ev;
		uint32_t raw;

		if (pv_code_event(native[i].ni_event, &ev, &raw) != PAPI_OK) {
			*c = old;
			return PAPI_ENOEVNT;
		}
		c->code[i] = native[i].ni_event;
		/* a counter keeps its threshold while it stays where it was */
		c->period[i] = (i < (int)old.nr && old.code[i] == c->code[i]) ? old.period[i] : 0;
		c->base[i] = 0;
		c->values[i] = 0;
		native[i].ni_position = i;
	}
	ret = pv_try(c);
	if (ret != PAPI_OK) {
		*c = old;
		return ret;
	}
	return PAPI_OK;
}

static int pv_start(hwd_context_t *hctx, hwd_control_state_t *hctl)
{
	struct pv_context *ctx = (struct pv_context *)hctx;
	struct pv_control *c = (struct pv_control *)hctl;
	struct pmuvirt_control ctl;
	unsigned int i;
	int ret;

	if (ctx->running)
		return PAPI_EISRUN;
	ret = pv_build(c, &ctl);
	if (ret != PAPI_OK)
		return ret;
	if (pmuvirt_user_attach(&ctx->u, pv_fd, &ctl, pv_attach_flags(c),
				_pmuvirt_vector.cmp_info.hardware_intr_sig))
		return pv_errno_to_papi(errno);
	for (i = 0; i < c->nr; i++)
		c->base[i] = c->last[i] = 0;
	ctx->running = c;
	return PAPI_OK;
}

static int pv_read_raw(struct pv_context *ctx, struct pv_control *c)
{
	int ret;

	if (ctx->running != c)
		return PAPI_OK;		/* stopped: the final values are in @last */
	/* the mapped record holds the thread's own counts, the ioctl adds the sum */
	if (c->inherit)
		ret = pmuvirt_user_read_ioctl(&ctx->u, c->last);
	else
		ret = pmuvirt_user_read(&ctx->u, c->last);
	return ret ? PAPI_ESYS : PAPI_OK;
}

static int pv_read(hwd_context_t *hctx, hwd_control_state_t *hctl, long long **events, int flags)
{
	struct pv_context *ctx = (struct pv_context *)hctx;
	struct pv_control *c = (struct pv_control *)hctl;
	unsigned int i;
	int ret;

	(void)flags;
	ret = pv_read_raw(ctx, c);
	if (ret != PAPI_OK)
		return ret;
	for (i = 0; i < c->nr; i++)
		c->values[i] = (long long)(c->last[i] - c->base[i]);
	*events = c->values;
	return PAPI_OK;
}

static int pv_stop(hwd_context_t *hctx, hwd_control_state_t *hctl)
{
	struct pv_context *ctx = (struct pv_context *)hctx;
	struct pv_control *c = (struct pv_control *)hctl;

	if (ctx->running != c)
		return PAPI_ENOTRUN;
	ctx->running = NULL;
	if (pmuvirt_user_detach(&ctx->u, c->last))
		return PAPI_ESYS;
	return PAPI_OK;
}

/* Counts start again from @from (from zero without it). */
static int pv_rebase(hwd_context_t *hctx, hwd_control_state_t *hctl, const long long *from)
{
	struct pv_context *ctx = (struct pv_context *)hctx;
	struct pv_control *c = (struct pv_control *)hctl;
	unsigned int i;
	int ret = pv_read_raw(ctx, c);

	if (ret != PAPI_OK)
		return ret;
	for (i = 0; i < c->nr; i++)
		c->base[i] = c->last[i] - (from ? (uint64_t)from[i] : 0);
	return PAPI_OK;
}

static int pv_reset(hwd_context_t *hctx, hwd_control_state_t *hctl)
{
	return pv_rebase(hctx, hctl, NULL);
}

static int pv_write(hwd_context_t *hctx, hwd_control_state_t *hctl, long long *from)
{
	return pv_rebase(hctx, hctl, from);
}

static int pv_set_domain(hwd_control_state_t *hctl, int domain)
{
	struct pv_control *c = (struct pv_control *)hctl;

	if (!(domain & (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)))
		return PAPI_EINVAL;
	c->domain = domain;
	return PAPI_OK;
}

/* PAPI_INHERIT on a stopped event set: refused if the module cannot sum. */
static int pv_set_inherit(struct pv_control *c, int inherit)
{
	bool old = c->inherit;

	c->inherit = inherit != PAPI_INHERIT_NONE;
	if (pv_try(c) != PAPI_OK) {
		c->inherit = old;
		return PAPI_ECMP;
	}
	return PAPI_OK;
}

static int pv_ctl(hwd_context_t *hctx, int code, _papi_int_option_t *option)
{
	(void)hctx;
	switch (code) {
	case PAPI_INHERIT:
		return pv_set_inherit((struct pv_control *)option->inherit.ESI->ctl_state,
				      option->inherit.inherit);
	case PAPI_DOMAIN:
		return pv_set_domain(option->domain.ESI->ctl_state, option->domain.domain);
	case PAPI_GRANUL:
		/* per thread only: the module counts the calling thread */
		return option->granularity.granularity == PAPI_GRN_THR ? PAPI_OK : PAPI_ECMP;
	case PAPI_MULTIPLEX:
	case PAPI_DEF_MPX_NS:
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		return PAPI_OK;		/* PAPI's software multiplexer */
	case PAPI_ATTACH:
	case PAPI_DETACH:
	case PAPI_CPU_ATTACH:
	default:
		return PAPI_ECMP;
	}
}

static int pv_set_overflow(EventSetInfo_t *ESI, int EventIndex, int threshold)
{
	struct pv_control *c = (struct pv_control *)ESI->ctl_state;
	int pos = ESI->EventInfoArray[EventIndex].pos[0];
	int sig = _pmuvirt_vector.cmp_info.hardware_intr_sig;
	unsigned int i;
	int ret;

	if (pos < 0 || pos >= (int)c->nr || threshold < 0)
		return PAPI_EINVAL;
	if (threshold && pv_is_tsc(c->code[pos]))
		return PAPI_ECMP;	/* the TSC cannot interrupt */
	if (!threshold && !c->period[pos])
		return PAPI_EINVAL;
	c->period[pos] = (uint64_t)threshold;
	ret = pv_try(c);
	if (ret != PAPI_OK) {
		c->period[pos] = 0;
		return ret;
	}
	for (i = 0; i < c->nr; i++)
		if (c->period[i])
			break;
	if (threshold)
		return _papi_hwi_start_signal(sig, 1, _pmuvirt_vector.cmp_info.CmpIdx);
	if (i == c->nr)
		return _papi_hwi_stop_signal(sig);
	return PAPI_OK;
}

static void pv_dispatch_timer(int signo, hwd_siginfo_t *info, void *uc)
{
	int cidx = _pmuvirt_vector.cmp_info.CmpIdx;
	ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
	_papi_hwi_context_t hw_context;
	struct pv_context *ctx;
	EventSetInfo_t *ESI;
	uint32_t mask = 0;
	int hw = 1;
	vptr_t address;

	(void)signo;
	if (!thread)
		return;
	ESI = thread->running_eventset[cidx];
	ctx = (struct pv_context *)thread->context[cidx];
	hw_context.si = info;
	hw_context.ucontext = (hwd_ucontext_t *)uc;
	address = GET_OVERFLOW_ADDRESS(hw_context);
	if (ESI && (ESI->overflow.flags & PAPI_OVERFLOW_FORCE_SW)) {
		_papi_hwi_dispatch_overflow_signal(&hw_context, address, NULL, 0, 0, &thread, cidx);
		return;
	}
	/* take the notifications and re-enable the signal, whoever gets them */
	if (!ctx || !ctx->running || pmuvirt_user_resume(&ctx->u, NULL, &mask) || !mask)
		return;
	if (!ESI || !ESI->overflow.flags)
		return;
	/* one call per counter, as PAPI's perf_event component signals each one */
	while (mask) {
		int bit = __builtin_ctz(mask);

		mask &= mask - 1;
		_papi_hwi_dispatch_overflow_signal(&hw_context, address, &hw, 1ull << bit, 0,
						   &thread, cidx);
	}
	ESI->state &= ~PAPI_PAUSED;
}

static int pv_ntv_enum_events(unsigned int *code, int modifier)
{
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		*code = 0;
		return PAPI_OK;
	case PAPI_ENUM_EVENTS:
		if (*code + 1 < PV_NR_PORTABLE) {
			(*code)++;
			return PAPI_OK;
		}
		return PAPI_ENOEVNT;
	default:
		return PAPI_EINVAL;
	}
}

static int pv_ntv_name_to_code(const char *name, unsigned int *code)
{
	unsigned long long raw;
	unsigned int i;
	char *end;

	for (i = 0; i < PV_NR_PORTABLE; i++) {
		if (!strcmp(name, pv_events[i].name)) {
			*code = i;
			return PAPI_OK;
		}
	}
	if ((name[0] != 'r' && name[0] != 'R') || !name[1])
		return PAPI_ENOEVNT;
	errno = 0;
	raw = strtoull(name + 1, &end, 16);
	if (errno || *end)
		return PAPI_ENOEVNT;
	pthread_mutex_lock(&raw_lock);
	for (i = 0; i < nr_raw && raw_codes[i] != raw; i++)
		;
	if (i == nr_raw) {
		if (nr_raw == PV_MAX_RAW) {
			pthread_mutex_unlock(&raw_lock);
			return PAPI_ENOMEM;
		}
		raw_codes[i] = raw;
		__atomic_store_n(&nr_raw, nr_raw + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&raw_lock);
	*code = PV_RAW_BASE + i;
	return PAPI_OK;
}

/* The name (@descr false) or the description of native event @code. */
static int pv_code_text(unsigned int code, char *buf, int len, bool descr)
{
	uint64_t ev;
	uint32_t raw;

	if (pv_code_event(code, &ev, &raw) != PAPI_OK)
		return PAPI_ENOEVNT;
	if (raw && descr)
		snprintf(buf, len, "Raw event code %#" PRIx64 " of the CPU", ev);
	else if (raw)
		snprintf(buf, len, "r%" PRIx64, ev);
	else
		snprintf(buf, len, "%s", descr ? pv_events[code].descr : pv_events[code].name);
	return PAPI_OK;
}

static int pv_ntv_code_to_name(unsigned int code, char *name, int len)
{
	return pv_code_text(code, name, len, false);
}

static int pv_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	return pv_code_text(code, descr, len, true);
}

static int pv_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	int ret = pv_ntv_code_to_name(code, info->symbol, sizeof(info->symbol));

	if (ret != PAPI_OK)
		return ret;
	pv_ntv_code_to_descr(code, info->long_descr, sizeof(info->long_descr));
	snprintf(info->short_descr, sizeof(info->short_descr), "%.*s",
		 (int)sizeof(info->short_descr) - 1, info->symbol);
	return PAPI_OK;
}

papi_vector_t _pmuvirt_vector = {
	.cmp_info = {
		.name = "pmuvirt",
		.short_name = "pmuvirt",
		.version = "1.0",
		.description = "pmuvirt.ko per-thread virtual counters",
		.num_cntrs = PMUVIRT_MAX_COUNTERS,
		.num_mpx_cntrs = PAPI_MAX_SW_MPX_EVENTS,
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR,
		.hardware_intr = 1,
		.kernel_multiplex = 0,
		.attach = 0,
		.cpu = 0,
		.inherit = 1,
		.fast_counter_read = 0,
	},
	.size = {
		.context = sizeof(struct pv_context),
		.control_state = sizeof(struct pv_control),
		.reg_value = sizeof(int),
		.reg_alloc = sizeof(int),
	},
	.init_component = pv_init_component,
	.shutdown_component = pv_shutdown_component,
	.init_thread = pv_init_thread,
	.shutdown_thread = pv_shutdown_thread,
	.init_control_state = pv_init_control_state,
	.update_control_state = pv_update_control_state,
	.start = pv_start,
	.stop = pv_stop,
	.read = pv_read,
	.reset = pv_reset,
	.write = pv_write,
	.ctl = pv_ctl,
	.set_domain = pv_set_domain,
	.set_overflow = pv_set_overflow,
	.dispatch_timer = pv_dispatch_timer,
	.ntv_enum_events = pv_ntv_enum_events,
	.ntv_name_to_code = pv_ntv_name_to_code,
	.ntv_code_to_name = pv_ntv_code_to_name,
	.ntv_code_to_descr = pv_ntv_code_to_descr,
	.ntv_code_to_info = pv_ntv_code_to_info,
};
