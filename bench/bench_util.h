/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* What the benchmarks share: the clock and the sort behind their medians. */
#ifndef PMUVIRT_BENCH_UTIL_H
#define PMUVIRT_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts the @n values of @v and returns the middle one. */
static inline uint64_t bench_median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	return v[n / 2];
}

#endif
