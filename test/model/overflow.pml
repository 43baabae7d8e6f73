/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * i-mode overflow delivery across two levels.
 *
 * One PCPU time-shares two VCPUs; the guest runs two threads on them, each
 * with one i-mode counter of period P.  The hypervisor keeps each VCPU's
 * logical value V exactly (read_protocol.pml and the unit tests check the
 * offsetting) and an i-mode target: when V reaches it the counter stops
 * and a PMI is pending; the PMI handler (or a switch-out that gets there
 * first) re-arms by the period and raises the VCPU's VIRQ, a pending bit
 * that the VCPU takes when it next runs with interrupts on.  The guest
 * follows src/core/ctx.c with the PV backend (src/arch/pv/pv.c): on a
 * thread switch-out it samples and turns crossed overflow points into
 * pending notifications; on switch-in it re-arms the VCPU's counter at the
 * thread's distance to its next overflow (a hypercall unless its cached
 * target already falls there) and delivers what is pending; on the VIRQ it
 * re-checks the current thread, re-arms and delivers.
 *
 * Ghost state counts each thread's events and the overflows it is owed.
 * Checked in every state: each thread's logical count equals the truth,
 * and delivered + pending + not yet collected == owed (so nothing is lost,
 * duplicated or given to another thread); at every owed overflow of a
 * running thread the VCPU's counter stops at that very event.
 *
 * Mutants (-D): MUT_BLIND_VIRQ delivers a VIRQ to whichever thread runs
 * without re-checking; MUT_DROP_PENDING forgets the pending notifications
 * of a thread switched out; MUT_STALE_CACHE skips the arming hypercall
 * whenever the guest has any cached target.
 */

#define NV	2	/* VCPUs on the one PCPU */
#define NT	2	/* threads */
#define P	2	/* period */
#define NONE	255
#ifndef MAXT
#define MAXT	6	/* events */
#endif

/* hypervisor */
byte pcur = NONE;	/* VCPU on the PCPU */
byte V[NV];		/* VCPU logical values */
byte vnext[NV] = P;		/* where the VCPU's counter signals next */
byte vper[NV] = P;
bool virq[NV];		/* VIRQ pending */
byte ticks;

/* guest */
byte tcur[NV] = NONE;
bool kbusy[NV];		/* guest kernel in a switch or the VIRQ handler */
byte gtarget[NV];	/* pv_arm()'s cache of the VCPU's target, 0 unknown */
byte gper[NV];
bool tclaim[NT];
byte tcount[NT];
byte tstart[NT];
byte tnext[NT] = P;
byte tpend[NT];
byte deliv[NT];

/* ghost */
byte gV[NV] = NONE;		/* thread whose count runs on the VCPU */
byte ton[NT] = NONE;		/* VCPU the thread's count runs on */
byte trueT[NT];
byte owed[NT];

#define PMIPEND		(pcur != NONE && V[pcur] >= vnext[pcur])
#define VEXEC(v)	(pcur == v && !PMIPEND)
#define CNT(t)		(tcount[t] + (ton[t] != NONE -> V[ton[t]] - tstart[t] : 0))
#define UNC(t)		(CNT(t) >= tnext[t] -> 1 + (CNT(t) - tnext[t]) / P : 0)
#define INV(t)		(CNT(t) == trueT[t] && deliv[t] + tpend[t] + UNC(t) == owed[t])

proctype Ticker()
{
	byte v, t;

end:	do
	:: atomic {
		ticks < MAXT && pcur != NONE && !PMIPEND ->
		v = pcur;
		V[v]++;
		t = gV[v];
		if
		:: t != NONE ->
			trueT[t]++;
			if
			:: trueT[t] % P == 0 ->
				owed[t]++;
				/* the counter stops at the overflow point */
				assert(V[v] == vnext[v])
			:: else
			fi
		:: else
		fi;
		ticks++;
		t = NONE
	   }
	od
}

/* Overflow points of VCPU v that V has reached: re-arm, raise the VIRQ. */
inline vcollect(v)
{
	do
	:: V[v] >= vnext[v] -> vnext[v] = vnext[v] + vper[v]; virq[v] = true
	:: else -> break
	od
}

proctype Hyp()
{
end:	do
	:: atomic { PMIPEND -> vcollect(pcur) }
	:: atomic { pcur != NONE -> vcollect(pcur); pcur = NONE }
	:: atomic { pcur == NONE -> pcur = 0 }
	:: atomic { pcur == NONE -> pcur = 1 }
	od
}

/* collect_overflows() of thread t */
inline tcollect(t)
{
	do
	:: tcount[t] >= tnext[t] -> tnext[t] = tnext[t] + P; tpend[t]++
	:: else -> break
	od
}

/* sample() of thread t on VCPU v */
inline tsample(t, v)
{
	tcount[t] = tcount[t] + V[v] - tstart[t];
	tstart[t] = V[v]
}

/* pv_arm(): VCPU v signals after thread t's remaining events; t counts from now. */
inline tarm(t, v)
{
	rem = tnext[t] - tcount[t];
	want = V[v] + rem;
#ifdef MUT_STALE_CACHE
	if
	:: gtarget[v] != 0 -> skip
	:: else ->
#else
	if
	:: gtarget[v] != 0 && gper[v] == P ->
		do
		:: gtarget[v] <= V[v] -> gtarget[v] = gtarget[v] + P
		:: else -> break
		od
	:: else
	fi;
	if
	:: gtarget[v] != 0 && gper[v] == P && gtarget[v] == want -> skip
	:: else ->
#endif
		/* hypercall: pmuvirt_arm_counter() on the running VCPU */
		vcollect(v);
		vnext[v] = V[v] + rem;
		vper[v] = P;
		gtarget[v] = V[v] + rem;
		gper[v] = P
	fi;
	tstart[t] = V[v];
	gV[v] = t;
	ton[t] = v
}

/* the glue signals thread t with everything pending */
inline tdeliver(t)
{
	deliv[t] = deliv[t] + tpend[t];
	tpend[t] = 0;
	assert(deliv[t] <= owed[t])
}

proctype Guest(byte v)
{
	byte t, rem, want;

end:	do
	:: atomic {	/* VIRQ handler: re-check the current thread */
		VEXEC(v) && virq[v] && !kbusy[v] ->
		kbusy[v] = true;
		virq[v] = false;
		t = tcur[v]
	   };
		if
		:: t != NONE ->
			atomic {
				VEXEC(v) ->
#ifdef MUT_BLIND_VIRQ
				tpend[t]++;
#endif
				tsample(t, v);
				tcollect(t);
				tarm(t, v)
			};
			atomic { VEXEC(v) -> tdeliver(t); kbusy[v] = false; t = NONE }
		:: else ->
			atomic { VEXEC(v) -> kbusy[v] = false }
		fi
	:: atomic {	/* switch the current thread out */
		VEXEC(v) && !kbusy[v] && tcur[v] != NONE ->
		t = tcur[v];
		tsample(t, v);
		tcollect(t);
#ifdef MUT_DROP_PENDING
		tpend[t] = 0;
#endif
		gV[v] = NONE;
		ton[t] = NONE;
		tcur[v] = NONE;
		tclaim[t] = false;
		t = NONE
	   }
	:: atomic {	/* switch a thread in (possibly one that ran on the other VCPU) */
		VEXEC(v) && !kbusy[v] && tcur[v] == NONE && !(tclaim[0] && tclaim[1]) ->
		if
		:: !tclaim[0] -> t = 0
		:: !tclaim[1] -> t = 1
		fi;
		tclaim[t] = true;
		kbusy[v] = true;
		tcollect(t);
		tarm(t, v);
		tcur[v] = t;
		rem = 0;
		want = 0
	   };
		atomic { VEXEC(v) -> tdeliver(t); kbusy[v] = false; t = NONE }
	od
}

/* The accounting invariant holds in every state. */
active proctype Monitor()
{
end:	atomic { !(INV(0) && INV(1)) -> assert(false) }
}

init {
	atomic {
		run Hyp();
		run Guest(0);
		run Guest(1);
		run Ticker()
	}
}
