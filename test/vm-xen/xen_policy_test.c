/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Runs in dom0 under Xen with pmuvirt.
 *
 * Default: event policies.  dom0 gives itself policies through pmuvirt's
 * SET_POLICY and its controls get -EPERM for the events a policy does not
 * permit, portable events and raw codes (matched with a mask) alike; a
 * VCPU whose running control a new policy forbids loses it (the calling
 * VCPU at once, the other one at its next switch in); malformed policies
 * and unknown domains are refused.  It leaves dom0 with no restriction
 * and no counters.  (The PMU here is the TSC alone: a raw code the policy
 * permits then fails on the PMU, with -ENODEV, not -EPERM.)
 *
 * Xen's xenoprof asks Xen's PMU owner arbiter for the PMU at
 * XENOPROF_get_buffer: while pmuvirt holds it, -EBUSY.
 *
 * "xen_policy_test refused", in a boot where pmuvirt refused to start
 * (vpmu=1, watchdog): every command answers -EBUSY, and xenoprof is not
 * refused the PMU.
 *
 * Prints PMUVIRT-XEN-POLICY-* / PMUVIRT-XEN-REFUSED-* markers.
 */
#include "privcmd.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define EV(e)	(1u << PMUVIRT_EV_##e)

static void expect(const char *what, long got, long want)
{
	expect_case("PMUVIRT-XEN-POLICY-CASE", 48, what, got, want, 0);
}

static void add_raw(struct pmuvirt_xen_set_policy *op, uint64_t match, uint64_t mask,
		    uint32_t flags)
{
	struct pmuvirt_policy_raw *r = &op->policy.raw[op->policy.nr_raw++];

	r->match = match;
	r->mask = mask;
	r->flags = flags;
}

/* A raw code for control(). */
#define RAW(code)	((code) | (1ull << 63))

/*
 * SET_CONTROL on the calling VCPU: counter 0 @ev0, and @ev1 if nonzero;
 * RAW() ones are raw codes, the others portable events.
 */
static long control(uint64_t ev0, uint64_t ev1, int32_t *err_counter)
{
	struct pmuvirt_xen_set_control op;
	uint64_t ev[2] = { ev0, ev1 };
	unsigned int i;
	long rc;

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	op.ctl.version = PMUVIRT_ABI_VERSION;
	for (i = 0; i < 2 && ev[i]; i++) {
		struct pmuvirt_counter_ctl *c = &op.ctl.counter[op.ctl.nr_counters++];

		c->event = ev[i] & ~(1ull << 63);
		if (ev[i] >> 63)
			c->flags = PMUVIRT_CTR_RAW | PMUVIRT_CTR_USER;
		else if (ev[i] != PMUVIRT_EV_TSC)
			c->flags = PMUVIRT_CTR_USER;
	}
	rc = hc(PMUVIRT_XEN_SET_CONTROL, &op);
	if (err_counter)
		*err_counter = op.err_counter;
	return rc;
}

/* Counters of the calling VCPU's control, or a negative errno. */
static long nr_counters(void)
{
	struct pmuvirt_xen_read op;
	long rc;

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	rc = hc(PMUVIRT_XEN_READ, &op);
	return rc ? rc : (long)op.nr_counters;
}

/* The thread on VCPU 1. */
static pthread_barrier_t step;
static long vcpu1_before, vcpu1_after, vcpu1_rc;

static void *vcpu1(void *arg)
{
	int vcpu;

	(void)arg;
	vcpu1_rc = pin_to_vcpu(1, &vcpu);
	if (!vcpu1_rc && vcpu != 1)
		vcpu1_rc = -1;
	if (!vcpu1_rc)
		vcpu1_rc = control(PMUVIRT_EV_TSC, 0, NULL);
	vcpu1_before = nr_counters();
	pthread_barrier_wait(&step);	/* VCPU 0 sets the policy */
	pthread_barrier_wait(&step);
	usleep(50000);	/* VCPU 1 blocks: Xen switches it out, then in */
	vcpu1_after = nr_counters();
	control(0, 0, NULL);
	return NULL;
}

static int policies(void)
{
	struct pmuvirt_xen_set_policy op;
	pthread_t tid;
	int32_t ec;
	int vcpu;

	if (pin_to_vcpu(0, &vcpu) || vcpu != 0) {
		printf("PMUVIRT-XEN-POLICY-FAIL cannot run on VCPU 0\n");
		return 1;
	}
	/* malformed: -EINVAL, unknown domain: -ESRCH; nothing changes */
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 0);
	op.policy.version = 2;
	expect("policy: version 2", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, 2, 0);
	expect("policy: action 2", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, EV(NONE));
	expect("policy: event bit 0", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 1u << PMUVIRT_EV_NR);
	expect("policy: event past the last", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 0);
	op.policy.nr_raw = PMUVIRT_POLICY_MAX_RAW + 1;
	expect("policy: 33 raw entries", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 0);
	add_raw(&op, 0x1c0, 0xff, 0);
	expect("policy: raw match outside its mask", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 0);
	add_raw(&op, 0xc0, 0xff, 4);
	expect("policy: raw entry flag 4", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 0);
	op.reserved = 1;
	expect("policy: reserved field", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, 0);
	op.hdr.size -= 8;
	expect("policy: short size", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, 0x10000, PMUVIRT_POLICY_ALLOW, 0);
	expect("policy: domid past 16 bits", hc(PMUVIRT_XEN_SET_POLICY, &op), -EINVAL);
	policy_op(&op, 31999, PMUVIRT_POLICY_ALLOW, 0);
	expect("policy: no such domain", hc(PMUVIRT_XEN_SET_POLICY, &op), -ESRCH);
	expect("no policy yet: TSC control", control(PMUVIRT_EV_TSC, 0, NULL), 0);

	/* allow instructions only: the TSC and raw codes are refused */
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, EV(INSTRUCTIONS));
	expect("policy: allow instructions (self)", hc(PMUVIRT_XEN_SET_POLICY, &op), 0);
	expect("own running TSC control dropped at once", nr_counters(), 0);
	expect("TSC not permitted", control(PMUVIRT_EV_TSC, 0, &ec), -EPERM);
	expect("  refused counter", ec, 0);
	expect("raw 0xc0 not permitted", control(RAW(0xc0), 0, NULL), -EPERM);
	expect("instructions permitted, PMU has none", control(PMUVIRT_EV_INSTRUCTIONS, 0, NULL),
	       -ENODEV);

	/* allow the TSC and raw event 0xc0 with any unit mask but 0x01 */
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_ALLOW, EV(TSC));
	add_raw(&op, 0xc0, 0xff, 0);
	add_raw(&op, 0x01c0, 0xffff, PMUVIRT_POLICY_EXCLUDE);
	expect("policy: allow TSC, raw 0xc0/0xff but 0x01c0", hc(PMUVIRT_XEN_SET_POLICY, &op), 0);
	expect("TSC permitted", control(PMUVIRT_EV_TSC, 0, NULL), 0);
	expect("raw 0x02c0 permitted, PMU has no counter", control(RAW(0x02c0), 0, NULL), -ENODEV);
	expect("raw 0x01c0 excluded", control(RAW(0x01c0), 0, NULL), -EPERM);
	expect("raw 0xc4 not listed", control(RAW(0xc4), 0, NULL), -EPERM);
	expect("TSC + raw 0x01c0", control(PMUVIRT_EV_TSC, RAW(0x01c0), &ec), -EPERM);
	expect("  refused counter", ec, 1);
	expect("refused controls left the TSC control", nr_counters(), 1);

	/* the same list denied: the TSC goes, on both VCPUs */
	pthread_barrier_init(&step, NULL, 2);
	pthread_create(&tid, NULL, vcpu1, NULL);
	pthread_barrier_wait(&step);
	op.policy.action = PMUVIRT_POLICY_DENY;
	expect("policy: deny the same list", hc(PMUVIRT_XEN_SET_POLICY, &op), 0);
	expect("own TSC control dropped at once", nr_counters(), 0);
	expect("raw 0xc4 permitted now, PMU has no counter", control(RAW(0xc4), 0, NULL),
	       -ENODEV);
	pthread_barrier_wait(&step);
	pthread_join(tid, NULL);
	expect("VCPU 1: TSC control before", vcpu1_rc ? vcpu1_rc : vcpu1_before, 1);
	expect("VCPU 1: dropped at its next switch in", vcpu1_after, 0);

	/* no restriction: DENY with nothing listed */
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_DENY, 0);
	expect("policy: none", hc(PMUVIRT_XEN_SET_POLICY, &op), 0);
	expect("TSC permitted again", control(PMUVIRT_EV_TSC, 0, NULL), 0);
	expect("empty control", control(0, 0, NULL), 0);
	return failures;
}

/*
 * Xen's xenoprof (hypercall 31): XENOPROF_get_buffer asks Xen's PMU owner
 * arbiter for the PMU first, for any caller.  struct xenoprof_get_buffer
 * of Xen's public/xenoprof.h: max_samples, nbuf, bufsize, buf_gmaddr.
 */
#define XEN_HYPERCALL_XENOPROF_OP	31
#define XENOPROF_GET_BUFFER		14

static long xenoprof_get_buffer(void)
{
	struct {
		int32_t max_samples;
		int32_t nbuf;
		int32_t bufsize;
		uint64_t buf_gmaddr;
	} gb = { .max_samples = 16 };

	return xen_hypercall(XEN_HYPERCALL_XENOPROF_OP, XENOPROF_GET_BUFFER,
			     (uint64_t)(uintptr_t)&gb);
}

/* pmuvirt refused to start: every command gets -EBUSY. */
static int refused(void)
{
	struct pmuvirt_xen_set_policy op;
	struct pmuvirt_xen_query q;
	long ret;

	memset(&q, 0, sizeof(q));
	hdr(&q.hdr, sizeof(q));
	expect("refused: QUERY", hc(PMUVIRT_XEN_QUERY, &q), -EBUSY);
	expect("refused: SET_CONTROL", control(PMUVIRT_EV_TSC, 0, NULL), -EBUSY);
	expect("refused: READ", nr_counters(), -EBUSY);
	policy_op(&op, PMUVIRT_XEN_DOMID_SELF, PMUVIRT_POLICY_DENY, 0);
	expect("refused: SET_POLICY", hc(PMUVIRT_XEN_SET_POLICY, &op), -EBUSY);
	expect("refused: unknown command", hc(99, &q), -EOPNOTSUPP);
	/* pmuvirt does not hold the PMU: xenoprof's arbiter does not refuse it */
	ret = xenoprof_get_buffer();
	printf("PMUVIRT-XEN-XENOPROF get_buffer without pmuvirt: %ld\n", ret);
	if (ret == -EBUSY) {
		printf("PMUVIRT-XEN-POLICY-FAIL xenoprof refused although pmuvirt did not start\n");
		failures++;
	}
	printf("PMUVIRT-XEN-REFUSED-%s\n", failures ? "FAILED" : "OK");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	mlockall(MCL_CURRENT | MCL_FUTURE);
	if (open_privcmd() < 0) {
		printf("PMUVIRT-XEN-POLICY-FAIL no privcmd: %s\n", strerror(errno));
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "refused"))
		return refused();
	policies();
	/* pmuvirt holds the PMU: xenoprof cannot take it */
	expect("xenoprof get_buffer while pmuvirt runs", xenoprof_get_buffer(), -EBUSY);
	printf("PMUVIRT-XEN-POLICY-%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}
