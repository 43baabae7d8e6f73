// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * xenpmu_abi_test: Xen's XENPMU_* hypercall as pmuvirt serves it for a PV
 * domain (docs/xen.md, "Stock guests", PV guests), from dom0's user space
 * through privcmd, after dom0's kernel made its own XENPMU_init: the
 * answers of mode_get and feature_get, and the refusals of wrong calls,
 * none of which may disturb the kernel's PMU (stock_perf_test runs after).
 *
 * Prints PMUVIRT-XENPMU-ABI lines; exit 0 and PMUVIRT-XENPMU-ABI-PASSED
 * when every case gave what it should.
 */
#include "privcmd.h"

#define HYPERVISOR_XENPMU_OP	40
#define XENPMU_MODE_GET		0
#define XENPMU_MODE_SET		1
#define XENPMU_FEATURE_GET	2
#define XENPMU_FEATURE_SET	3
#define XENPMU_INIT		4
#define XENPMU_FINISH		5
#define XENPMU_LVTPC_SET	6
#define XENPMU_FLUSH		7
#define XENPMU_MODE_SELF	1
#define XENPMU_MODE_HV		2
#define XENPMU_MODE_ALL		4

/* xen/include/public/pmu.h */
struct xen_pmu_params {
	uint32_t maj;
	uint32_t min;
	uint64_t val;
	uint32_t vcpu;
	uint32_t pad;
};

static long xenpmu(unsigned int op, struct xen_pmu_params *p)
{
	return xen_hypercall(HYPERVISOR_XENPMU_OP, op, (uint64_t)(uintptr_t)p);
}

static struct xen_pmu_params params(uint32_t maj, uint64_t val, uint32_t vcpu)
{
	struct xen_pmu_params p = { .maj = maj, .min = 1, .val = val, .vcpu = vcpu };

	return p;
}

static void expect(const char *what, long got, long want)
{
	expect_case("PMUVIRT-XENPMU-ABI", 36, what, got, want, 0);
}

int main(void)
{
	struct xen_pmu_params p;
	long rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (open_privcmd() < 0) {
		perror("privcmd");
		return 2;
	}
	p = params(0, 0, 0);
	p.maj = p.min = 99;
	rc = xenpmu(XENPMU_MODE_GET, &p);
	printf("PMUVIRT-XENPMU-ABI mode_get rc=%ld mode %llu version %u.%u\n", rc,
	       (unsigned long long)p.val, p.maj, p.min);
	if (rc || p.val != XENPMU_MODE_SELF || p.maj != 0 || p.min != 1)
		failures++;
	p = params(0, 77, 0);
	rc = xenpmu(XENPMU_FEATURE_GET, &p);
	expect("feature_get", rc, 0);
	expect("feature_get's features", (long)p.val, 0);
	p = params(0, XENPMU_MODE_SELF, 0);
	expect("mode_set SELF (no change)", xenpmu(XENPMU_MODE_SET, &p), 0);
	p = params(0, XENPMU_MODE_ALL, 0);
	expect("mode_set ALL", xenpmu(XENPMU_MODE_SET, &p), -EOPNOTSUPP);
	p = params(0, XENPMU_MODE_HV, 0);
	expect("mode_set HV", xenpmu(XENPMU_MODE_SET, &p), -EOPNOTSUPP);
	p = params(0, 1, 0);
	expect("feature_set 1", xenpmu(XENPMU_FEATURE_SET, &p), -EOPNOTSUPP);
	p = params(1, XENPMU_MODE_SELF, 0);
	expect("mode_set of version 1", xenpmu(XENPMU_MODE_SET, &p), -EINVAL);
	p = params(1, 0, 0);
	expect("init of version 1", xenpmu(XENPMU_INIT, &p), -EINVAL);
	p = params(0, 0, 4096);
	expect("init of VCPU 4096", xenpmu(XENPMU_INIT, &p), -EINVAL);
	p = params(0, ~0ull >> 12, 0);
	expect("init of a frame not dom0's", xenpmu(XENPMU_INIT, &p), -EINVAL);
	p = params(0, 0, 4096);
	expect("finish of VCPU 4096", xenpmu(XENPMU_FINISH, &p), -EINVAL);
	expect("init with a bad pointer",
	       xen_hypercall(HYPERVISOR_XENPMU_OP, XENPMU_INIT, 8), -EFAULT);
	expect("operation 8", xenpmu(8, NULL), -EINVAL);
	/* the kernel's page is not cached now: both change nothing */
	expect("lvtpc_set", xenpmu(XENPMU_LVTPC_SET, NULL), 0);
	expect("flush of an uncached page", xenpmu(XENPMU_FLUSH, NULL), 0);
	if (failures) {
		printf("PMUVIRT-XENPMU-ABI-FAILED %d\n", failures);
		return 1;
	}
	printf("PMUVIRT-XENPMU-ABI-PASSED\n");
	return 0;
}
