// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Fuzz the Linux ioctls' argument checks (src/abi/linux_ioctl.c) the way
 * src/glue/linux/pmuvirt_ioctl.c uses them (by the request's row), with the strict fake PMU as the
 * oracle.  One thread attaches, reads, resumes and detaches on one fake
 * CPU that it shares with another thread's context; the input is a
 * sequence of ioctls (any bytes) and steps (events, switches,
 * invalidation).
 *
 * Checked for every ioctl: the header check of the first fetch and the
 * check of the whole copy agree with each other and with the ABI (an
 * accepted argument has the right size and version, only flags of
 * PMUVIRT_ATTACH_FLAGS (SAMPLE_FILE only with REPORT and no signal, SUM
 * only with INHERIT), zero caps and reserved words, a signal of at most
 * 64); a refused argument changes nothing; an accepted attach is refused
 * or programmed exactly as pmuvirt_validate() says; and after every call
 * and every step the fake has refused no register access.
 *
 * Input: config byte, mode byte, then records: op (bits 0-1: 0 ioctl, else
 * a step); for an ioctl bits 2-3 the request (attach, read, detach,
 * resume), bit 4 sets a valid header, bit 5 takes the first fetch's header
 * words from the input separately (a caller that changes them between the
 * two copies), bit 6 keeps the control tame; then the argument bytes.
 */
#include "fuzz_rig.h"
#include <pmuvirt/linux.h>
#include "pmuvirt_abi_check.h"

#define MAX_RECORDS	16

enum req { REQ_ATTACH, REQ_READ, REQ_DETACH, REQ_RESUME };

struct thread {
	bool attached;
	unsigned int signo;
};

static bool attach_ok(const struct pmuvirt_attach *a)
{
	return a->size == sizeof(*a) && a->version == PMUVIRT_LINUX_VERSION &&
	       !(a->flags & ~PMUVIRT_ATTACH_FLAGS) && !a->caps &&
	       !(a->sample_format & ~PMUVIRT_SAMPLE_FMT_ALL) && a->chain_depth <= PMUVIRT_CHAIN_MAX &&
	       (!(a->flags & PMUVIRT_ATTACH_SAMPLE_FILE) ||
		((a->flags & PMUVIRT_ATTACH_REPORT) && !a->signo)) &&
	       (!(a->flags & PMUVIRT_ATTACH_SUM) || (a->flags & PMUVIRT_ATTACH_INHERIT)) &&
	       a->signo <= 64 &&
	       (!a->sample_pages || (a->sample_pages >= 2 && a->sample_pages <= 256 &&
				     !(a->sample_pages & (a->sample_pages - 1))));
}

/* ioc_attach() after get_arg(): the thread's context is r->a.  Returns the check's result. */
static int do_attach(struct rig *r, struct thread *t, struct pmuvirt_attach *a)
{
	struct pmuvirt_attach before = *a;
	struct pmuvirt_sample_format fmt;
	struct pmuvirt_error err;
	uint8_t slots[PMUVIRT_MAX_COUNTERS];
	int ret, v;

	/* get_arg(): the row's check, which is the struct's */
	ret = pmuvirt_linux_check_arg(_IOC_NR(PMUVIRT_IOC_ATTACH), a, sizeof(*a));
	if (ret != pmuvirt_linux_check_attach(a))
		abort();
	if ((ret == 0) != attach_ok(a) || (ret && ret != -EINVAL))
		abort();
	if (memcmp(a, &before, sizeof(*a)))
		abort();
	if (ret)
		return ret;
	v = pmuvirt_validate(&r->pmu, &a->control, PMUVIRT_MAX_COUNTERS, NULL, slots, &err);
	/* a ring the glue would make holds records of a format, several to a ring */
	if (!v && !pmuvirt_linux_check_sample_pages(a) && !pmuvirt_linux_sample_format(a, &fmt) &&
	    a->sample_pages) {
		uint32_t rs = pmuvirt_sample_record_size(fmt.format, fmt.nr_values, fmt.chain_depth);

		if (!rs || (a->sample_pages - 1) * 4096u / rs < 2)
			abort();
	}
	if (v || t->attached)
		return 0;	/* refused, or -EBUSY: nothing was allocated */
	if (pmuvirt_ctx_init(r->a, r->csize, &r->pmu))
		abort();
	if (pmuvirt_set_control(NULL, r->a, &a->control, &err))
		abort();	/* validated, so it must be accepted */
	t->attached = true;
	t->signo = a->signo;
	if (pmuvirt_switch(&r->pc, r->a))
		abort();
	return 0;
}

/*
 * counts_in() after get_arg(), then ioc_read(), ioc_detach() or ioc_resume().
 * Returns the check's result.
 */
static int do_counts(struct rig *r, struct thread *t, enum req req, struct pmuvirt_counts *c)
{
	struct pmuvirt_counts before = *c;
	uint64_t v[PMUVIRT_MAX_COUNTERS];
	int ret;

	static const unsigned long reqs[] = {
		[REQ_READ] = PMUVIRT_IOC_READ,
		[REQ_DETACH] = PMUVIRT_IOC_DETACH,
		[REQ_RESUME] = PMUVIRT_IOC_RESUME,
	};

	/* get_arg(): the row's check, which is the struct's */
	ret = pmuvirt_linux_check_arg(_IOC_NR(reqs[req]), c, sizeof(*c));
	if (ret != pmuvirt_linux_check_counts(c))
		abort();
	if ((ret == 0) != (c->size == sizeof(*c) && c->version == PMUVIRT_LINUX_VERSION &&
			   !c->reserved))
		abort();
	if (memcmp(c, &before, sizeof(*c)))
		abort();
	if (ret || !t->attached)
		return ret;	/* -EINVAL, or -ESRCH */
	switch (req) {
	case REQ_RESUME: {
		uint32_t counts[PMUVIRT_MAX_COUNTERS];

		pmuvirt_take_overflows(r->a, counts);
		break;
	}
	case REQ_DETACH:
		if (r->pc.running == r->a && pmuvirt_switch(&r->pc, NULL))
			abort();
		if (pmuvirt_read(r->a, v))
			abort();
		pmuvirt_ctx_release(r->a);
		t->attached = false;
		break;
	default:
		if (pmuvirt_read(r->a, v))
			abort();
		break;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct thread t = { false, 0 };
	uint8_t *snap;
	struct rig r;
	uint8_t sel, mode;
	unsigned int k;

	take(&data, &size, &sel, 1);
	take(&data, &size, &mode, 1);
	rig_init(&r, sel);
	snap = malloc(r.csize);
	if (!snap)
		abort();

	for (k = 0; k < MAX_RECORDS && size; k++) {
		union {
			struct pmuvirt_attach a;
			struct pmuvirt_counts c;
		} arg;
		enum req req;
		uint32_t hdr[2];
		size_t asize;
		uint8_t op, b;
		int ret;

		take(&data, &size, &op, 1);
		if (op & 3) {
			take(&data, &size, &b, 1);
			/* a detached thread's context is not switched in */
			if (!t.attached && ((op >> 2) & 7) == 0)
				op |= 2 << 2;
			rig_step(&r, op, b);
			continue;
		}
		req = (enum req)((op >> 2) & 3);
		asize = req == REQ_ATTACH ? sizeof(arg.a) : sizeof(arg.c);
		if (op & 0x20)
			take(&data, &size, hdr, sizeof(hdr));
		take(&data, &size, &arg, asize);
		if (op & 0x10) {
			arg.a.size = (uint32_t)asize;	/* both structs start with size, version */
			arg.a.version = PMUVIRT_LINUX_VERSION;
		}
		if (req == REQ_ATTACH && (op & 0x40)) {
			arg.a.sample_format &= PMUVIRT_SAMPLE_FMT_ALL;
			arg.a.chain_depth %= PMUVIRT_CHAIN_MAX + 1;
			arg.a.caps = 0;
			arg.a.signo %= 80;
			rig_tame(&arg.a.control, false);
		}
		if (!(op & 0x20)) {
			hdr[0] = arg.a.size;
			hdr[1] = arg.a.version;
		}
		memcpy(snap, r.a, r.csize);
		/* get_arg(): the first fetch, header words only */
		ret = pmuvirt_linux_check_hdr(hdr, asize);
		if ((ret == 0) != (hdr[0] == asize && hdr[1] == PMUVIRT_LINUX_VERSION))
			abort();
		/* the second fetch is arg, header included */
		if (!ret)
			ret = req == REQ_ATTACH ? do_attach(&r, &t, &arg.a) :
						  do_counts(&r, &t, req, &arg.c);
		if (ret && memcmp(snap, r.a, r.csize))
			abort();	/* a refused request changes nothing */
		rig_check(&r);
	}
	if (t.attached && r.pc.running == r.a)
		pmuvirt_switch(&r.pc, NULL);
	rig_free(&r);
	free(snap);
	return 0;
}
