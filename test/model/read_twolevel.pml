/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The user-mode read of a thread record stacked on a VCPU record, with
 * both levels moving during the read: the guest kernel switches and
 * migrates the thread between two VCPUs while the hypervisor switches and
 * migrates those VCPUs between two PCPUs (and folds PMIs).  The thread
 * reads its own count as include/pmuvirt/user.h does and retries.
 *
 * read_protocol.pml checks each level moving alone with every writer step
 * split; with both moving its state space does not fit CI time.  This
 * model keeps every step the reader can observe and merges only steps it
 * cannot:
 *
 * - The reader is the thread itself, so its steps run only while the
 *   thread executes.  A thread record is written only while that thread
 *   does not execute (the guest kernel switches it in or out), so the
 *   reader never sees a thread record mid-update: each guest switch-out
 *   (sample, publish) and each switch-in is one atomic step.  Events,
 *   hypervisor operations and the reader still interleave between the
 *   switch-out and the switch-in of a migration.
 * - A VCPU record is written while that VCPU does not execute, but the
 *   thread may by then execute on the other VCPU and read it (it read the
 *   thread record before the guest migrated it).  So the hypervisor's
 *   writer keeps src/core/ctx.c's steps: sample into private state,
 *   then seq odd, below and index, count and start, seq even, each a
 *   separate step.
 * - Values are small: one 2-bit hardware counter per PCPU (wraps and PMI
 *   re-bases within a few events), at most MAXT events in all.
 *
 * Ghost variables count each event to the VCPU and thread whose sample
 * intervals are open.  Checked: every value the reader returns lies
 * between the thread's true count at the start and at the end of the read
 * (so it equals the true count at some instant: the count moves by one),
 * reads never go backwards, and every sample a writer takes equals the
 * truth.
 *
 * Mutants (-D): MUT_NO_VRECHECK drops the reader's VCPU seq re-check,
 * MUT_NO_RECHECK its thread seq re-check (both must fail); MUT_NO_ODD
 * drops the reader's odd-seq checks and MUT_WRITER_EVEN makes the VCPU
 * writer publish without an odd seq (docs/reliability.md: these pass).
 */

#define NP	2	/* PCPUs */
#define NV	2	/* VCPUs */
#define W	4	/* hardware counter range (width 2) */
#define HALF	2	/* a PMI re-bases the counter to threshold (0) - HALF */
#define NONE	255

#ifndef MAXT
#define MAXT	3	/* events */
#endif
#ifndef HOPS
#define HOPS	1	/* hypervisor switch-outs per PCPU */
#endif
#ifndef GOPS
#define GOPS	1	/* guest switch-outs of the thread per VCPU */
#endif
#ifndef NREADS
#define NREADS	1
#endif

/* one hypervisor operation at a time (see read_protocol.pml) */
bool hwl;

/* hardware */
byte hw[NP];
bool pmi[NP];
byte ticks;

/* hypervisor: private state of each VCPU context */
byte pcur[NP];		/* VCPU current on a PCPU */
bool hbusy[NP];		/* hypervisor code runs on the PCPU */
byte vexec[NV];		/* PCPU the VCPU executes guest code on */
bool vclaim[NV];
byte vcount[NV];
byte vstart[NV];
/* VCPU records */
byte vseq[NV];
byte vbelow[NV];
byte vrcount[NV];
byte vrstart[NV];
bool vridx[NV];

/* guest: the thread's private state and record */
byte tcur[NV];		/* thread current on a VCPU (0 or NONE) */
byte texec;		/* VCPU the thread executes on */
bool tclaim;
byte tcount;
byte tstart;
byte tseq;
byte tbelow;
byte trcount;
byte trstart;
bool tridx;

/* ghost */
byte gP[NP];		/* VCPU whose interval is open on a PCPU */
bool gV[NV];		/* the thread's interval is open on a VCPU */
byte trueV[NV];
byte trueT;

#define VEXEC(v)	(vexec[v] != NONE && !hbusy[vexec[v]] && !pmi[vexec[v]])
#define TEXEC		(texec != NONE && VEXEC(texec))
#define ELAPSED(now, st) (((now) + W - (st)) % W)

/* An event on a PCPU with a VCPU: counts stop while a PMI is pending. */
proctype Ticker()
{
	byte p;
end:	do
	:: atomic {
		ticks < MAXT &&
		(!pmi[0] && pcur[0] != NONE || !pmi[1] && pcur[1] != NONE) ->
		if
		:: !pmi[0] && pcur[0] != NONE -> p = 0
		:: !pmi[1] && pcur[1] != NONE -> p = 1
		fi;
		hw[p] = (hw[p] + 1) % W;
		if
		:: hw[p] == 0 -> pmi[p] = true
		:: else
		fi;
		if
		:: gP[p] != NONE ->
			trueV[gP[p]]++;
			if
			:: gV[gP[p]] -> trueT++
			:: else
			fi
		:: else
		fi;
		ticks++
	   }
	od
}

/* Publish VCPU v's record as the core does: seq odd, fields, seq even. */
inline vpublish(v, p, live)
{
#ifndef MUT_WRITER_EVEN
	vseq[v]++;
#endif
	atomic { vbelow[v] = p; vridx[v] = live };
	atomic { vrcount[v] = vcount[v]; vrstart[v] = vstart[v] };
#ifndef MUT_WRITER_EVEN
	vseq[v]++
#else
	vseq[v] = vseq[v] + 2
#endif
}

/* Hypervisor on PCPU p: VCPU switches, migrations, PMI folds. */
proctype Hyp(byte p)
{
	byte old, next, raw, nops;

end:	do
	:: atomic {
		pmi[p] && !hbusy[p] && !hwl -> hbusy[p] = true; hwl = true;
		old = pcur[p]
	   };
		/* pmuvirt_pmi(): counting stopped, fold and re-base, publish */
		if
		:: old != NONE ->
			atomic {
				raw = hw[p];
				if
				:: raw < HALF ->
					vcount[old] = vcount[old] + ELAPSED(raw, vstart[old]);
					vstart[old] = raw;
					assert(vcount[old] == trueV[old])
				:: else
				fi
			};
			if
			:: raw < HALF -> hw[p] = HALF; vstart[old] = HALF
			:: else
			fi
		:: else ->
			if
			:: hw[p] < HALF -> hw[p] = HALF
			:: else
			fi
		fi;
		pmi[p] = false;
		if
		:: old != NONE -> vpublish(old, p, true)
		:: else
		fi;
		atomic { hbusy[p] = false; hwl = false }
	:: atomic {
		!hbusy[p] && !pmi[p] && !hwl &&
		(pcur[p] != NONE && nops < HOPS ||
		 pcur[p] == NONE && !(vclaim[0] && vclaim[1])) ->
		/* switch out (budgeted) or in; the next VCPU may be NONE */
		if
		:: pcur[p] != NONE -> next = NONE
		:: !vclaim[0] -> next = 0
		:: !vclaim[1] -> next = 1
		fi;
		if
		:: pcur[p] != NONE -> nops++
		:: else
		fi;
		if
		:: next != NONE -> vclaim[next] = true
		:: else
		fi;
		hbusy[p] = true;
		hwl = true;
		old = pcur[p];
		if
		:: old != NONE -> vexec[old] = NONE
		:: else
		fi
	   };
		/* pmuvirt_switch(): suspend old */
		if
		:: old != NONE ->
			atomic {
				vcount[old] = vcount[old] + ELAPSED(hw[p], vstart[old]);
				vstart[old] = hw[p];
				gP[p] = NONE;
				pcur[p] = NONE;
				assert(vcount[old] == trueV[old])
			};
			vpublish(old, NONE, false);
			vclaim[old] = false
		:: else
		fi;
		/* resume next */
		if
		:: next != NONE ->
			atomic {
				vstart[next] = hw[p];
				gP[p] = next;
				pcur[p] = next
			};
			vpublish(next, p, true);
			atomic {
				hbusy[p] = false;
				hwl = false;
				vexec[next] = p
			}
		:: else ->
			atomic { hbusy[p] = false; hwl = false }
		fi
	od
}

/* The guest kernel's read of its own VCPU's value (record plus rdpmc). */
inline vread(v, val)
{
	assert(vseq[v] % 2 == 0 && vbelow[v] == vexec[v] && vridx[v]);
	val = vrcount[v] + ELAPSED(hw[vexec[v]], vrstart[v]);
	assert(val == trueV[v])
}

/*
 * Guest kernel on VCPU v: switches the thread out (budgeted) or in.  Each
 * is one step: the reader, which is the thread, cannot run in between.
 */
proctype Guest(byte v)
{
	byte val, nops;

end:	do
	:: atomic {
		VEXEC(v) && tcur[v] == 0 && nops < GOPS ->
		nops++;
		vread(v, val);
		tcount = tcount + val - tstart;
		tstart = val;
		gV[v] = false;
		tcur[v] = NONE;
		texec = NONE;
		assert(tcount == trueT);
		tseq = tseq + 2;
		tbelow = NONE;
		tridx = false;
		trcount = tcount;
		trstart = tstart;
		tclaim = false
	   }
	:: atomic {
		VEXEC(v) && tcur[v] == NONE && !tclaim ->
		tclaim = true;
		vread(v, val);
		tstart = val;
		gV[v] = true;
		tcur[v] = 0;
		tseq = tseq + 2;
		tbelow = v;
		tridx = true;
		trcount = tcount;
		trstart = tstart;
		texec = v
	   }
	od
}

#define RSTEP(x)	atomic { TEXEC -> x }
#define RCOND(c)	(TEXEC && (c))

/* The thread reads its count, as pmuvirt_shared_read() with pmuvirt_below_vcpu(). */
proctype Reader()
{
	byte s, where, cnt, st, vs, vc, vst, now, n;
	bool idx, vidx;
	short out, vout, last, lo;

	do
	:: n < NREADS ->
		lo = trueT;
again:		RSTEP(s = tseq);
#ifndef MUT_NO_ODD
		if
		:: s % 2 == 1 -> goto again
		:: else
		fi;
#endif
		RSTEP(where = tbelow; cnt = trcount; st = trstart; idx = tridx; out = cnt);
		if
		:: idx ->
			if
			:: where == NONE || where >= NV ->
				goto recheck	/* -EAGAIN / -ERANGE unless it changed */
			:: else
			fi;
vagain:			RSTEP(vs = vseq[where]);
#ifndef MUT_NO_ODD
			if
			:: vs % 2 == 1 -> goto vagain
			:: else
			fi;
#endif
			RSTEP(vc = vrcount[where]; vst = vrstart[where]; vidx = vridx[where];
			      vout = vc);
			if
			:: vidx ->
				/* rdpmc runs where the thread executes */
				RSTEP(now = hw[vexec[texec]]);
				vout = vc + ELAPSED(now, vst)
			:: else
			fi;
#ifndef MUT_NO_VRECHECK
			if
			:: RCOND(vseq[where] != vs) -> goto vagain
			:: RCOND(vseq[where] == vs)
			fi;
#endif
			out = cnt + vout - st
		:: else
		fi;
recheck:
#ifndef MUT_NO_RECHECK
		if
		:: RCOND(tseq != s) -> goto again
		:: RCOND(tseq == s)
		fi;
#endif
		atomic {
			assert(!idx || (where != NONE && where < NV));
			assert(lo <= out && out <= trueT);
			assert(out >= last);
			last = out
		};
		n++
	:: else -> break
	od
}

init {
	byte i;

	atomic {
		/* VCPU i on PCPU i, all counting; the thread on VCPU 0 */
		for (i : 0 .. NP - 1) {
			hw[i] = HALF;
			pcur[i] = i;
			gP[i] = i;
			vclaim[i] = true;
			vexec[i] = i;
			vstart[i] = HALF;
			vbelow[i] = i;
			vrstart[i] = HALF;
			vridx[i] = true;
			tcur[i] = NONE
		}
		tcur[0] = 0;
		tclaim = true;
		texec = 0;
		gV[0] = true;
		tbelow = 0;
		tridx = true;
		for (i : 0 .. NP - 1) {
			run Hyp(i)
		}
		for (i : 0 .. NV - 1) {
			run Guest(i)
		}
		run Ticker();
		run Reader()
	}
}
