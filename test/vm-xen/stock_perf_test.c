// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * stock_perf_test: a stock guest's own perf on the PMU Xen's pmuvirt
 * emulates for it (docs/xen.md, "Stock guests").  Static, run in the vm-xen
 * hvm boot's HVM domU before pmuvirt.ko is loaded: only the guest kernel's
 * perf_event_open() and the PMU MSRs it programs are involved.
 *
 * 1. Counting: instructions:u, instructions:k and cycles of this thread
 *    around a loop of N "dec; jnz" iterations (2N instructions, the work).
 *    instructions:u must be the work within -2% / +5% (the kernel's and
 *    Xen's work while the thread runs adds to it).  With "emulated" (Xen's
 *    pmuvirt-emulate under QEMU, -icount shift=0: every counter counts TSC
 *    ticks, one per instruction, and the privilege level is not modelled)
 *    instructions:k and cycles must also be the work within those bounds;
 *    on a real PMU instructions:k must stay under 2% of the work and
 *    cycles must be above zero.
 * 2. Sampling: instructions:u with a period of P, the samples in the ring
 *    buffer around the same loop: their number must be work / P within 10%,
 *    each one the guest's performance interrupt (an NMI through the vLAPIC).
 * 3. With "branches-denied" (dom0 gave the domain a policy that denies
 *    branches): branches:u around the loop (N taken branches) opens and
 *    enables as any counter (the guest's MSR writes succeed) and counts 0,
 *    while instructions:u beside it counts the work.
 *
 * Prints PMUVIRT-STOCK-PERF-... lines; exit 0 when every check passed.
 * In a PV guest (no emulated PMU for PV yet) it prints
 * PMUVIRT-STOCK-PERF-SKIPPED and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define RING_PAGES	64

static int fails;

#define FAIL(...) do { printf("PMUVIRT-STOCK-PERF-FAIL " __VA_ARGS__); fails++; } while (0)

static int perf_open(uint64_t config, int exclude_user, int exclude_kernel, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_user = exclude_user;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	if (period) {
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_IP;
		a.wakeup_events = 1000000;
	}
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void loop(uint64_t n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

static uint64_t count_of(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		FAIL("read of a counter: %s\n", strerror(errno));
	return v;
}

/* Is @v within -2% and +5% of @work?  Prints the line either way. */
static int near(const char *what, uint64_t v, uint64_t work)
{
	double err = ((double)v - (double)work) / (double)work;

	printf("PMUVIRT-STOCK-PERF %s %" PRIu64 " work %" PRIu64 " err %+.4f\n", what, v, work, err);
	return err >= -0.02 && err <= 0.05;
}

static int guest_type_pv(void)
{
	char buf[16] = "";
	FILE *f = fopen("/sys/hypervisor/guest_type", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	printf("PMUVIRT-STOCK-PERF guest_type %s", buf);
	return !strncmp(buf, "PV\n", 3);
}

static void counting(uint64_t n, int emulated)
{
	uint64_t work = 2 * n, iu, ik, cy;
	int fu, fk, fc;

	fu = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, 0);
	fk = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, 0);
	fc = perf_open(PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0);
	if (fu < 0 || fk < 0 || fc < 0) {
		FAIL("perf_event_open: %s (the guest kernel found no PMU?)\n", strerror(errno));
		return;
	}
	ioctl(fu, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fk, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fc, PERF_EVENT_IOC_ENABLE, 0);
	loop(n);
	ioctl(fc, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fk, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fu, PERF_EVENT_IOC_DISABLE, 0);
	iu = count_of(fu);
	ik = count_of(fk);
	cy = count_of(fc);
	close(fu);
	close(fk);
	close(fc);
	if (!near("instructions:u", iu, work))
		FAIL("instructions:u %" PRIu64 " for %" PRIu64 " instructions\n", iu, work);
	if (emulated) {
		if (!near("instructions:k", ik, work))
			FAIL("instructions:k %" PRIu64 " (emulated PMU: every mode)\n", ik);
		if (!near("cycles", cy, work))
			FAIL("cycles %" PRIu64 " (emulated PMU: TSC ticks)\n", cy);
	} else {
		near("instructions:k", ik, work);
		near("cycles", cy, work);
		if (ik > work / 50)
			FAIL("instructions:k %" PRIu64 ": 2%% of the work or more\n", ik);
		if (!cy)
			FAIL("cycles 0\n");
	}
	if (!fails)
		printf("PMUVIRT-STOCK-PERF-COUNT-OK\n");
}

/* The domain's policy denies branches: that counter counts nothing, the other on. */
static void denied(uint64_t n)
{
	uint64_t work = 2 * n, br, iu;
	int fb = perf_open(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 1, 0);
	int fu = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, 0);

	if (fb < 0 || fu < 0) {
		FAIL("perf_event_open of branches and instructions: %s\n", strerror(errno));
		return;
	}
	ioctl(fb, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fu, PERF_EVENT_IOC_ENABLE, 0);
	loop(n);
	ioctl(fu, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fb, PERF_EVENT_IOC_DISABLE, 0);
	br = count_of(fb);
	iu = count_of(fu);
	close(fb);
	close(fu);
	printf("PMUVIRT-STOCK-PERF denied branches:u %" PRIu64 " for %" PRIu64 " branches\n", br, n);
	if (br)
		FAIL("branches:u %" PRIu64 " under a policy that denies branches\n", br);
	else if (!near("instructions:u beside it", iu, work))
		FAIL("instructions:u %" PRIu64 " beside the denied counter\n", iu);
	else
		printf("PMUVIRT-STOCK-PERF-POLICY-OK\n");
}

static void sampling(uint64_t n, uint64_t period)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), len = (RING_PAGES + 1) * psz;
	struct perf_event_mmap_page *meta;
	uint64_t work = 2 * n, head, off, samples = 0, lost = 0, want = work / period;
	unsigned char *data;
	int fd = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, period);
	void *m;

	if (fd < 0) {
		FAIL("perf_event_open of a sampling counter: %s\n", strerror(errno));
		return;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		FAIL("mmap of the ring: %s\n", strerror(errno));
		close(fd);
		return;
	}
	meta = m;
	data = (unsigned char *)m + psz;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	for (off = 0; off < head;) {
		struct perf_event_header h;
		size_t at = off % (RING_PAGES * psz);

		if (head - off > RING_PAGES * psz) {
			FAIL("the ring wrapped\n");
			break;
		}
		/* records are 8-byte aligned and never split a header */
		memcpy(&h, data + at, sizeof(h));
		if (!h.size)
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			samples++;
		else if (h.type == PERF_RECORD_LOST)
			lost++;
		off += h.size;
	}
	printf("PMUVIRT-STOCK-PERF sampling period %" PRIu64 " samples %" PRIu64 " lost %" PRIu64
	       " expected %" PRIu64 "\n", period, samples, lost, want);
	if (lost || samples * 10 < want * 9 || samples * 10 > want * 11)
		FAIL("%" PRIu64 " samples (%" PRIu64 " lost) for %" PRIu64 " periods\n", samples,
		     lost, want);
	else
		printf("PMUVIRT-STOCK-PERF-SAMPLE-OK\n");
	munmap(m, len);
	close(fd);
}

int main(int argc, char **argv)
{
	uint64_t n = 50000000;
	int emulated = 0, deny = 0, i;
	cpu_set_t set;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "emulated"))
			emulated = 1;
		else if (!strcmp(argv[i], "branches-denied"))
			deny = 1;
		else
			n = strtoull(argv[i], NULL, 0);
	}
	if (guest_type_pv()) {
		printf("PMUVIRT-STOCK-PERF-SKIPPED PV\n");
		return 0;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	counting(n, emulated);
	sampling(n, 1000000);
	if (deny)
		denied(n);
	if (fails)
		return 1;
	printf("PMUVIRT-STOCK-PERF-PASSED\n");
	return 0;
}
