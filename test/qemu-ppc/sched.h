/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The image's scheduler of counted "threads" (loops of known length). */
#ifndef QPPC_SCHED_H
#define QPPC_SCHED_H

#include <pmuvirt/pmuvirt.h>

#define QPPC_MAXCTR		4
/* Every context of the image belongs to one security domain: switches stay read-only. */
#define QPPC_DOMAIN		1
/* Instructions a switch, a poll and the loop call may add to a slice. */
#define QPPC_MAX_SWITCH_COST	2000
/* The same for a thread switch of a guest stacked on the hypervisor. */
#define QPPC_MAX_STACKED_COST	6000
/* pseries time base: 512 MHz; -icount shift=0: one instruction per ns. */
#define QPPC_TB_PER_1000_INSNS	512
#define QPPC_STR_(x)		#x
#define QPPC_STR(x)		QPPC_STR_(x)

/**
 * struct qppc_thread - a counted thread
 * @name, @nev, @ev: its control: @nev portable events, all in a-mode
 *		except counter 0 when @period is set.
 * @iters:	loop iterations per chunk of a slice.
 * @work:	iterations run (each is two instructions).
 * @stopped_tb: time base, in the switches into and out of its slices,
 *		with counting stopped (spr_stats.stopped_tb).
 * @vals:	logical counts after the run.
 */
struct qppc_thread {
	const char *name;
	unsigned int nev;
	uint8_t ev[QPPC_MAXCTR];
	uint64_t period;
	uint64_t iters;
	uint64_t work;
	uint64_t slices;
	uint64_t pmis;
	uint64_t stopped_tb;
	uint32_t ovf;
	uint64_t vals[QPPC_MAXCTR];
	struct pmuvirt_ctx *ctx;
	uint64_t mem[(sizeof(struct pmuvirt_ctx) +
		      QPPC_MAXCTR * sizeof(struct pmuvirt_counter)) / 8 + 1];
};

extern struct pmuvirt_pmu qppc_pmu;
extern struct pmuvirt_pcpu qppc_pc;
extern uint64_t qppc_pmis;
extern uint64_t qppc_pmi_tb;

void qppc_poll(struct pmuvirt_pcpu *pc);
void qppc_pmc_reset(void);
int qppc_thread_init(struct qppc_thread *t, const struct pmuvirt_pmu *pmu,
		     struct pmuvirt_pcpu *pc);
int qppc_schedule(struct pmuvirt_pcpu *pc, struct qppc_thread *th, unsigned int n,
		  unsigned int rounds, unsigned int chunks);
/* A guest instance stacked on this one (PV backend). */
void tests_stacked(void);

#endif
