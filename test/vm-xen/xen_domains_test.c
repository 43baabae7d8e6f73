/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Runs in dom0 under Xen with pmuvirt: creates and destroys PV domains
 * through the domctl hypercall (no toolstack needed: a domain without a
 * kernel is enough) and checks that pmuvirt's per-domain records and
 * per-VCPU contexts go with them.  Each domain of NR_VCPUS VCPUs gets
 * shared record pages from Xen's heap when created; if destruction did not
 * free them, Xen's free memory (XEN_SYSCTL_physinfo) would shrink by at
 * least a page per domain.
 *
 * The domctl and sysctl layouts below are those of Xen 4.17
 * (xen/include/public/domctl.h, sysctl.h; interface version 0x15).
 *
 * The first domain also gets an event policy from dom0 (pmuvirt's
 * SET_POLICY names another domain); once it is gone the same call finds
 * no domain.
 *
 * Prints PMUVIRT-XEN-DOMAINS-* markers; the boot script judges by them.
 */
#include "privcmd.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HYPERVISOR_SYSCTL	35
#define SYSCTL_PHYSINFO		3

#define ROUNDS		40
#define NR_VCPUS	12	/* two record pages per domain (10 records a page) */
#define SLACK_PAGES	16	/* Xen's own allocator may keep a few pages */

struct physinfo {
	uint32_t threads_per_core, cores_per_socket, nr_cpus, max_cpu_id;
	uint32_t nr_nodes, max_node_id, cpu_khz, capabilities, arch_capabilities, pad;
	uint64_t total_pages, free_pages, scrub_pages, outstanding_pages, max_mfn;
	uint32_t hw_cap[8];
};

struct sysctl {
	uint32_t cmd;
	uint32_t interface_version;
	union {
		struct physinfo physinfo;
		uint8_t pad[128];
	} u;
};

static long xen_op(unsigned int op, void *arg)
{
	return xen_hypercall(op, (uint64_t)(uintptr_t)arg, 0);
}

static long free_pages(uint64_t *pages)
{
	struct sysctl s;
	long rc;

	memset(&s, 0, sizeof(s));
	s.cmd = SYSCTL_PHYSINFO;
	s.interface_version = DOMCTL_INTERFACE;	/* the same number for sysctls */
	rc = xen_op(HYPERVISOR_SYSCTL, &s);
	/* pages being scrubbed are free too, just not yet zeroed */
	*pages = s.u.physinfo.free_pages + s.u.physinfo.scrub_pages;
	return rc;
}

static long create(uint16_t *domid)
{
	struct domctl d;
	long rc;

	domctl_init(&d, DOMCTL_CREATEDOMAIN, 0);
	d.u.create.max_vcpus = NR_VCPUS;
	d.u.create.max_evtchn_port = 1023;
	d.u.create.max_grant_frames = -1;
	d.u.create.max_maptrack_frames = -1;
	d.u.create.grant_opts = 1;	/* grant table version 1 */
	rc = xen_op(HYPERVISOR_DOMCTL, &d);
	*domid = d.domain;
	return rc;
}

static long destroy(uint16_t domid)
{
	struct domctl d;

	domctl_init(&d, DOMCTL_DESTROYDOMAIN, domid);
	return xen_op(HYPERVISOR_DOMCTL, &d);
}

/* pmuvirt's SET_POLICY on @domid: the "ipc" policy. */
static long set_policy(uint32_t domid)
{
	struct pmuvirt_xen_set_policy op;

	policy_op(&op, domid, PMUVIRT_POLICY_ALLOW, (1u << PMUVIRT_EV_INSTRUCTIONS) |
		  (1u << PMUVIRT_EV_CYCLES) | (1u << PMUVIRT_EV_TSC));
	return hc(PMUVIRT_XEN_SET_POLICY, &op);
}

/* Free memory once destruction (an RCU callback in Xen) has settled. */
static long settled_free_pages(uint64_t *pages)
{
	uint64_t last = 0;
	long rc = 0;
	int i;

	for (i = 0; i < 20; i++) {
		usleep(100000);
		rc = free_pages(pages);
		if (rc || (i && *pages == last))
			break;
		last = *pages;
	}
	return rc;
}

int main(void)
{
	uint64_t before, after, during = 0;
	uint16_t domid = 0;
	long rc;
	int i, bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mlockall(MCL_CURRENT | MCL_FUTURE);
	if (open_privcmd() < 0) {
		printf("PMUVIRT-XEN-DOMAINS-FAIL no privcmd: %s\n", strerror(errno));
		return 1;
	}
	/* one round first, so that Xen's caches reach their steady size */
	rc = create(&domid);
	if (!rc) {
		long prc = set_policy(domid);

		printf("PMUVIRT-XEN-DOMAINS policy for d%u: rc=%ld\n", domid, prc);
		if (prc)
			bad++;
		rc = destroy(domid);
	}
	if (rc || settled_free_pages(&before)) {
		printf("PMUVIRT-XEN-DOMAINS-FAIL first domain: rc=%ld\n", rc);
		return 1;
	}
	rc = set_policy(domid);
	printf("PMUVIRT-XEN-DOMAINS policy for d%u once destroyed: rc=%ld\n", domid, rc);
	if (rc != -ESRCH)
		bad++;
	for (i = 0; i < ROUNDS && !bad; i++) {
		rc = create(&domid);
		if (rc) {
			printf("PMUVIRT-XEN-DOMAINS-FAIL create round %d: rc=%ld\n", i, rc);
			bad++;
			break;
		}
		if (i == 0 && free_pages(&during) == 0)
			printf("PMUVIRT-XEN-DOMAINS one domain of %d VCPUs (d%u) holds %lld pages\n",
			       NR_VCPUS, domid, (long long)(before - during));
		rc = destroy(domid);
		if (rc) {
			printf("PMUVIRT-XEN-DOMAINS-FAIL destroy d%u: rc=%ld\n", domid, rc);
			bad++;
		}
	}
	if (settled_free_pages(&after))
		bad++;
	printf("PMUVIRT-XEN-DOMAINS rounds=%d vcpus=%d free pages before=%llu after=%llu (%+lld)\n",
	       i, NR_VCPUS, (unsigned long long)before, (unsigned long long)after,
	       (long long)after - (long long)before);
	/* the records alone are two pages a domain: ROUNDS * 2 pages if leaked */
	if (after + SLACK_PAGES < before)
		bad++;
	printf("PMUVIRT-XEN-DOMAINS-%s\n", bad ? "FAILED" : "PASSED");
	return bad ? 1 : 0;
}
