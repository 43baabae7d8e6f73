/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Call chains by frame pointers (x86-64, AArch64) and by the back chain
 * (64-bit POWER), for a host's sample hook: the host says
 * how to read the stack (user memory, a guest's memory), the walk is the
 * same everywhere and bounded by the stack's own addresses.
 */
#include "pmuvirt_arch.h"

unsigned int pmuvirt_chain_fp(uint64_t fp, uint64_t sp, uint64_t limit,
			      pmuvirt_chain_read_fn read, void *arg, uint64_t *frames,
			      unsigned int max)
{
	uint64_t frame[2];	/* saved frame pointer, return address */
	unsigned int n = 0;

	if (limit < sizeof(frame))
		return 0;
	while (n < max) {
		/* each frame above the last: the walk ends, whatever the stack holds */
		if (fp < sp || (fp & 7) || fp > limit - sizeof(frame))
			break;
		if (read(arg, fp, frame, sizeof(frame)) || !frame[1])
			break;
		frames[n++] = frame[1];
		sp = fp + sizeof(frame);
		fp = frame[0];
	}
	return n;
}

/*
 * 64-bit POWER keeps no frame pointer: r1 points at the newest frame,
 * whose first doubleword is the back chain (the caller's r1), and a
 * function saves its return address at 16 in its caller's frame.
 */
#define BACKCHAIN_ALIGN		16	/* the ABIs keep r1 quadword aligned */

unsigned int pmuvirt_chain_backchain(uint64_t ip, uint64_t sp, uint64_t lr, uint64_t limit,
				     pmuvirt_chain_read_fn read, void *arg, uint64_t *frames,
				     unsigned int max)
{
	uint64_t hdr[3];	/* back chain, CR save, LR save */
	uint64_t fp = sp, next;
	unsigned int n = 0;
	int first = 1;

	if (!max)
		return 0;
	/* LR at the IP was set by the instruction before (bcl to the next one, scv) */
	if (lr && lr != ip)
		frames[n++] = lr;
	if (n == max || limit < sizeof(hdr) || (fp & (BACKCHAIN_ALIGN - 1)) ||
	    fp > limit - sizeof(hdr) || read(arg, fp, hdr, sizeof(hdr)))
		return n;
	while (n < max) {
		/* each frame above the last: the walk ends, whatever the stack holds */
		next = hdr[0];
		if (next <= fp || (next & (BACKCHAIN_ALIGN - 1)) || next > limit - sizeof(hdr))
			break;
		if (read(arg, next, hdr, sizeof(hdr)))
			break;
		fp = next;
		/*
		 * The first slot is the interrupted function's own return
		 * address when it saved LR there (a repeat of @lr, dropped), or
		 * stale when it made a frame without saving LR (kept: the walk
		 * cannot tell that from a leaf without a frame, whose first
		 * slot is its caller's return address); a 0 there is such a
		 * slot never written, not the end.
		 */
		if (first) {
			first = 0;
			if (hdr[2] == lr || !hdr[2])
				continue;
		}
		if (!hdr[2])
			break;
		frames[n++] = hdr[2];
	}
	return n;
}
