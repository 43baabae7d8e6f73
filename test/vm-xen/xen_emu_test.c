/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Runs in dom0 under Xen booted with pmuvirt-emulate (an emulated Intel PMU
 * whose counters count TSC ticks, i.e. executed instructions under QEMU's
 * -icount shift=0), through /dev/xen/privcmd and /dev/xen/evtchn.
 *
 * Two threads pinned to VCPU 0 and 1 each give their VCPU the control
 * {instructions (a-mode, fixed counter), cycles (i-mode, a notification
 * every PERIOD events, general counter), TSC} and run a loop of known
 * length while Xen time-slices the two VCPUs on one PCPU.  Each thread
 * runs at the highest real-time priority, so no other task runs on its
 * VCPU meanwhile (run_alone()), and must not have been preempted.  Each
 * VCPU's counts (READ) must match its thread's work within 2%, and its
 * notifications (TAKE_OVERFLOWS) must number floor(count / PERIOD) (less
 * at most the one whose PMI may still be on its way, no more than the count
 * allows just after).  VCPU 0 has the VIRQ
 * bound through the evtchn device: it must have fired.
 *
 * Prints PMUVIRT-XEN-EMU-* markers; the boot script judges by them.
 */
#include "privcmd.h"
#include "../common/imode_control.h"
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define NR_THREADS	2
#define PERIOD		10000000ull
#define TOLERANCE	0.02

static pthread_barrier_t start_line;
static uint64_t iterations;

struct result {
	int cpu, vcpu;
	long rc, preempted;
	uint64_t before[3], after[3], after_take[3], taken;
	uint32_t mask;
};

static long vcpu_read(uint64_t *v)
{
	struct pmuvirt_xen_read rd;
	long rc;

	memset(&rd, 0, sizeof(rd));
	hdr(&rd.hdr, sizeof(rd));
	rc = hc(PMUVIRT_XEN_READ, &rd);
	if (!rc)
		memcpy(v, rd.value, 3 * sizeof(v[0]));
	return rc;
}

static void *worker(void *arg)
{
	struct result *r = arg;
	struct pmuvirt_xen_set_control sc;
	struct pmuvirt_xen_take_overflows to;
	uint64_t n = iterations;

	memset(&sc, 0, sizeof(sc));
	hdr(&sc.hdr, sizeof(sc));
	imode_control(&sc.ctl, PERIOD);
	r->rc = start_on_vcpu(&sc, r->cpu, &r->vcpu);
	pthread_barrier_wait(&start_line);
	if (r->rc)
		return NULL;
	r->preempted = preemptions();
	r->rc = vcpu_read(r->before);
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
	if (!r->rc)
		r->rc = vcpu_read(r->after);
	r->preempted = preemptions() - r->preempted;
	memset(&to, 0, sizeof(to));
	hdr(&to.hdr, sizeof(to));
	if (!r->rc)
		r->rc = hc(PMUVIRT_XEN_TAKE_OVERFLOWS, &to);
	if (!r->rc)
		r->rc = vcpu_read(r->after_take);
	r->taken = to.count[1];
	r->mask = to.mask;
	/* nothing left running for this VCPU */
	memset(&sc.ctl, 0, sizeof(sc.ctl));
	sc.ctl.version = PMUVIRT_ABI_VERSION;
	if (!r->rc)
		r->rc = hc(PMUVIRT_XEN_SET_CONTROL, &sc);
	return NULL;
}

int main(int argc, char **argv)
{
	struct result res[NR_THREADS];
	struct ioctl_evtchn_bind_virq bv = { .virq = PMUVIRT_XEN_VIRQ };
	struct pmuvirt_xen_query q;
	struct pollfd pfd;
	pthread_t tid[NR_THREADS];
	uint32_t port = 0;
	double work;
	long rc;
	int evtchn, bound, fired = 0, bad = 0;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	iterations = argc > 1 ? strtoull(argv[1], NULL, 0) : 50000000ull;
	mlockall(MCL_CURRENT | MCL_FUTURE);
	open_privcmd();
	evtchn = open("/dev/xen/evtchn", O_RDWR);
	if (privcmd < 0 || evtchn < 0) {
		printf("PMUVIRT-XEN-EMU-FAIL privcmd %d evtchn %d: %s\n", privcmd, evtchn,
		       strerror(errno));
		return 1;
	}
	memset(&q, 0, sizeof(q));
	hdr(&q.hdr, sizeof(q));
	rc = hc(PMUVIRT_XEN_QUERY, &q);
	printf("PMUVIRT-XEN-EMU-QUERY rc=%ld pmu=\"%s\" model=%u gp=%u fixed=%u slots=%u\n", rc,
	       q.name, q.model, q.nr_gp, q.nr_fixed, q.nr_slots);
	if (rc || q.nr_gp != 2 || q.nr_fixed != 1) {
		printf("PMUVIRT-XEN-EMU-FAIL not the emulated PMU\n");
		return 1;
	}
	/* the evtchn device binds VIRQs on VCPU 0 */
	bound = ioctl(evtchn, IOCTL_EVTCHN_BIND_VIRQ, &bv);
	if (bound < 0) {
		printf("PMUVIRT-XEN-EMU-FAIL bind VIRQ %u: %s\n", bv.virq, strerror(errno));
		return 1;
	}

	memset(res, 0, sizeof(res));
	pthread_barrier_init(&start_line, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		res[i].cpu = (int)i;
		pthread_create(&tid[i], NULL, worker, &res[i]);
	}
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);

	pfd.fd = evtchn;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 1000) == 1 && read(evtchn, &port, sizeof(port)) == sizeof(port))
		fired = (int)port == bound;
	printf("PMUVIRT-XEN-EMU-VIRQ port=%d fired=%d\n", bound, fired);
	if (!fired)
		bad++;

	work = 2.0 * (double)iterations;
	for (i = 0; i < NR_THREADS; i++) {
		struct result *r = &res[i];
		double ei, et;
		uint64_t cyc, want, most;

		if (r->rc) {
			printf("PMUVIRT-XEN-EMU-FAIL thread %u: rc=%ld vcpu=%d\n", i, r->rc, r->vcpu);
			bad++;
			continue;
		}
		ei = ((double)(r->after[0] - r->before[0]) - work) / work;
		et = ((double)(r->after[2] - r->before[2]) - work) / work;
		cyc = r->after[1];
		want = cyc / PERIOD;
		most = r->after_take[1] / PERIOD;
		printf("PMUVIRT-XEN-EMU vcpu=%d work=%.0f instructions=%llu (%+.3f%%) tsc=%llu (%+.3f%%) "
		       "i-mode count=%llu notifications=%llu floor(count/period)=%llu mask=%#x "
		       "preempted=%ld\n",
		       r->vcpu, work, (unsigned long long)(r->after[0] - r->before[0]), 100.0 * ei,
		       (unsigned long long)(r->after[2] - r->before[2]), 100.0 * et,
		       (unsigned long long)cyc, (unsigned long long)r->taken,
		       (unsigned long long)want, r->mask, r->preempted);
		if (ei > TOLERANCE || ei < -TOLERANCE || et > TOLERANCE || et < -TOLERANCE)
			bad++;
		/* the premise: nothing but this thread (and interrupts) ran on the VCPU */
		if (r->preempted)
			bad++;
		/* each boundary once: less at most one whose PMI is on its way */
		if (r->taken + 1 < want || r->taken > most || r->mask != 0x2)
			bad++;
	}
	printf("PMUVIRT-XEN-EMU-%s\n", bad ? "FAILED" : "PASSED");
	return bad ? 1 : 0;
}
