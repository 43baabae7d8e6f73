/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Call chains by frame pointers, for a host's sample hook: the host says
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
