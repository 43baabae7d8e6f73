/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz the user-mode reader (include/pmuvirt/user.h) over arbitrary thread
 * and VCPU records, with a writer that changes them between the reader's
 * steps: it must never crash or read out of bounds and must always return
 * within its bounded number of tries.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *mut;	/* writer's script: one byte per hook point */
static size_t mut_len;
static uint8_t *mem;		/* the records the writer changes */
static size_t mem_len;
static unsigned long hooks;

static void writer_step(void)
{
	hooks++;
	if (mut_len < 2)
		return;
	mem[mut[0] % mem_len] = mut[1];
	mut += 2;
	mut_len -= 2;
}

#define PMUVIRT_USER_READ_HOOK(point)	writer_step()
#include <pmuvirt/user.h>

#define NR_VCPUS	3

static int hw_read(void *arg, uint32_t below, uint32_t index, uint64_t *val)
{
	const uint64_t *regs = arg;

	if (index == PMUVIRT_SHARED_TSC) {
		*val = regs[0];
		return 0;
	}
	if (index > 8)
		return -22;
	*val = regs[index];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		struct pmuvirt_shared_ctx thread;
		struct pmuvirt_shared_ctx vcpu[NR_VCPUS];
	} recs;
	uint64_t regs[9], out[PMUVIRT_MAX_COUNTERS];
	struct pmuvirt_user_vcpus v;
	uint8_t first = 0, n = 0;
	size_t k;
	int ret;

	memset(&recs, 0, sizeof(recs));
	memset(regs, 0, sizeof(regs));
	if (size < 2)
		return 0;
	first = data[0] % (PMUVIRT_MAX_COUNTERS + 1);
	n = data[1] % (PMUVIRT_MAX_COUNTERS + 1 - first);
	data += 2;
	size -= 2;
	k = size < sizeof(recs) ? size : sizeof(recs);
	memcpy(&recs, data, k);
	data += k;
	size -= k;
	k = size < sizeof(regs) ? size : sizeof(regs);
	memcpy(regs, data, k);
	data += k;
	size -= k;
	mut = data;
	mut_len = size;
	mem = (uint8_t *)&recs;
	mem_len = sizeof(recs);
	hooks = 0;

	v.vcpus = recs.vcpu;
	v.nr_vcpus = NR_VCPUS;
	v.hw = hw_read;
	v.hw_arg = regs;
	ret = pmuvirt_shared_read(&recs.thread, first, n, pmuvirt_below_vcpu, &v, out);
	if (ret && ret != -PMUVIRT_USER_EAGAIN && ret != -PMUVIRT_USER_EBUSY &&
	    ret != -PMUVIRT_USER_ERANGE && ret != -22)
		abort();
	/* bounded: at most TRIES outer rounds, each with n inner reads of TRIES rounds */
	if (hooks > 4ul * PMUVIRT_USER_READ_TRIES * (1 + 4ul * PMUVIRT_USER_READ_TRIES * (n + 1)))
		abort();
	return 0;
}
