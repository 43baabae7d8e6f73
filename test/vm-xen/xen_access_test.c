/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Who may read and set which VCPU's counters (VCPU_READ, VCPU_SET_CONTROL),
 * under Xen with pmuvirt, booted by test/vm-xen/run.sh with two domUs.
 *
 * "xen_access_test dom0 A B", in dom0 while domUs A (PV) and B (two
 * VCPUs each) are created and still paused: dom0 manages them, so it
 * reads their VCPUs (nothing counted yet), gives VCPU 1 of A a TSC control
 * and finds it there, still at 0 since A never ran, and takes it away
 * again; a malformed control changes nothing; a VCPU or domain that does
 * not exist, a domid past 16 bits and a reserved field are refused.  On
 * the way it plays the toolstack of a save and a restore: A's VCPU 1
 * hands its counters out as words of its MSR list (XEN_DOMCTL_get_vcpu_msrs)
 * and takes them back (set_vcpu_msrs), and refuses them corrupted, cut
 * short, or with a control a PV domain's VCPU cannot have been given.
 *
 * "xen_access_test domu PEER", in a domU: it reads its own calling VCPU,
 * and is refused its other VCPU (-EDEADLK: it would pause itself), any
 * VCPU of dom0 or of domU PEER, and every SET_POLICY, its own included
 * (-EPERM), before anything of them is read.  With "profiled" (dom0 runs a
 * profiling session): it may not start one of its own, nor stop, map,
 * give back or free dom0's (-EPERM).
 *
 * Prints PMUVIRT-XEN-ACCESS-* markers.
 */
#include "privcmd.h"
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

static void expect(const char *what, long got, long want)
{
	expect_case("PMUVIRT-XEN-ACCESS-CASE", 52, what, got, want, 0);
}

static long vcpu_read(uint32_t domid, uint32_t vcpu, struct pmuvirt_xen_vcpu_read *op)
{
	memset(op, 0, sizeof(*op));
	hdr(&op->hdr, sizeof(*op));
	op->domid = domid;
	op->vcpu = vcpu;
	op->nr_counters = 0xdead;
	return hc(PMUVIRT_XEN_VCPU_READ, op);
}

/* One TSC counter, or no counter with @tsc false; @version as given. */
static long vcpu_set(uint32_t domid, uint32_t vcpu, int tsc, uint32_t version)
{
	struct pmuvirt_xen_vcpu_set_control op;

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	op.domid = domid;
	op.vcpu = vcpu;
	op.ctl.version = version;
	if (tsc) {
		op.ctl.nr_counters = 1;
		op.ctl.counter[0].event = PMUVIRT_EV_TSC;
	}
	return hc(PMUVIRT_XEN_VCPU_SET_CONTROL, &op);
}

/* XEN_DOMCTL_get_vcpu_msrs (@n entries at @m, NULL: the most there can be) or set_vcpu_msrs. */
static long vcpu_msrs(uint32_t cmd, uint32_t domid, uint32_t vcpu, struct domctl_vcpu_msr *m,
		      uint32_t *n)
{
	struct domctl d;
	long rc;

	domctl_init(&d, cmd, (uint16_t)domid);
	d.u.vcpu_msrs.vcpu = vcpu;
	d.u.vcpu_msrs.msr_count = *n;
	d.u.vcpu_msrs.msrs = (uint64_t)(uintptr_t)m;
	rc = xen_hypercall(HYPERVISOR_DOMCTL, (uint64_t)(uintptr_t)&d, 0);
	*n = d.u.vcpu_msrs.msr_count;
	return rc;
}

/* FNV-1a of the blob up to its check (abi.h's struct pmuvirt_saved_ctx). */
static uint32_t blob_check(const struct pmuvirt_saved_ctx *s)
{
	const uint8_t *b = (const uint8_t *)s, *end = b + offsetof(struct pmuvirt_saved_ctx, check);
	uint32_t h = 0x811c9dc5u;

	while (b < end) {
		h ^= *b++;
		h *= 0x01000193u;
	}
	return h;
}

#define MAX_MSRS	256

/*
 * The save stream of PV domU @a's VCPU 1, which holds one TSC counter:
 * out as PMUVIRT_XEN_SAVE_MSRS words, back in, refused when wrong.
 */
static void save_stream(uint32_t a)
{
	static struct domctl_vcpu_msr m[MAX_MSRS], bad[MAX_MSRS];
	struct pmuvirt_saved_ctx blob = { 0 };
	struct pmuvirt_xen_vcpu_read r;
	uint32_t n = 0, i, first = MAX_MSRS, words = 0;

	/* Xen writes the list: its pages must be there, and writable */
	memset(m, 0, sizeof(m));
	expect("save: room the MSR list needs", vcpu_msrs(DOMCTL_GET_VCPU_MSRS, a, 1, NULL, &n), 0);
	expect("  pmuvirt's words included", n >= PMUVIRT_XEN_SAVE_MSRS && n <= MAX_MSRS, 1);
	n = MAX_MSRS;
	expect("save: the MSR list", vcpu_msrs(DOMCTL_GET_VCPU_MSRS, a, 1, m, &n), 0);
	for (i = 0; i < n && i < MAX_MSRS; i++) {
		if (m[i].index - PMUVIRT_XEN_SAVE_MSR >= PMUVIRT_XEN_SAVE_MSRS)
			continue;
		if (first == MAX_MSRS)
			first = i;
		if (m[i].index == PMUVIRT_XEN_SAVE_MSR + words)
			memcpy((char *)&blob + 8 * words++, &m[i].value, 8);
	}
	expect("  every word, in order", words, PMUVIRT_XEN_SAVE_MSRS);
	if (words != PMUVIRT_XEN_SAVE_MSRS)
		return;
	expect("  a saved context", blob.magic == PMUVIRT_SAVED_MAGIC && blob.check == blob_check(&blob),
	       1);
	expect("  of one TSC counter", blob.ctl.nr_counters == 1 &&
	       blob.ctl.counter[0].event == PMUVIRT_EV_TSC, 1);

	/* a refused list comes back with its count cut: give each call its own */
	memcpy(bad, m, sizeof(bad));
	bad[first + 4].value ^= 1;	/* a count */
	i = n;
	expect("restore: a corrupted word", vcpu_msrs(DOMCTL_SET_VCPU_MSRS, a, 1, bad, &i), -EINVAL);
	expect("  the VCPU counts nothing", vcpu_read(a, 1, &r) || r.nr_counters, 0);
	i = n - 9;
	expect("restore: words missing", vcpu_msrs(DOMCTL_SET_VCPU_MSRS, a, 1, m, &i), -EINVAL);
	/* a PV VCPU's kernel mode is its user mode: Xen never saves KERNEL for it */
	blob.ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	blob.ctl.counter[0].flags = PMUVIRT_CTR_KERNEL;
	blob.check = blob_check(&blob);
	memcpy(bad, m, sizeof(bad));
	for (i = 0; i < PMUVIRT_XEN_SAVE_MSRS; i++)
		memcpy(&bad[first + i].value, (char *)&blob + 8 * i, 8);
	i = n;
	expect("restore: a kernel-mode counter for PV", vcpu_msrs(DOMCTL_SET_VCPU_MSRS, a, 1, bad, &i),
	       -EINVAL);
	i = n;
	expect("restore: the words as saved", vcpu_msrs(DOMCTL_SET_VCPU_MSRS, a, 1, m, &i), 0);
	expect("  read it back", vcpu_read(a, 1, &r), 0);
	expect("  one counter", r.nr_counters, 1);
}

static long set_policy(uint32_t domid)
{
	struct pmuvirt_xen_set_policy op;

	policy_op(&op, domid, PMUVIRT_POLICY_DENY, 0);
	return hc(PMUVIRT_XEN_SET_POLICY, &op);
}

static void dom0(uint32_t a, uint32_t b)
{
	struct pmuvirt_xen_vcpu_read r;
	int vcpu;

	expect("read domU A VCPU 0", vcpu_read(a, 0, &r), 0);
	expect("  nothing counted", r.nr_counters, 0);
	expect("read domU B VCPU 1", vcpu_read(b, 1, &r), 0);
	expect("  nothing counted", r.nr_counters, 0);
	expect("set a TSC control on domU A VCPU 1", vcpu_set(a, 1, 1, PMUVIRT_ABI_VERSION), 0);
	expect("read it back", vcpu_read(a, 1, &r), 0);
	expect("  one counter", r.nr_counters, 1);
	expect("  at 0: the VCPU never ran", (long)r.value[0], 0);
	save_stream(a);
	expect("domU A VCPU 0 untouched", vcpu_read(a, 0, &r), 0);
	expect("  nothing counted", r.nr_counters, 0);
	expect("a malformed control (version 9)", vcpu_set(a, 1, 1, 9), -EINVAL);
	expect("read after the refusal", vcpu_read(a, 1, &r), 0);
	expect("  still its one counter", r.nr_counters, 1);
	expect("take the control away", vcpu_set(a, 1, 0, PMUVIRT_ABI_VERSION), 0);
	expect("read after that", vcpu_read(a, 1, &r), 0);
	expect("  nothing counted", r.nr_counters, 0);
	expect("VCPU 2 of a two-VCPU domU", vcpu_read(b, 2, &r), -ENOENT);
	expect("VCPU 2^31", vcpu_set(b, 0x80000000u, 1, PMUVIRT_ABI_VERSION), -ENOENT);
	expect("no such domain (1000)", vcpu_read(1000, 0, &r), -ESRCH);
	expect("a domid past 16 bits", vcpu_read(0x10000 + a, 0, &r), -EINVAL);
	vcpu_read(a, 0, &r);
	r.reserved = 1;
	expect("a reserved field", hc(PMUVIRT_XEN_VCPU_READ, &r), -EINVAL);
	expect("pin to dom0 CPU 0", pin_to_vcpu(0, &vcpu), 0);
	expect("its own calling VCPU", vcpu_read(PMUVIRT_XEN_DOMID_SELF, vcpu, &r), 0);
	expect("itself by number", vcpu_read(0, vcpu, &r), 0);
	printf("PMUVIRT-XEN-ACCESS-DOM0-%s\n", failures ? "FAILED" : "PASSED");
}

static long prof_simple(unsigned int cmd)
{
	struct pmuvirt_xen_prof_stop op;

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	return hc(cmd, &op);
}

/* This domain is PV (Linux's /sys/hypervisor/guest_type). */
static int is_pv(void)
{
	char t[8] = "";
	FILE *f = fopen("/sys/hypervisor/guest_type", "r");

	if (f) {
		if (!fgets(t, sizeof(t), f))
			t[0] = 0;
		fclose(f);
	}
	return !strncmp(t, "PV\n", 3);
}

/* dom0's session runs: a domU may do nothing with it, nor start one. */
static void domu_prof(void)
{
	struct pmuvirt_xen_prof_start st;
	struct pmuvirt_xen_prof_map map;
	struct pmuvirt_xen_prof_tail tail;
	uint32_t tails[8] = { 0 };

	memset(&st, 0, sizeof(st));
	hdr(&st.hdr, sizeof(st));
	st.nr_domains = 1;
	st.domains[0] = 0;
	st.ring_pages = 2;
	st.high_water_pct = 50;
	st.ctl.version = PMUVIRT_ABI_VERSION;
	st.ctl.nr_counters = 1;
	st.ctl.counter[0].event = PMUVIRT_EV_CYCLES;
	st.ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_SAMPLE;
	st.ctl.counter[0].period = 1000000;
	expect("PROF_START of its own (profiling dom0)", hc(PMUVIRT_XEN_PROF_START, &st), -EPERM);
	expect("PROF_STOP of dom0's session", prof_simple(PMUVIRT_XEN_PROF_STOP), -EPERM);
	memset(&map, 0, sizeof(map));
	hdr(&map.hdr, sizeof(map));
	expect("PROF_MAP of dom0's session", hc(PMUVIRT_XEN_PROF_MAP, &map), -EPERM);
	memset(&tail, 0, sizeof(tail));
	hdr(&tail.hdr, sizeof(tail));
	tail.nr_rings = 8;
	tail.tails = (uint64_t)(uintptr_t)tails;
	expect("PROF_TAIL of dom0's session", hc(PMUVIRT_XEN_PROF_TAIL, &tail), -EPERM);
	expect("PROF_RELEASE of dom0's session", prof_simple(PMUVIRT_XEN_PROF_RELEASE), -EPERM);
	/* a PV domain never has rings placed: the command is not its */
	expect("PROF_UNMAP of dom0's session", prof_simple(PMUVIRT_XEN_PROF_UNMAP),
	       is_pv() ? -EOPNOTSUPP : -EPERM);
}

static void domu(uint32_t peer, int profiled)
{
	struct pmuvirt_xen_vcpu_read r;
	int vcpu;

	expect("pin to CPU 0", pin_to_vcpu(0, &vcpu), 0);
	expect("read its own calling VCPU", vcpu_read(PMUVIRT_XEN_DOMID_SELF, vcpu, &r), 0);
	expect("set its own calling VCPU (no counter)",
	       vcpu_set(PMUVIRT_XEN_DOMID_SELF, vcpu, 0, PMUVIRT_ABI_VERSION), 0);
	expect("its other VCPU", vcpu_read(PMUVIRT_XEN_DOMID_SELF, !vcpu, &r), -EDEADLK);
	r.nr_counters = 0xdead;
	expect("read dom0 VCPU 0", vcpu_read(0, 0, &r), -EPERM);
	expect("  nothing read", r.nr_counters, 0xdead);
	expect("set dom0 VCPU 0", vcpu_set(0, 0, 1, PMUVIRT_ABI_VERSION), -EPERM);
	expect("read the other domU's VCPU 0", vcpu_read(peer, 0, &r), -EPERM);
	expect("  nothing read", r.nr_counters, 0xdead);
	expect("set the other domU's VCPU 1", vcpu_set(peer, 1, 1, PMUVIRT_ABI_VERSION), -EPERM);
	expect("SET_POLICY of dom0", set_policy(0), -EPERM);
	expect("SET_POLICY of the other domU", set_policy(peer), -EPERM);
	expect("SET_POLICY of its own domain", set_policy(PMUVIRT_XEN_DOMID_SELF), -EPERM);
	if (profiled)
		domu_prof();
	printf("PMUVIRT-XEN-ACCESS-DOMU-%s\n", failures ? "FAILED" : "PASSED");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (open_privcmd() < 0) {
		printf("PMUVIRT-XEN-ACCESS-FAIL no privcmd: %s\n", strerror(errno));
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "dom0")) {
		dom0((uint32_t)strtoul(argv[2], NULL, 0), (uint32_t)strtoul(argv[3], NULL, 0));
	} else if ((argc == 3 || (argc == 4 && !strcmp(argv[3], "profiled"))) &&
		   !strcmp(argv[1], "domu")) {
		domu((uint32_t)strtoul(argv[2], NULL, 0), argc == 4);
	} else {
		fprintf(stderr, "usage: xen_access_test dom0 DOMID_A DOMID_B | domu PEER [profiled]\n");
		return 2;
	}
	return failures ? 1 : 0;
}
