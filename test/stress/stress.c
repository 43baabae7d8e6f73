/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Concurrency stress (built with ThreadSanitizer by run.sh): threads acting
 * as physical CPUs, each with its own fake PMU, switch and migrate many
 * contexts under a per-context lock while reader threads check the shared
 * records of suspended contexts.  Counts must be exact at the end and no
 * read may go backwards.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmuvirt/user.h>
#include "fakehw_models.h"
#include "x86/pmuvirt_x86.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NR_PCPUS	4
#define NR_CTX		16
#define NR_READERS	2
#define ITERS		100000

struct vctx {
	pthread_mutex_t lock;
	struct pmuvirt_ctx *ctx;
	struct pmuvirt_shared_ctx rec;
	uint64_t truth;		/* events run while it was current (under lock) */
	uint64_t seen;		/* largest value a reader saw (under lock) */
};

static const struct fakehw_x86_config cfg = FAKEHW_X86_INTEL_V4;
static struct pmuvirt_pmu pmu;
static struct vctx ctxs[NR_CTX];
static int stop_readers;
static int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void failed(const char *what, unsigned int i, uint64_t a, uint64_t b)
{
	pthread_mutex_lock(&fail_lock);
	failures++;
	fprintf(stderr, "stress: %s: context %u: %llu vs %llu\n", what, i,
		(unsigned long long)a, (unsigned long long)b);
	pthread_mutex_unlock(&fail_lock);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int not_live(void *arg, uint32_t below, uint32_t index, uint64_t *val)
{
	return -PMUVIRT_USER_EAGAIN;
}

static void *pcpu_main(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg, it;
	struct fakehw *hw = fakehw_x86_new(&cfg);
	struct pmuvirt_pcpu pc;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (cpu + 1);
	int cur = -1;

	if (!hw || pmuvirt_pcpu_init(&pc, &pmu, fakehw_ops(hw), hw, cpu))
		abort();
	for (it = 0; it < ITERS; it++) {
		unsigned int j = (unsigned int)(rnd(&seed) % NR_CTX);
		uint64_t n = 1 + rnd(&seed) % 5000;

		if ((int)j != cur && !pthread_mutex_trylock(&ctxs[j].lock)) {
			int ret = pmuvirt_switch(&pc, ctxs[j].ctx);

			if (ret)
				failed("switch", j, (uint64_t)-ret, 0);
			if (cur >= 0)
				pthread_mutex_unlock(&ctxs[cur].lock);
			cur = (int)j;
		}
		if (cur >= 0) {
			if (fakehw_run(hw, FAKEHW_INSTRUCTIONS, n, false))
				abort();
			ctxs[cur].truth += n;
		}
		if (cur >= 0 && !(rnd(&seed) & 63)) {
			pmuvirt_switch_out(&pc);
			pthread_mutex_unlock(&ctxs[cur].lock);
			cur = -1;
		}
	}
	if (cur >= 0) {
		pmuvirt_switch_out(&pc);
		pthread_mutex_unlock(&ctxs[cur].lock);
	}
	if (fakehw_stats(hw)->errors)
		failed("hardware refused an access", cpu, fakehw_stats(hw)->errors, 0);
	fakehw_free(hw);
	return NULL;
}

static void *reader_main(void *arg)
{
	uint64_t seed = 0x1234567ull + (uintptr_t)arg;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		unsigned int j = (unsigned int)(rnd(&seed) % NR_CTX);
		struct vctx *v = &ctxs[j];
		uint64_t val[2];

		if (pthread_mutex_trylock(&v->lock))
			continue;
		/* suspended and locked: the record is exact */
		if (pmuvirt_shared_read(&v->rec, 0, 2, not_live, NULL, val))
			failed("read", j, 0, 0);
		else {
			if (val[0] != v->truth)
				failed("inexact", j, val[0], v->truth);
			if (val[0] < v->seen)
				failed("backwards", j, val[0], v->seen);
			v->seen = val[0];
		}
		pthread_mutex_unlock(&v->lock);
	}
	return NULL;
}

int main(void)
{
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 2 };
	pthread_t pcpus[NR_PCPUS], readers[NR_READERS];
	size_t size = pmuvirt_ctx_size(2);
	struct fakehw *probe = fakehw_x86_new(&cfg);
	unsigned int i;

	if (!probe || pmuvirt_x86_probe(&pmu, fakehw_ops(probe), probe))
		abort();
	fakehw_free(probe);
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER;
	ctl.counter[1].event = PMUVIRT_EV_CYCLES;
	ctl.counter[1].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	for (i = 0; i < NR_CTX; i++) {
		pthread_mutex_init(&ctxs[i].lock, NULL);
		ctxs[i].ctx = calloc(1, size);
		if (!ctxs[i].ctx || pmuvirt_ctx_init(ctxs[i].ctx, size, &pmu) ||
		    pmuvirt_set_control(NULL, ctxs[i].ctx, &ctl, NULL))
			abort();
		pmuvirt_ctx_attach_shared(ctxs[i].ctx, &ctxs[i].rec);
	}
	for (i = 0; i < NR_READERS; i++)
		pthread_create(&readers[i], NULL, reader_main, (void *)(uintptr_t)i);
	for (i = 0; i < NR_PCPUS; i++)
		pthread_create(&pcpus[i], NULL, pcpu_main, (void *)(uintptr_t)i);
	for (i = 0; i < NR_PCPUS; i++)
		pthread_join(pcpus[i], NULL);
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(readers[i], NULL);
	for (i = 0; i < NR_CTX; i++) {
		uint64_t v[2];

		if (pmuvirt_read(ctxs[i].ctx, v) || v[0] != ctxs[i].truth)
			failed("final count", i, v[0], ctxs[i].truth);
		pmuvirt_ctx_release(ctxs[i].ctx);
		free(ctxs[i].ctx);
	}
	printf("stress: %d pcpus, %d contexts, %d switches per pcpu: %s\n", NR_PCPUS, NR_CTX,
	       ITERS, failures ? "FAILED" : "exact");
	return failures ? 1 : 0;
}
