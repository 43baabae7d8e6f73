// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * How many sample records per second the profile tools handle, on this
 * machine (docs/performance.md):
 *
 *  drain:  pmuvirt-record's work per record: read from a sample ring (the
 *          user reader of include/pmuvirt/user.h; the core's writer fills
 *          it) and append to the file (profile-file.c), in batches of 256;
 *  parse:  pmuvirt_prof_parse() over the file, every field checked;
 *  report: pmuvirt-report's work: load, resolve every sample (libdw, on
 *          this program's own functions; a cache of recent addresses), and
 *          print the flat profile (to /dev/null).
 *
 * usage: pmuvirt-bench-profile [RECORDS]   (default 1000000); medians of 5.
 * Each measured part is a function of its own (drain_ring, parse_once,
 * report_once) for valgrind --tool=callgrind --toggle-collect=NAME.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/user.h>
#include "report.h"
#include "bench_util.h"

#define RUNS	5
#define BATCH	256
#define RING	2048	/* records of a 128-page ring */

/* Two functions of this program for the samples to land in (3:1). */
__attribute__((noinline)) void bench_fn_a(void)
{
	__asm__ __volatile__("nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop" ::: "memory");
}

__attribute__((noinline)) void bench_fn_b(void)
{
	__asm__ __volatile__("nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop" ::: "memory");
}

static double now(void)
{
	return (double)bench_now_ns() * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_d);
	return v[RUNS / 2];
}

/* pmuvirt-record's part: the ring's records into the file; returns how many. */
__attribute__((noinline)) uint64_t drain_ring(struct pmuvirt_sample_reader *r,
					      struct pmuvirt_prof_writer *w,
					      const struct pmuvirt_prof_chunk *c)
{
	static struct pmuvirt_sample out[BATCH];
	uint64_t done = 0;
	int k;

	while ((k = pmuvirt_sample_read(r, out, BATCH)) > 0) {
		pmuvirt_prof_write_samples(w, c, out, NULL, (unsigned int)k);
		done += (uint64_t)k;
	}
	pmuvirt_sample_publish(r);
	return done;
}

/* The file of @n records through the ring, as pmuvirt-record writes it; returns seconds. */
static double drain(uint64_t n, char **buf, size_t *len)
{
	/* pmuvirt-record's default records: IP, time, mode (40 bytes) */
	static const struct pmuvirt_sample_format fmt = {
		PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_TIME | PMUVIRT_SAMPLE_FMT_MODE, 0, 0 };
	size_t bytes = pmuvirt_sample_ring_bytes(RING, 4096, &fmt);
	void *mem = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
	struct pmuvirt_sample rec;
	struct pmuvirt_prof_chunk c[2] = { { 1000, 1001, 0 }, { 1000, 1002, 0 } };
	struct pmuvirt_prof_writer w;
	struct pmuvirt_sample_writer sw;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_prof_info info;
	char *maps = NULL;
	size_t maps_len = 0;
	uint64_t i, done = 0;
	double total = 0, t;
	size_t cap;
	FILE *f, *m;
	int ch, k;

	if (!mem || pmuvirt_sample_init(&sw, mem, bytes, RING, 4096, &fmt) ||
	    pmuvirt_sample_reader_init(&r, mem, bytes)) {
		fprintf(stderr, "pmuvirt-bench-profile: ring\n");
		exit(1);
	}
	/*
	 * The file goes to memory allocated and touched beforehand: a stream
	 * that grows (open_memstream()) would time its reallocations, which
	 * move tens of MiB at a time, not the drain.
	 */
	cap = (size_t)n * (PMUVIRT_PROF_RECORD_BYTES + 8) + (4u << 20);
	*buf = malloc(cap);
	if (!*buf) {
		fprintf(stderr, "pmuvirt-bench-profile: no memory for the file\n");
		exit(1);
	}
	memset(*buf, 0, cap);
	f = fmemopen(*buf, cap, "w");
	m = open_memstream(&maps, &maps_len);
	{
		FILE *self = fopen("/proc/self/maps", "r");

		while (self && (ch = fgetc(self)) != EOF)
			fputc(ch, m);
		if (self)
			fclose(self);
		fclose(m);
	}
	memset(&info, 0, sizeof(info));
	info.period = 100000;
	info.sample_format = fmt.format;
	strcpy(info.events, "instructions");
	strcpy(info.command, "bench");
	pmuvirt_prof_write_header(&w, f);
	pmuvirt_prof_write_info(&w, &info);
	pmuvirt_prof_write_maps(&w, 1000, 0, maps, maps_len);
	free(maps);
	memset(&rec, 0, sizeof(rec));
	rec.flags = PMUVIRT_SAMPLE_USER;
	rec.weight = 1;
	for (i = 0; done < n; i++) {
		/* two threads' rings, one after the other, each filled then drained */
		rec.tid = c[i & 1].tid;
		for (k = 0; k < RING && done + (uint64_t)k < n; k++) {
			rec.ip = (uint64_t)(uintptr_t)((k & 3) == 3 ? bench_fn_b : bench_fn_a) + (k & 7);
			rec.time = done + (uint64_t)k;
			pmuvirt_sample_write(&sw, &rec, NULL);
		}
		c[i & 1].tick = (uint32_t)(i / 2);
		t = now();
		done += drain_ring(&r, &w, &c[i & 1]);
		total += now() - t;	/* the reads and writes only, not the filling */
	}
	pmuvirt_prof_write_end(&w, &(struct pmuvirt_prof_end){ .samples = done, .threads = 2 });
	fflush(f);
	*len = (size_t)ftell(f);
	if (w.err || *len + 1 >= cap) {
		fprintf(stderr, "pmuvirt-bench-profile: the file did not fit in memory\n");
		exit(1);
	}
	fclose(f);
	free(mem);
	return total;
}

static int nop_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s,
		      const uint64_t *frames)
{
	(*(uint64_t *)arg)++;
	return 0;
}

/* pmuvirt-report's check of the file alone; returns the records seen. */
__attribute__((noinline)) uint64_t parse_once(const char *buf, size_t len)
{
	static const struct pmuvirt_prof_ops ops = { .sample = nop_sample };
	struct pmuvirt_prof_error err;
	uint64_t got = 0;

	if (pmuvirt_prof_parse(buf, len, 0, &ops, &got, &err)) {
		fprintf(stderr, "pmuvirt-bench-profile: parse: %s\n", err.what);
		exit(1);
	}
	return got;
}

/* pmuvirt-report's whole work (its output to @f); returns the records. */
__attribute__((noinline)) uint64_t report_once(const char *buf, size_t len, FILE *f)
{
	struct pmuvirt_prof_error err;
	struct pmuvirt_profile *p;
	uint64_t got, weight;
	int ret;

	p = pmuvirt_profile_load(buf, len, 0, &err, &ret);
	if (!p || pmuvirt_profile_resolve(p, NULL, 0)) {
		fprintf(stderr, "pmuvirt-bench-profile: report: %d\n", ret);
		exit(1);
	}
	pmuvirt_profile_print_flat(p, f);
	got = pmuvirt_profile_samples(p, &weight);
	pmuvirt_profile_free(p);
	return got;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	double td[RUNS], tp[RUNS], tr[RUNS];
	char *buf = NULL;
	size_t len = 0;
	FILE *null = fopen("/dev/null", "w");
	int i;

	for (i = 0; i < RUNS; i++) {
		free(buf);
		buf = NULL;
		td[i] = drain(n, &buf, &len);
	}
	for (i = 0; i < RUNS; i++) {
		double t = now();

		if (parse_once(buf, len) != n)
			return 1;
		tp[i] = now() - t;
	}
	report_once(buf, len, stdout);	/* bench_fn_a 75%, bench_fn_b 25% */
	for (i = 0; i < RUNS; i++) {
		double t = now();

		if (report_once(buf, len, null) != n)
			return 1;
		tr[i] = now() - t;
	}
	printf("\n%llu records (2 threads), file %.1f MiB\n", (unsigned long long)n,
	       len / 1048576.0);
	printf("drain  (ring read + file write):          %8.2f M records/s\n",
	       n / median(td) / 1e6);
	printf("parse  (sections and fields checked):     %8.2f M records/s\n",
	       n / median(tp) / 1e6);
	printf("report (load, resolve with libdw, print): %8.2f M records/s\n",
	       n / median(tr) / 1e6);
	free(buf);
	fclose(null);
	return 0;
}
