/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The user-mode read protocol of pmuvirt's shared records, two levels.
 *
 * Hypervisor: VCPU contexts on PCPUs, one hardware counter per PCPU of
 * width log2(W) that raises a PMI when it wraps (and stops counting until
 * the PMI is handled).  Guest: thread contexts on VCPUs; a thread's
 * "hardware" is its VCPU's logical value.  Writers follow src/core/ctx.c:
 * sample into private state first, then publish the record (seq odd, each
 * field, seq even).  Thread 0 reads its own count as include/pmuvirt/user.h
 * does; only its rdpmc needs it to be executing (it reads the counter of the
 * PCPU it executes on); its memory reads run while it executes, or with
 * -DREMOTE_READER at any time.
 *
 * Ghost state counts every event to the context whose sample interval is
 * open when it happens.  Checked: a returned value lies between the true
 * value at the start and at the end of the read (so it equals the true
 * value at some instant), never goes backwards, and every sample the
 * writers take equals the truth.
 *
 * Mutants (-D): MUT_NO_RECHECK drops the reader's final thread seq check,
 * MUT_NO_VRECHECK the VCPU one, MUT_NO_ODD the odd checks, MUT_WRITER_EVEN
 * makes the writer publish without making seq odd.
 */

#define NP	2	/* PCPUs */
#define NV	2	/* VCPUs */
#ifndef NT
#define NT	1	/* threads (1 or 2); thread 0 reads itself */
#endif
#define W	4	/* hardware counter range (width 2) */
#define HALF	2	/* a PMI re-bases the counter to threshold (0) - HALF */
#define NONE	255

#ifndef MAXT
#define MAXT	7	/* events */
#endif
#ifndef HOPS
#define HOPS	2	/* hypervisor preemptions per PCPU */
#endif
#ifndef GOPS
#define GOPS	2	/* guest preemptions per VCPU */
#endif
#ifndef NREADS
#define NREADS	2
#endif

/*
 * One hypervisor operation and one guest operation at a time: writers of
 * one level on different CPUs touch disjoint records (a context is handed
 * over only after its switch-out completed), so interleaving them with each
 * other adds states but nothing the reader can see.  Every writer step
 * still interleaves with the reader, with events and with the other level.
 */
bool hwl, gwl;

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

/* guest: private state of each thread context */
byte tcur[NV];
bool kbusy[NV];		/* the guest kernel runs on the VCPU */
byte texec[NT];		/* VCPU the thread executes on */
bool tclaim[NT];
byte tcount[NT];
byte tstart[NT];
/* thread records */
byte tseq[NT];
byte tbelow[NT];
byte trcount[NT];
byte trstart[NT];
bool tridx[NT];

/* ghost */
byte gP[NP];		/* VCPU whose interval is open on a PCPU */
byte gV[NV];		/* thread whose interval is open on a VCPU */
byte trueV[NV];
byte trueT[NT];

#define VEXEC(v)	(vexec[v] != NONE && !hbusy[vexec[v]] && !pmi[vexec[v]])
#define TEXEC(t)	(texec[t] != NONE && !kbusy[texec[t]] && VEXEC(texec[t]))
#define ELAPSED(now, st) (((now) + W - (st)) % W)

/* An event on PCPU p. */
proctype Ticker()
{
	byte p;
end:	do
	:: atomic {
		ticks < MAXT &&
		(!pmi[0] && pcur[0] != NONE || !pmi[1] && pcur[1] != NONE) ->
		/* counters stop while the PCPU idles or a PMI is pending */
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
			:: gV[gP[p]] != NONE -> trueT[gV[gP[p]]]++
			:: else
			fi
		:: else
		fi;
		ticks++
	   }
	od
}

/* Publish VCPU v's record: below, count, start, index. */
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

/* The guest kernel publishes thread t's record; each step runs on VCPU v. */
inline tpublish(t, v, live)
{
#ifndef MUT_WRITER_EVEN
	atomic { VEXEC(v) -> tseq[t]++ };
#endif
	atomic { VEXEC(v) -> tbelow[t] = (live -> v : NONE); tridx[t] = live };
	atomic { VEXEC(v) -> trcount[t] = tcount[t]; trstart[t] = tstart[t] };
#ifndef MUT_WRITER_EVEN
	atomic { VEXEC(v) -> tseq[t]++ }
#else
	atomic { VEXEC(v) -> tseq[t] = tseq[t] + 2 }
#endif
}

/* Guest kernel on VCPU v: thread switches and migrations. */
proctype Guest(byte v)
{
	byte old, next, val, nops;

end:	do
	:: atomic {
		VEXEC(v) && !kbusy[v] && !gwl &&
		(tcur[v] != NONE && nops < GOPS ||
		 tcur[v] == NONE && !(tclaim[0] && tclaim[NT - 1])) ->
		if
		:: tcur[v] != NONE -> next = NONE
		:: !tclaim[0] -> next = 0
		:: !tclaim[NT - 1] -> next = NT - 1
		fi;
		if
		:: tcur[v] != NONE -> nops++
		:: else
		fi;
		if
		:: next != NONE -> tclaim[next] = true
		:: else
		fi;
		kbusy[v] = true;
		gwl = true;
		old = tcur[v];
		if
		:: old != NONE -> texec[old] = NONE
		:: else
		fi
	   };
		if
		:: old != NONE ->
			atomic {
				VEXEC(v) ->
				vread(v, val);
				tcount[old] = tcount[old] + val - tstart[old];
				tstart[old] = val;
				gV[v] = NONE;
				tcur[v] = NONE;
				assert(tcount[old] == trueT[old])
			};
			tpublish(old, v, false);
			tclaim[old] = false
		:: else
		fi;
		if
		:: next != NONE ->
			atomic {
				VEXEC(v) ->
				vread(v, val);
				tstart[next] = val;
				gV[v] = next;
				tcur[v] = next
			};
			tpublish(next, v, true);
			atomic { VEXEC(v) -> kbusy[v] = false; gwl = false; texec[next] = v }
		:: else ->
			atomic { VEXEC(v) -> kbusy[v] = false; gwl = false }
		fi
	od
}

/*
 * Reader steps: by default each runs only while thread 0 executes (a thread
 * reading its own record); with -DREMOTE_READER its memory reads may also
 * happen at any other time (a stronger adversary: odd seq is then seen).
 */
#ifdef REMOTE_READER
#define RGUARD
#define RCOND(c)	(c)
#else
#define RGUARD	TEXEC(0) ->
#define RCOND(c)	(TEXEC(0) && (c))
#endif
#define RSTEP(x)	atomic { RGUARD x }

/* Thread 0 reads its count, as pmuvirt_shared_read() with pmuvirt_below_vcpu(). */
proctype Reader()
{
	byte s, where, cnt, st, vs, vc, vst, now, n;
	bool idx, vidx;
	short out, vout, last, lo;

	do
	:: n < NREADS ->
		lo = trueT[0];
again:		RSTEP(s = tseq[0]);
#ifndef MUT_NO_ODD
		if
		:: s % 2 == 1 -> goto again
		:: else
		fi;
#endif
		atomic {
			RGUARD
			where = tbelow[0];
			cnt = trcount[0];
			st = trstart[0];
			idx = tridx[0];
			out = cnt
		};
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
			atomic {
				RGUARD
				vc = vrcount[where];
				vst = vrstart[where];
				vidx = vridx[where];
				vout = vc
			};
			if
			:: vidx ->
				/* rdpmc runs where the thread executes */
				atomic { TEXEC(0) -> now = hw[vexec[texec[0]]] };
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
		:: RCOND(tseq[0] != s) -> goto again
		:: RCOND(tseq[0] == s)
		fi;
#endif
		atomic {
			/* an error return is only allowed for a torn record */
			assert(!idx || (where != NONE && where < NV));
#ifdef REMOTE_READER
			/*
			 * A reader that is not the thread may see a record
			 * whose publication lags the writer's sample: stale,
			 * but never ahead of the truth and never backwards.
			 */
			assert(out <= trueT[0]);
#else
			assert(lo <= out && out <= trueT[0]);
#endif
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
		for (i : 0 .. NP - 1) {
			hw[i] = HALF;
			pcur[i] = NONE;
			gP[i] = NONE
		}
		for (i : 0 .. NV - 1) {
			vexec[i] = NONE;
			tcur[i] = NONE;
			gV[i] = NONE;
			vbelow[i] = NONE
		}
		for (i : 0 .. NT - 1) {
			texec[i] = NONE;
			tbelow[i] = NONE
		}
		/* VCPU i on PCPU i, thread i on VCPU i, all counting */
		for (i : 0 .. NV - 1) {
			pcur[i] = i; vclaim[i] = true; vexec[i] = i;
			vstart[i] = HALF; gP[i] = i;
			vbelow[i] = i; vrstart[i] = HALF; vridx[i] = true
		}
		for (i : 0 .. NT - 1) {
			tcur[i] = i; tclaim[i] = true; texec[i] = i;
			gV[i] = i;
			tbelow[i] = i; tridx[i] = true
		}
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
