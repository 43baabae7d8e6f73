// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The profile file (tools/pmuvirt-record/profile-file.c): what the writer
 * writes the reader gives back field for field, call chains included;
 * every truncation and every corruption of a field the reader checks is
 * refused with a reason and an offset; the writer refuses what the format
 * cannot hold and clamps chains to INFO's depth.  A Xen session's file
 * (domains, rings, records of Xen and of domains not profiled) comes back
 * as written; version 2 files are still read, with version 2's rules.
 *
 * "test_profile_file seeds DIR" writes the fuzzer's seed files instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "profile-file.h"

static const char maps_text[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 fd:01 1234 /usr/bin/prog\n"
	"55d0c0a01000-55d0c0a02000 r-xp 00001000 fd:01 1234 /usr/bin/prog\n";

/* A file in memory; *len receives its size (free() the result). */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct pmuvirt_prof_writer w;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	assert_int_equal(pmuvirt_prof_write_header(&m->w, m->f), 0);
}

static void mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
}

static void info_make(struct pmuvirt_prof_info *info)
{
	memset(info, 0, sizeof(*info));
	info->period = 20000;
	info->start_ns = 1700000000123456789ull;
	info->event = PMUVIRT_EV_INSTRUCTIONS;
	info->ctr_flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_SAMPLE | PMUVIRT_CTR_SAMPLE_VALUES;
	info->nr_counters = 2;
	info->sample_pages = 128;
	info->interval_ms = 20;
	info->sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT | PMUVIRT_SAMPLE_FMT_CHAIN;
	info->chain_depth = 16;
	strcpy(info->events, "instructions:u,tsc");
	strcpy(info->command, "./prog --flag 'two words'");
	strcpy(info->release, "6.1.0-56-amd64");
}

/*
 * Record @i and its chain (within full_file()'s depth of 16): every third
 * none, every third a kernel IP with kernel and user frames, every third a
 * user IP with user frames (none for @i = 2).
 */
static void rec_make(struct pmuvirt_sample *s, struct pmuvirt_sample_chain *ch, unsigned int i)
{
	unsigned int v;

	memset(s, 0, sizeof(*s));
	s->ip = 0x55d0c0a01000ull + 8 * i;
	s->time = 1000000ull * i + 7;
	s->tid = 101 + (i & 1);
	s->cpu = i % 3;
	s->flags = PMUVIRT_SAMPLE_USER;
	s->counter = i % 2;
	s->weight = 1 + i % 4;
	s->nr_values = (uint8_t)(i % 17);
	if (s->nr_values)
		s->flags |= PMUVIRT_SAMPLE_VALUES;
	for (v = 0; v < s->nr_values; v++)
		s->value[v] = ((uint64_t)i << 32) | v;
	if (i % 3 == 1) {
		s->ip = 0xffffffff81000000ull + 16 * i;
		s->flags &= (uint16_t)~PMUVIRT_SAMPLE_USER;
		s->nr_kernel = (uint16_t)(1 + i % 5);
		s->nr_user = (uint16_t)(1 + i % 7);
	} else if (i % 3 == 2) {
		s->nr_user = (uint16_t)(i % 17);
	}
	memset(ch, 0, sizeof(*ch));
	for (v = 0; v < s->nr_kernel; v++)
		ch->frame[v] = 0xffffffff81100000ull + 0x100 * i + v;
	for (v = 0; v < s->nr_user; v++)
		ch->frame[s->nr_kernel + v] = 0x55d0c0a01800ull + 0x10 * i + v;
}

static const struct pmuvirt_prof_thread thread_a = {
	.tid = 101, .pid = 100, .flags = PMUVIRT_PROF_THREAD_REPORTED, .lost = 3,
	.records = 40, .weight = 100, .skipped = 5, .foreign = 0, .comm = "worker-a",
};
static const struct pmuvirt_prof_end end_a = {
	.samples = 40, .weight = 100, .lost = 8, .threads = 1,
	.flags = PMUVIRT_PROF_END_INCOMPLETE, .status = 0x100, .rings_dropped = 2,
};

#define NR_RECS	40
#define NR_FRAMES	64	/* records whose frames struct got keeps whole */

/* Offsets of the sections of the file full_file() writes. */
struct layout {
	size_t info, maps, samples, thread, end;
};

static void full_file(struct mem *m, struct layout *l)
{
	static struct pmuvirt_sample_chain chains[NR_RECS];
	struct pmuvirt_prof_info info;
	struct pmuvirt_sample recs[NR_RECS];
	struct pmuvirt_prof_chunk c = { 100, 101, 7 };
	unsigned int i;

	mem_open(m);
	info_make(&info);
	for (i = 0; i < NR_RECS; i++)
		rec_make(&recs[i], &chains[i], i);
	l->info = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_info(&m->w, &info), 0);
	l->maps = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_maps(&m->w, 100, 6, maps_text, strlen(maps_text)), 0);
	l->samples = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_samples(&m->w, &c, recs, chains, NR_RECS), 0);
	l->thread = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_thread(&m->w, &thread_a), 0);
	l->end = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_end(&m->w, &end_a), 0);
	mem_close(m);
	assert_int_equal(m->len, m->w.bytes);
}

/* What the reader gave back. */
struct got {
	int infos, nr_maps, threads, ends, domains, rings;
	struct pmuvirt_prof_domain domain;
	struct pmuvirt_prof_ring ring;
	struct pmuvirt_prof_info info;
	uint32_t maps_pid, maps_tick;
	char maps[512];
	size_t maps_len;
	unsigned int nr;
	struct pmuvirt_prof_chunk chunk[2 * 4096 + 10];
	struct pmuvirt_sample rec[2 * 4096 + 10];
	uint64_t frame_sum[2 * 4096 + 10];	/* each record's frames, weighted by position */
	uint64_t frame[NR_FRAMES][PMUVIRT_CHAIN_MAX];	/* the first records' frames */
	struct pmuvirt_prof_thread thread;
	struct pmuvirt_prof_end end;
	int stop_at;		/* a callback's return at this record */
};

static int g_info(void *arg, const struct pmuvirt_prof_info *info)
{
	struct got *g = arg;

	g->infos++;
	g->info = *info;
	return 0;
}

static int g_maps(void *arg, uint32_t pid, uint32_t tick, const char *text, size_t len)
{
	struct got *g = arg;

	g->nr_maps++;
	g->maps_pid = pid;
	g->maps_tick = tick;
	g->maps_len = len;
	memcpy(g->maps, text, len < sizeof(g->maps) ? len : sizeof(g->maps));
	return 0;
}

static uint64_t frame_sum(const uint64_t *frames, unsigned int n)
{
	uint64_t sum = 0;
	unsigned int k;

	for (k = 0; k < n; k++)
		sum += frames[k] * (k + 1);
	return sum;
}

static int g_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s,
		    const uint64_t *frames)
{
	struct got *g = arg;
	unsigned int nf = s->nr_kernel + s->nr_user;

	if (g->stop_at && (int)g->nr == g->stop_at)
		return 42;
	assert_non_null(frames);
	assert_true(nf <= PMUVIRT_CHAIN_MAX);
	if (g->nr < sizeof(g->rec) / sizeof(g->rec[0])) {
		g->chunk[g->nr] = *c;
		g->rec[g->nr] = *s;
		g->frame_sum[g->nr] = frame_sum(frames, nf);
	}
	if (g->nr < NR_FRAMES)
		memcpy(g->frame[g->nr], frames, nf * sizeof(*frames));
	g->nr++;
	return 0;
}

static int g_thread(void *arg, const struct pmuvirt_prof_thread *t)
{
	struct got *g = arg;

	g->threads++;
	g->thread = *t;
	return 0;
}

static int g_end(void *arg, const struct pmuvirt_prof_end *e)
{
	struct got *g = arg;

	g->ends++;
	g->end = *e;
	return 0;
}

static int g_domain(void *arg, const struct pmuvirt_prof_domain *d)
{
	struct got *g = arg;

	g->domains++;
	g->domain = *d;
	return 0;
}

static int g_ring(void *arg, const struct pmuvirt_prof_ring *r)
{
	struct got *g = arg;

	g->rings++;
	g->ring = *r;
	return 0;
}

static const struct pmuvirt_prof_ops ops = {
	.info = g_info, .maps = g_maps, .sample = g_sample, .thread = g_thread, .end = g_end,
	.domain = g_domain, .ring = g_ring,
};

static struct got *got_new(void)
{
	struct got *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	return g;
}

static int parse(const void *buf, size_t len, unsigned int flags, struct got *g,
		 struct pmuvirt_prof_error *err)
{
	memset(g, 0, offsetof(struct got, stop_at));
	return pmuvirt_prof_parse(buf, len, flags, &ops, g, err);
}

static void test_roundtrip(void **state)
{
	struct pmuvirt_prof_info want;
	struct pmuvirt_prof_error err;
	struct got *g = got_new();
	struct layout l;
	struct mem m;
	unsigned int i, v;

	(void)state;
	full_file(&m, &l);
	assert_int_equal(parse(m.buf, m.len, 0, g, &err), 0);
	info_make(&want);
	assert_int_equal(g->infos, 1);
	assert_true(g->info.period == want.period && g->info.start_ns == want.start_ns);
	assert_int_equal(g->info.event, want.event);
	assert_int_equal(g->info.ctr_flags, want.ctr_flags);
	assert_int_equal(g->info.nr_counters, 2);
	assert_int_equal(g->info.sample_pages, 128);
	assert_int_equal(g->info.interval_ms, 20);
	assert_int_equal(g->info.sample_format, want.sample_format);
	assert_int_equal(g->info.chain_depth, 16);
	assert_string_equal(g->info.events, want.events);
	assert_string_equal(g->info.command, want.command);
	assert_string_equal(g->info.release, want.release);
	assert_int_equal(g->nr_maps, 1);
	assert_int_equal(g->maps_pid, 100);
	assert_int_equal(g->maps_tick, 6);
	assert_int_equal(g->maps_len, strlen(maps_text));
	assert_memory_equal(g->maps, maps_text, strlen(maps_text));
	assert_int_equal(g->nr, NR_RECS);
	for (i = 0; i < NR_RECS; i++) {
		struct pmuvirt_sample_chain ch;
		struct pmuvirt_sample s;

		rec_make(&s, &ch, i);
		assert_int_equal(g->chunk[i].pid, 100);
		assert_int_equal(g->chunk[i].tid, 101);
		assert_int_equal(g->chunk[i].tick, 7);
		assert_true(g->rec[i].ip == s.ip && g->rec[i].time == s.time);
		assert_int_equal(g->rec[i].tid, s.tid);
		assert_int_equal(g->rec[i].cpu, s.cpu);
		assert_int_equal(g->rec[i].flags, s.flags);
		assert_int_equal(g->rec[i].counter, s.counter);
		assert_int_equal(g->rec[i].weight, s.weight);
		assert_int_equal(g->rec[i].nr_values, s.nr_values > 16 ? 16 : s.nr_values);
		for (v = 0; v < g->rec[i].nr_values; v++)
			assert_true(g->rec[i].value[v] == s.value[v]);
		assert_int_equal(g->rec[i].nr_kernel, s.nr_kernel);
		assert_int_equal(g->rec[i].nr_user, s.nr_user);
		assert_memory_equal(g->frame[i], ch.frame,
				    (s.nr_kernel + s.nr_user) * sizeof(ch.frame[0]));
	}
	/* kernel and user frames, with values and without */
	assert_true(g->rec[4].nr_kernel && g->rec[4].nr_user && g->rec[4].nr_values);
	assert_true(g->rec[34].nr_kernel && g->rec[34].nr_user && !g->rec[34].nr_values);
	assert_true(!g->rec[5].nr_kernel && g->rec[5].nr_user && g->rec[5].nr_values);
	assert_int_equal(g->threads, 1);
	assert_memory_equal(&g->thread, &thread_a, sizeof(thread_a));
	assert_int_equal(g->ends, 1);
	assert_memory_equal(&g->end, &end_a, sizeof(end_a));
	/* a callback's return stops the parse and comes back */
	g->stop_at = 5;
	g->nr = 0;
	assert_int_equal(pmuvirt_prof_parse(m.buf, m.len, 0, &ops, g, &err), 42);
	free(m.buf);
	free(g);
}

/* Many records: split into sections of at most 4096, order kept, values and chains clamped. */
static void test_many_records(void **state)
{
	unsigned int i, k, n = 2 * 4096 + 10;
	struct pmuvirt_sample *recs = calloc(n, sizeof(*recs));
	struct pmuvirt_sample_chain *chains = calloc(n, sizeof(*chains));
	struct pmuvirt_prof_chunk c = { 5, 6, 1 };
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_error err;
	struct got *g = got_new();
	struct mem m;

	(void)state;
	assert_non_null(recs);
	assert_non_null(chains);
	for (i = 0; i < n; i++) {
		recs[i].ip = i;
		recs[i].weight = 1;
		recs[i].nr_values = 200;	/* the writer clamps to 16 */
		recs[i].flags = PMUVIRT_SAMPLE_VALUES;
		recs[i].nr_kernel = 100;	/* and the frames to 127: 100 + 27 */
		recs[i].nr_user = 100;
		for (k = 0; k < PMUVIRT_CHAIN_MAX; k++)
			chains[i].frame[k] = (uint64_t)i << 20 | k;
	}
	mem_open(&m);
	info_make(&info);
	info.chain_depth = PMUVIRT_CHAIN_MAX;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), 0);
	assert_int_equal(pmuvirt_prof_write_samples(&m.w, &c, recs, chains, n), 0);
	assert_int_equal(pmuvirt_prof_write_end(&m.w, &end_a), 0);
	mem_close(&m);
	assert_int_equal(parse(m.buf, m.len, 0, g, &err), 0);
	assert_int_equal(g->nr, n);
	for (i = 0; i < n; i++) {
		assert_true(g->rec[i].ip == i);
		assert_int_equal(g->rec[i].nr_values, 16);
		assert_int_equal(g->rec[i].nr_kernel, 100);
		assert_int_equal(g->rec[i].nr_user, 27);
		assert_true(g->frame_sum[i] == frame_sum(chains[i].frame, PMUVIRT_CHAIN_MAX));
	}
	/*
	 * file header, INFO (section header, 48 bytes, three strings with
	 * their lengths), three SAMPLES sections (4096, 4096, 10 records of 40
	 * bytes, 16 values and 127 frames each), END
	 */
	assert_int_equal(m.len, 16 + (16 + 48 + 4 + strlen(info.events) + 4 + strlen(info.command) +
				      4 + strlen(info.release)) +
			 3 * (16 + 16) + n * (40 + 8 * 16 + 8 * 127) + (16 + 40));
	free(m.buf);
	free(chains);
	free(recs);
	free(g);
}

/*
 * Chains clamped to INFO's depth (kernel frames first, then the innermost
 * user ones), none without @chains whatever the counts, and a record whose
 * frames run past its section refused.
 */
static void test_chains(void **state)
{
	struct pmuvirt_sample_chain ch[3];
	struct pmuvirt_prof_chunk c = { 5, 6, 1 };
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_error err;
	struct pmuvirt_sample recs[3];
	struct got *g = got_new();
	unsigned int i, k;
	size_t last;
	struct mem m;

	(void)state;
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 3; i++)
		for (k = 0; k < PMUVIRT_CHAIN_MAX; k++)
			ch[i].frame[k] = 0x1000ull * (i + 1) + k;
	/* a kernel IP with 2 values, 2 kernel and 3 user frames */
	recs[0].ip = 0xffffffff81000000ull;
	recs[0].flags = PMUVIRT_SAMPLE_VALUES;
	recs[0].nr_values = 2;
	recs[0].value[0] = 11;
	recs[0].value[1] = 22;
	recs[0].nr_kernel = 2;
	recs[0].nr_user = 3;
	/* a user IP with 9 user frames; one without any */
	recs[1].ip = 0x401000;
	recs[1].flags = PMUVIRT_SAMPLE_USER;
	recs[1].nr_user = 9;
	recs[2].ip = 0x401100;
	recs[2].flags = PMUVIRT_SAMPLE_USER;
	mem_open(&m);
	info_make(&info);
	info.chain_depth = 4;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), 0);
	assert_int_equal(pmuvirt_prof_write_samples(&m.w, &c, recs, ch, 3), 0);
	last = m.w.bytes - (PMUVIRT_PROF_RECORD_BYTES);
	assert_int_equal(pmuvirt_prof_write_samples(&m.w, &c, recs, NULL, 3), 0);
	assert_int_equal(pmuvirt_prof_write_end(&m.w, &end_a), 0);
	mem_close(&m);
	assert_int_equal(parse(m.buf, m.len, 0, g, &err), 0);
	assert_int_equal(g->nr, 6);
	assert_int_equal(g->rec[0].nr_kernel, 2);
	assert_int_equal(g->rec[0].nr_user, 2);
	assert_int_equal(g->rec[0].nr_values, 2);
	assert_true(g->rec[0].value[0] == 11 && g->rec[0].value[1] == 22);
	assert_memory_equal(g->frame[0], ch[0].frame, 4 * sizeof(uint64_t));
	assert_int_equal(g->rec[1].nr_kernel, 0);
	assert_int_equal(g->rec[1].nr_user, 4);
	assert_memory_equal(g->frame[1], ch[1].frame, 4 * sizeof(uint64_t));
	assert_int_equal(g->rec[2].nr_kernel + g->rec[2].nr_user, 0);
	for (i = 3; i < 6; i++)
		assert_int_equal(g->rec[i].nr_kernel + g->rec[i].nr_user, 0);
	assert_int_equal(g->rec[3].nr_values, 2);

	/* the last record of the first SAMPLES section claims a frame it does not have */
	assert_int_equal(m.buf[last + 34], 0);
	m.buf[last + 34] = 1;
	assert_int_equal(parse(m.buf, m.len, 0, g, &err), -EINVAL);
	assert_string_equal(err.what, "SAMPLES record frames cut short");
	assert_int_equal(err.offset, last + PMUVIRT_PROF_RECORD_BYTES);
	free(m.buf);
	free(g);
}

/* Every cut of the file is refused, or read up to a section boundary when asked. */
static void test_truncation(void **state)
{
	struct pmuvirt_prof_error err;
	struct got *g = got_new();
	struct layout l;
	struct mem m;
	size_t cut;

	(void)state;
	full_file(&m, &l);
	for (cut = 0; cut < m.len; cut++) {
		int boundary = cut == l.maps || cut == l.samples || cut == l.thread || cut == l.end;
		int ret = parse(m.buf, cut, 0, g, &err);

		assert_non_null(err.what);
		assert_true(err.offset <= cut);
		assert_int_equal(g->ends, 0);
		if (boundary) {
			assert_int_equal(ret, -ENODATA);
			assert_int_equal(parse(m.buf, cut, PMUVIRT_PROF_PARSE_NO_END, g, &err), 0);
		} else {
			assert_int_equal(ret, cut == l.info ? -ENODATA : -EINVAL);
			assert_int_equal(parse(m.buf, cut, PMUVIRT_PROF_PARSE_NO_END, g, &err),
					 cut == l.info ? 0 : -EINVAL);
		}
	}
	free(m.buf);
	free(g);
}

static void put32(char *p, uint32_t v)
{
	memcpy(p, &v, 4);	/* the tests run little-endian */
}

static void put64(char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put16(char *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* One corruption of full_file()'s bytes: the result and the reason. */
static void corrupt(void (*change)(char *buf, size_t *len, const struct layout *l), int expect,
		    const char *reason)
{
	struct pmuvirt_prof_error err;
	struct got *g = got_new();
	struct layout l;
	struct mem m;
	size_t len;
	char *buf;

	full_file(&m, &l);
	buf = malloc(m.len + 64);
	assert_non_null(buf);
	memcpy(buf, m.buf, m.len);
	len = m.len;
	change(buf, &len, &l);
	assert_int_equal(parse(buf, len, 0, g, &err), expect);
	if (reason && (!err.what || !strstr(err.what, reason)))
		fail_msg("expected \"%s\", got \"%s\"", reason, err.what ? err.what : "(none)");
	if (expect)
		assert_int_equal(g->ends, 0);
	free(buf);
	free(m.buf);
	free(g);
}

#define INFO_STR(l)	((l)->info + 16 + 48)	/* the event list's length */
#define SAMPLES_BODY(l)	((l)->samples + 16)
#define REC0(l)		(SAMPLES_BODY(l) + 16)

static void c_magic(char *b, size_t *n, const struct layout *l) { b[3] ^= 1; }
static void c_version(char *b, size_t *n, const struct layout *l) { put32(b + 8, 1); }
static void c_hdr_size(char *b, size_t *n, const struct layout *l) { put32(b + 12, 24); }
static void c_reserved(char *b, size_t *n, const struct layout *l) { put32(b + l->maps + 4, 1); }
static void c_huge(char *b, size_t *n, const struct layout *l) { put64(b + l->maps + 8, 1ull << 40); }
static void c_oversize(char *b, size_t *n, const struct layout *l)
{
	put64(b + l->end + 8, 41);
}
static void c_not_info(char *b, size_t *n, const struct layout *l) { put32(b + l->info, 2); }
static void c_two_info(char *b, size_t *n, const struct layout *l)
{
	memcpy(b + l->maps, b + l->info, 16);	/* a second INFO header where MAPS was */
}
static void c_info_flags(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 36, 4); }
static void c_info_xen(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 36, 1); }
static void c_info_active(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 36, 2); }
static void c_v2(char *b, size_t *n, const struct layout *l) { put32(b + 8, 2); }
static void c_v2_flags(char *b, size_t *n, const struct layout *l)
{
	put32(b + 8, 2);
	put32(b + l->info + 16 + 36, 1);
}
static void c_domain_here(char *b, size_t *n, const struct layout *l)
{
	put32(b + l->thread, PMUVIRT_PROF_DOMAIN);
}
static void c_info_counters(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 24, 17); }
static void c_info_format(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 40, 0x3f); }
static void c_info_depth(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 44, 128); }
static void c_info_nodepth(char *b, size_t *n, const struct layout *l) { put32(b + l->info + 16 + 44, 0); }
static void c_info_nochain(char *b, size_t *n, const struct layout *l)
{
	put32(b + l->info + 16 + 40, PMUVIRT_SAMPLE_FMT_DEFAULT);
}
static void c_info_nul(char *b, size_t *n, const struct layout *l) { b[INFO_STR(l) + 4 + 2] = 0; }
static void c_info_long(char *b, size_t *n, const struct layout *l) { put32(b + INFO_STR(l), 5000); }
static void c_info_len(char *b, size_t *n, const struct layout *l) { put32(b + INFO_STR(l), 200); }
static void c_count_big(char *b, size_t *n, const struct layout *l) { put32(b + SAMPLES_BODY(l) + 12, 0xffffffffu); }
static void c_count_small(char *b, size_t *n, const struct layout *l) { put32(b + SAMPLES_BODY(l) + 12, NR_RECS - 1); }
static void c_rec_flags(char *b, size_t *n, const struct layout *l) { b[REC0(l) + 24] |= 4; }
static void c_rec_counter(char *b, size_t *n, const struct layout *l) { b[REC0(l) + 26] = 16; }
static void c_rec_values(char *b, size_t *n, const struct layout *l) { b[REC0(l) + 27] = 17; }
static void c_rec_noflag(char *b, size_t *n, const struct layout *l) { b[REC0(l) + 27] = 1; }
static void c_rec_reserved(char *b, size_t *n, const struct layout *l)
{
	put32(b + 8, 2);	/* version 2: no domain */
	b[REC0(l) + 39] = 1;
}
static void c_rec_frames(char *b, size_t *n, const struct layout *l)
{
	put16(b + REC0(l) + 32, 100);
	put16(b + REC0(l) + 34, 28);
}
static void c_rec_depth(char *b, size_t *n, const struct layout *l) { put16(b + REC0(l) + 34, 17); }
static void c_thread_size(char *b, size_t *n, const struct layout *l) { put64(b + l->thread + 8, 63); }
static void c_thread_flags(char *b, size_t *n, const struct layout *l) { put32(b + l->thread + 16 + 8, 8); }
static void c_end_flags(char *b, size_t *n, const struct layout *l) { put32(b + l->end + 16 + 28, 4); }
static void c_after_end(char *b, size_t *n, const struct layout *l) { b[(*n)++] = 0; }
static void c_unknown(char *b, size_t *n, const struct layout *l)
{
	/* a section of a later version where THREAD was: skipped */
	put32(b + l->thread, 77);
}

static void test_corruption(void **state)
{
	(void)state;
	corrupt(c_magic, -EINVAL, "magic");
	corrupt(c_version, -EPROTO, "file format version not 2 to 3");
	corrupt(c_hdr_size, -EINVAL, "header size");
	corrupt(c_reserved, -EINVAL, "reserved");
	corrupt(c_huge, -EINVAL, "64 MiB");
	corrupt(c_oversize, -EINVAL, "cut short");
	corrupt(c_not_info, -EINVAL, "first section not INFO");
	corrupt(c_two_info, -EINVAL, "INFO");
	corrupt(c_info_flags, -EINVAL, "INFO flags");
	corrupt(c_info_xen, -EINVAL, "MAPS or THREAD section in a Xen session");
	corrupt(c_info_active, -EINVAL, "INFO active flag without the Xen flag");
	corrupt(c_v2, 0, NULL);
	corrupt(c_v2_flags, -EINVAL, "INFO flags unknown");
	corrupt(c_domain_here, -EINVAL, "DOMAIN or RING section outside a Xen session");
	corrupt(c_info_counters, -EINVAL, "above 16");
	corrupt(c_info_format, -EINVAL, "INFO sample format unknown");
	corrupt(c_info_depth, -EINVAL, "INFO chain depth above 127");
	corrupt(c_info_nodepth, -EINVAL, "INFO chain depth and chain format disagree");
	corrupt(c_info_nochain, -EINVAL, "INFO chain depth and chain format disagree");
	corrupt(c_info_nul, -EINVAL, "NUL");
	corrupt(c_info_long, -EINVAL, "longer than 4096");
	corrupt(c_info_len, -EINVAL, "INFO");
	corrupt(c_count_big, -EINVAL, "record count");
	corrupt(c_count_small, -EINVAL, "longer than its records");
	corrupt(c_rec_flags, -EINVAL, "record flags");
	corrupt(c_rec_counter, -EINVAL, "counter above 15");
	corrupt(c_rec_values, -EINVAL, "more than 16 values");
	corrupt(c_rec_noflag, -EINVAL, "without the values flag");
	corrupt(c_rec_reserved, -EINVAL, "SAMPLES record reserved word not zero");
	corrupt(c_rec_frames, -EINVAL, "SAMPLES record with more than 127 frames");
	corrupt(c_rec_depth, -EINVAL, "more frames than INFO's chain depth");
	corrupt(c_thread_size, -EINVAL, NULL);
	corrupt(c_thread_flags, -EINVAL, "THREAD flags");
	corrupt(c_end_flags, -EINVAL, "END flags");
	corrupt(c_after_end, -EINVAL, "after the END");
	corrupt(c_unknown, 0, NULL);
}

/* Offsets of the sections of the file xen_file() writes. */
struct xen_layout {
	size_t info, domain, samples, ring, end;
};

/*
 * A Xen session's file: domain 5 active; ring 2 (PCPU 1) with a record of
 * Xen in domain 5's VCPU 3, one of Xen's idle loop and one of a domain not
 * profiled (its IP withheld); ring 2's totals; END.
 */
static void xen_file(struct mem *m, struct xen_layout *l)
{
	static const struct pmuvirt_prof_domain dom = { 5, PMUVIRT_PROF_DOMAIN_ACTIVE };
	static const struct pmuvirt_prof_ring ring = {
		.index = 2, .domain = 0x7fff, .id = 1, .flags = PMUVIRT_PROF_RING_PCPU,
		.nr_records = 4096, .read = 3, .lost = 9, .skipped = 1 };
	struct pmuvirt_prof_end end = { .samples = 3, .weight = 6, .lost = 9, .threads = 1 };
	struct pmuvirt_prof_chunk c = { 0, 2, 4 };
	struct pmuvirt_prof_info info;
	struct pmuvirt_sample recs[3];

	mem_open(m);
	info_make(&info);
	info.flags = PMUVIRT_PROF_INFO_XEN;
	info.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT;
	info.chain_depth = 0;
	memset(recs, 0, sizeof(recs));
	recs[0] = (struct pmuvirt_sample){ .ip = 0xffff82d040200010ull, .tid = 3, .cpu = 1,
		.flags = PMUVIRT_SAMPLE_HYPERVISOR, .weight = 1, .domain = 5 };
	recs[1] = (struct pmuvirt_sample){ .ip = 0xffff82d040300000ull, .cpu = 1,
		.flags = PMUVIRT_SAMPLE_HYPERVISOR, .weight = 2, .domain = 0x7fff };
	recs[2] = (struct pmuvirt_sample){ .cpu = 1, .weight = 3, .domain = 9,
		.flags = PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP };
	l->info = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_info(&m->w, &info), 0);
	l->domain = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_domain(&m->w, &dom), 0);
	l->samples = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_samples(&m->w, &c, recs, NULL, 3), 0);
	l->ring = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_ring(&m->w, &ring), 0);
	l->end = m->w.bytes;
	assert_int_equal(pmuvirt_prof_write_end(&m->w, &end), 0);
	mem_close(m);
}

/* One corruption of xen_file()'s bytes: the parse's result and reason. */
static void xen_corrupt(size_t (*at)(const struct xen_layout *l), size_t off, uint32_t v, int expect,
			const char *reason)
{
	struct pmuvirt_prof_error err;
	struct got *g = got_new();
	struct xen_layout l;
	struct mem m;

	xen_file(&m, &l);
	put32(m.buf + at(&l) + off, v);
	assert_int_equal(parse(m.buf, m.len, 0, g, &err), expect);
	if (reason && (!err.what || !strstr(err.what, reason)))
		fail_msg("expected \"%s\", got \"%s\"", reason, err.what ? err.what : "(none)");
	free(m.buf);
	free(g);
}

static size_t at_info(const struct xen_layout *l) { return l->info; }
static size_t at_domain(const struct xen_layout *l) { return l->domain; }
static size_t at_samples(const struct xen_layout *l) { return l->samples; }
static size_t at_ring(const struct xen_layout *l) { return l->ring; }

static void test_xen_session(void **state)
{
	struct pmuvirt_prof_domain dom = { 1, 0 };
	struct pmuvirt_prof_ring ring = { 0 };
	struct pmuvirt_prof_error err;
	struct got *g = got_new();
	struct xen_layout l;
	struct pmuvirt_prof_info info;
	struct mem m;

	(void)state;
	xen_file(&m, &l);
	assert_int_equal(parse(m.buf, m.len, 0, g, &err), 0);
	assert_int_equal(g->info.flags, PMUVIRT_PROF_INFO_XEN);
	assert_int_equal(g->domains, 1);
	assert_int_equal(g->domain.domain, 5);
	assert_int_equal(g->domain.flags, PMUVIRT_PROF_DOMAIN_ACTIVE);
	assert_int_equal(g->nr, 3);
	assert_int_equal(g->chunk[0].tid, 2);
	assert_int_equal(g->chunk[0].tick, 4);
	assert_int_equal(g->rec[0].domain, 5);
	assert_int_equal(g->rec[0].tid, 3);
	assert_int_equal(g->rec[0].flags, PMUVIRT_SAMPLE_HYPERVISOR);
	assert_int_equal(g->rec[1].domain, 0x7fff);
	assert_int_equal(g->rec[2].flags, PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP);
	assert_int_equal(g->rings, 1);
	assert_int_equal(g->ring.index, 2);
	assert_int_equal(g->ring.domain, 0x7fff);
	assert_int_equal(g->ring.id, 1);
	assert_int_equal(g->ring.flags, PMUVIRT_PROF_RING_PCPU);
	assert_int_equal(g->ring.nr_records, 4096);
	assert_int_equal(g->ring.read, 3);
	assert_int_equal(g->ring.lost, 9);
	assert_int_equal(g->ring.skipped, 1);
	assert_int_equal(g->end.threads, 1);
	free(m.buf);

	/* what a Xen session's reader checks */
	xen_corrupt(at_info, 16 + 36, 0, -EINVAL, "DOMAIN or RING section outside a Xen session");
	xen_corrupt(at_info, 16 + 36, PMUVIRT_PROF_INFO_XEN | 4, -EINVAL, "INFO flags unknown");
	xen_corrupt(at_domain, 8, 7, -EINVAL, "DOMAIN section not 8 bytes");
	xen_corrupt(at_domain, 16 + 4, 2, -EINVAL, "DOMAIN flags unknown");
	xen_corrupt(at_samples, 16 + 16 + 24, 0x10, -EINVAL, "SAMPLES record flags unknown");
	xen_corrupt(at_ring, 16 + 12, 2, -EINVAL, "RING flags unknown");
	xen_corrupt(at_ring, 16 + 20, 1, -EINVAL, "RING reserved word not zero");
	xen_corrupt(at_ring, 8, 40, -EINVAL, "RING section not 48 bytes");
	xen_corrupt(at_domain, 0, PMUVIRT_PROF_THREAD, -EINVAL, "MAPS or THREAD section in a Xen session");
	free(g);

	/* the writer: no DOMAIN or RING outside a Xen session, no unknown flag */
	mem_open(&m);
	assert_int_equal(pmuvirt_prof_write_domain(&m.w, &dom), -EINVAL);
	assert_int_equal(pmuvirt_prof_write_ring(&m.w, &ring), -EINVAL);
	info_make(&info);
	info.flags = PMUVIRT_PROF_INFO_ACTIVE;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), -EINVAL);
	info.flags = PMUVIRT_PROF_INFO_XEN | PMUVIRT_PROF_INFO_ACTIVE;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), 0);
	dom.flags = 2;
	assert_int_equal(pmuvirt_prof_write_domain(&m.w, &dom), -EINVAL);
	ring.flags = 2;
	assert_int_equal(pmuvirt_prof_write_ring(&m.w, &ring), -EINVAL);
	mem_close(&m);
	free(m.buf);
}

/* The writer refuses what the format cannot hold, and reports write errors. */
static void test_writer_bounds(void **state)
{
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_thread t = thread_a;
	struct pmuvirt_prof_end e = end_a;
	struct mem m;
	FILE *full;
	struct pmuvirt_prof_writer w;
	char *big;

	(void)state;
	mem_open(&m);
	info_make(&info);
	memset(info.command, 'x', sizeof(info.command));	/* no NUL within 4096 */
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), -EINVAL);
	info_make(&info);
	info.chain_depth = 128;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), -EINVAL);
	info.chain_depth = 0;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), -EINVAL);
	info.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT;
	info.chain_depth = 8;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), -EINVAL);
	info.sample_format = 0x40;
	info.chain_depth = 0;
	assert_int_equal(pmuvirt_prof_write_info(&m.w, &info), -EINVAL);
	big = malloc(PMUVIRT_PROF_MAPS_MAX + 1);
	assert_non_null(big);
	assert_int_equal(pmuvirt_prof_write_maps(&m.w, 1, 1, big, PMUVIRT_PROF_MAPS_MAX + 1),
			 -EINVAL);
	free(big);
	t.flags = 0x80;
	assert_int_equal(pmuvirt_prof_write_thread(&m.w, &t), -EINVAL);
	e.flags = 0x80;
	assert_int_equal(pmuvirt_prof_write_end(&m.w, &e), -EINVAL);
	mem_close(&m);
	assert_int_equal(m.len, 16);	/* nothing of the refused sections */
	free(m.buf);

	full = fopen("/dev/full", "w");
	if (!full)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	assert_int_equal(pmuvirt_prof_write_header(&w, full), -ENOSPC);
	assert_int_equal(w.err, ENOSPC);
	info_make(&info);
	assert_int_equal(pmuvirt_prof_write_info(&w, &info), -ENOSPC);
	fclose(full);
}

/* The fuzzer's seeds: a whole file, one cut short, one with a later section type, a Xen session. */
static int write_seeds(const char *dir)
{
	struct xen_layout xl;
	struct layout l;
	struct mem m;
	char path[4096];
	FILE *f;

	xen_file(&m, &xl);
	snprintf(path, sizeof(path), "%s/xen-session", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(m.buf, 1, m.len, f) != m.len || fclose(f))
		return 1;
	free(m.buf);

	full_file(&m, &l);
	snprintf(path, sizeof(path), "%s/whole", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(m.buf, 1, m.len, f) != m.len || fclose(f))
		return 1;
	snprintf(path, sizeof(path), "%s/cut", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(m.buf, 1, l.thread, f) != l.thread || fclose(f))
		return 1;
	put32(m.buf + l.thread, 77);
	snprintf(path, sizeof(path), "%s/later-section", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(m.buf, 1, m.len, f) != m.len || fclose(f))
		return 1;
	free(m.buf);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_many_records),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_writer_bounds),
		cmocka_unit_test(test_xen_session),
	};

	if (argc == 3 && !strcmp(argv[1], "seeds"))
		return write_seeds(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
