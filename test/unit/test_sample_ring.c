/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Sample rings: the core's writer (src/core/sample.c) and the user reader
 * (include/pmuvirt/user.h).  Records come out in order across wraps of the
 * ring and of the 32-bit indices; a full ring drops and counts; a bad tail
 * makes the writer drop, never write outside the records; a reader on
 * another thread sees every record whole.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include <pmuvirt/user.h>

#define GUARD	256
#define OFF	128u

struct ring {
	uint8_t *mem;		/* GUARD | header | records | GUARD */
	size_t size;
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_sample_ring *hdr;
};

static void ring_new(struct ring *g, uint32_t nr)
{
	size_t n = pmuvirt_sample_ring_bytes(nr, OFF, NULL);

	assert_true(n > 0);
	g->size = n;
	g->mem = aligned_alloc(64, n + 2 * GUARD);
	assert_non_null(g->mem);
	memset(g->mem, 0xa5, n + 2 * GUARD);
	assert_int_equal(pmuvirt_sample_init(&g->w, g->mem + GUARD, n, nr, OFF, NULL), 0);
	g->hdr = (struct pmuvirt_sample_ring *)(g->mem + GUARD);
	assert_int_equal(pmuvirt_sample_reader_init(&g->r, g->hdr, n), 0);
}

static void guards_intact(const struct ring *g)
{
	size_t i;

	for (i = 0; i < GUARD; i++) {
		assert_int_equal(g->mem[i], 0xa5);
		assert_int_equal(g->mem[GUARD + g->size + i], 0xa5);
	}
}

static void rec_make(struct pmuvirt_sample *s, uint64_t seq)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->ip = seq;
	s->time = seq * 3;
	s->tid = (uint32_t)seq;
	s->cpu = (uint32_t)(seq % 7);
	s->counter = (uint8_t)(seq % PMUVIRT_MAX_COUNTERS);
	s->flags = PMUVIRT_SAMPLE_VALUES;
	s->nr_values = PMUVIRT_MAX_COUNTERS;
	s->weight = 1;
	for (k = 0; k < PMUVIRT_MAX_COUNTERS; k++)
		s->value[k] = seq + k;
}

static void rec_check(const struct pmuvirt_sample *s, uint64_t seq)
{
	unsigned int k;

	assert_int_equal(s->ip, seq);
	assert_int_equal(s->time, seq * 3);
	assert_int_equal(s->tid, (uint32_t)seq);
	for (k = 0; k < PMUVIRT_MAX_COUNTERS; k++)
		assert_int_equal(s->value[k], seq + k);
}

static void test_geometry(void **state)
{
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r;
	static uint64_t buf[1024];
	struct pmuvirt_sample_ring *h = (struct pmuvirt_sample_ring *)buf;

	assert_int_equal(sizeof(struct pmuvirt_sample), 168);
	assert_int_equal(__builtin_offsetof(struct pmuvirt_sample, domain), 32);
	assert_int_equal(__builtin_offsetof(struct pmuvirt_sample, value), 40);
	assert_int_equal(sizeof(struct pmuvirt_sample_ring), 128);
	assert_int_equal(pmuvirt_sample_ring_bytes(0, OFF, NULL), 0);
	assert_int_equal(pmuvirt_sample_ring_bytes(3, OFF, NULL), 0);
	assert_int_equal(pmuvirt_sample_ring_bytes(PMUVIRT_SAMPLE_MAX_RECORDS * 2, OFF, NULL), 0);
	assert_int_equal(pmuvirt_sample_ring_bytes(4, 64, NULL), 0);
	assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF + 4, NULL), 0);
	assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF, NULL), OFF + 4 * 168);
	assert_int_equal(pmuvirt_sample_init(&w, buf, OFF + 4 * 168 - 1, 4, OFF, NULL), -EINVAL);
	assert_int_equal(pmuvirt_sample_init(&w, (uint8_t *)buf + 4, sizeof(buf) - 4, 4, OFF, NULL),
			 -EINVAL);
	assert_int_equal(pmuvirt_sample_init(&w, buf, sizeof(buf), 4, OFF, NULL), 0);
	assert_int_equal(h->magic, PMUVIRT_SAMPLE_MAGIC);
	assert_int_equal(h->head, 0);
	assert_int_equal(h->tail, 0);

	/* The reader checks the header against what it mapped. */
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, OFF + 4 * 168), 0);
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, OFF + 4 * 168 - 1),
			 -PMUVIRT_USER_EINVAL);
	h->nr_records = 5;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->nr_records = 4;
	h->record_size = 160;	/* version 1's */
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->record_size = 168;
	/* a format that does not add up to the record size, or is not one */
	h->format = PMUVIRT_SAMPLE_FMT_DEFAULT | PMUVIRT_SAMPLE_FMT_CHAIN;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->chain_depth = 1;	/* 176 bytes */
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->chain_depth = 0;
	h->format = PMUVIRT_SAMPLE_FMT_DEFAULT | 0x20;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->format = PMUVIRT_SAMPLE_FMT_DEFAULT;
	h->nr_values = 17;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->nr_values = PMUVIRT_MAX_COUNTERS;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), 0);
	h->version = 2;	/* the fixed 168-byte records: same size, another layout */
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->version = PMUVIRT_SAMPLE_VERSION;
	h->data_offset = 0xfffffff8u;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->data_offset = OFF;
	h->version = 1;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
	h->version = PMUVIRT_SAMPLE_VERSION;
	h->magic = 0;
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), -PMUVIRT_USER_EINVAL);
}

/*
 * A chosen format: fields left out take no room and read as 0, chains come
 * out as written (kernel frames, then user), slots a record leaves unused
 * are zero, and counts a writer could corrupt are clamped to the ring's.
 */
static void test_format_chain(void **state)
{
	const struct pmuvirt_sample_format fmt = {
		.format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_VALUES |
			  PMUVIRT_SAMPLE_FMT_CHAIN,
		.nr_values = 2,
		.chain_depth = 4,
	};
	static uint64_t buf[512];
	static struct pmuvirt_sample_chain chain, got[4];
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r = { 0 };
	struct pmuvirt_sample s, out[4];
	struct pmuvirt_sample_head *h;
	uint64_t *frames;
	void *rec;
	unsigned int i;

	(void)state;
	assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF, &fmt), OFF + 4 * (24 + 8 + 16 + 32));
	assert_int_equal(pmuvirt_sample_init(&w, buf, sizeof(buf), 4, OFF, &fmt), 0);
	assert_int_equal(pmuvirt_sample_reader_init(&r, buf, sizeof(buf)), 0);
	assert_int_equal(r.record_size, 80);

	memset(&s, 0, sizeof(s));
	s.ip = 0x1000;
	s.time = 77;		/* not in the format */
	s.domain = 5;		/* nor is the mode */
	s.flags = PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_VALUES;
	s.nr_values = 3;	/* more than the ring's slots */
	s.value[0] = 10;
	s.value[1] = 11;
	s.value[2] = 12;
	s.nr_kernel = 1;
	s.nr_user = 2;
	for (i = 0; i < 3; i++)
		chain.frame[i] = 0x100 + i;
	assert_int_equal(pmuvirt_sample_write(&w, &s, &chain), 0);
	s.nr_kernel = 3;	/* 3 + 3: clamped to depth 4 */
	s.nr_user = 3;
	chain.frame[3] = 0x103;
	assert_int_equal(pmuvirt_sample_write(&w, &s, &chain), 0);
	s.nr_kernel = 2;	/* no chain given: none stored */
	assert_int_equal(pmuvirt_sample_write(&w, &s, NULL), 0);
	/* reserve/commit, as the PMI does it: the frames are written in place */
	rec = pmuvirt_sample_reserve(&w, &frames);
	assert_non_null(rec);
	assert_ptr_equal(frames, (uint64_t *)((uint8_t *)rec + 48));
	frames[0] = 0x200;
	s.nr_kernel = 0;
	s.nr_user = 1;
	pmuvirt_sample_commit(&w, rec, &s);
	assert_null(pmuvirt_sample_reserve(&w, &frames));	/* full */
	assert_int_equal(w.lost, 1);

	assert_int_equal(pmuvirt_sample_read_chain(&r, out, got, 4), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(out[i].ip, 0x1000);
		assert_int_equal(out[i].time, 0);
		assert_int_equal(out[i].domain, 0);
		assert_int_equal(out[i].flags, PMUVIRT_SAMPLE_VALUES);
		assert_int_equal(out[i].nr_values, 2);
		assert_int_equal(out[i].value[1], 11);
		assert_int_equal(out[i].value[2], 0);
	}
	assert_int_equal(out[0].nr_kernel, 1);
	assert_int_equal(out[0].nr_user, 2);
	assert_int_equal(got[0].frame[0], 0x100);
	assert_int_equal(got[0].frame[2], 0x102);
	assert_int_equal(out[1].nr_kernel, 3);
	assert_int_equal(out[1].nr_user, 1);
	assert_int_equal(got[1].frame[3], 0x103);
	assert_int_equal(out[2].nr_kernel + out[2].nr_user, 0);
	assert_int_equal(out[3].nr_kernel, 0);
	assert_int_equal(out[3].nr_user, 1);
	assert_int_equal(got[3].frame[0], 0x200);

	/* A writer's counts beyond the ring's slots: the reader clamps them. */
	pmuvirt_sample_publish(&r);
	assert_int_equal(pmuvirt_sample_write(&w, &s, &chain), 0);
	h = (struct pmuvirt_sample_head *)(r.data + (size_t)(r.tail & r.mask) * r.record_size);
	h->nr_kernel = 200;
	h->nr_user = 200;
	h->nr_values = 99;
	assert_int_equal(pmuvirt_sample_read_chain(&r, out, got, 4), 1);
	assert_int_equal(out[0].nr_kernel, 4);
	assert_int_equal(out[0].nr_user, 0);
	assert_int_equal(out[0].nr_values, 2);
	/* Without a chain buffer the reader reports no frames. */
	pmuvirt_sample_publish(&r);
	assert_int_equal(pmuvirt_sample_write(&w, &s, &chain), 0);
	assert_int_equal(pmuvirt_sample_read(&r, out, 4), 1);
	assert_int_equal(out[0].nr_kernel + out[0].nr_user, 0);

	/* Formats that are not one. */
	{
		struct pmuvirt_sample_format bad = fmt;

		bad.chain_depth = 0;
		assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF, &bad), 0);
		bad.chain_depth = PMUVIRT_CHAIN_MAX + 1;
		assert_int_equal(pmuvirt_sample_init(&w, buf, sizeof(buf), 4, OFF, &bad), -EINVAL);
		bad = fmt;
		bad.nr_values = 0;
		assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF, &bad), 0);
		bad.format = PMUVIRT_SAMPLE_FMT_IP;
		bad.chain_depth = 0;
		assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF, &bad), OFF + 4 * 32);
		bad.format |= 0x40;
		assert_int_equal(pmuvirt_sample_ring_bytes(4, OFF, &bad), 0);
	}
}

/* Records come out in order, whole, across many wraps; reads of 3 into a ring of 8. */
static void test_wrap(void **state)
{
	struct pmuvirt_sample s, out[3];
	struct ring g;
	uint64_t wr = 0, rd = 0;
	int n, i;

	ring_new(&g, 8);
	while (rd < 1000) {
		while (wr - rd < 8) {
			rec_make(&s, wr++);
			assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
		}
		n = pmuvirt_sample_read(&g.r, out, 3);
		assert_int_equal(n, 3);
		for (i = 0; i < n; i++)
			rec_check(&out[i], rd++);
		pmuvirt_sample_publish(&g.r);
	}
	assert_int_equal(g.hdr->lost, 0);
	assert_int_equal(g.hdr->head, (uint32_t)wr);
	guards_intact(&g);
	free(g.mem);
}

/* The 32-bit head and tail wrap past 2^32 without a record lost or repeated. */
static void test_index_wrap(void **state)
{
	struct pmuvirt_sample s, out[8];
	struct ring g;
	uint64_t seq;
	int n, i, total = 0;

	ring_new(&g, 8);
	g.w.head = 0xfffffffau;
	g.hdr->head = 0xfffffffau;
	g.hdr->tail = 0xfffffffau;
	g.r.tail = 0xfffffffau;
	for (seq = 0; seq < 40; seq++) {
		rec_make(&s, seq);
		assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
		if (seq % 5 == 4) {
			n = pmuvirt_sample_read(&g.r, out, 8);
			assert_int_equal(n, 5);
			for (i = 0; i < n; i++)
				rec_check(&out[i], (uint64_t)total++);
			pmuvirt_sample_publish(&g.r);
		}
	}
	assert_int_equal(total, 40);
	assert_int_equal(g.hdr->head, (uint32_t)(0xfffffffau + 40));
	assert_int_equal(g.hdr->lost, 0);
	guards_intact(&g);
	free(g.mem);
}

/* A full ring keeps its records, drops the new ones and counts them. */
static void test_full_lost(void **state)
{
	struct pmuvirt_sample s, out[16];
	struct ring g;
	int i, n;

	ring_new(&g, 8);
	for (i = 0; i < 8; i++) {
		rec_make(&s, (uint64_t)i);
		assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
	}
	assert_int_equal(pmuvirt_sample_pending(&g.r), 8);
	for (i = 8; i < 13; i++) {
		rec_make(&s, (uint64_t)i);
		assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);
	}
	assert_int_equal(pmuvirt_sample_lost(&g.r), 5);
	assert_int_equal(g.hdr->head, 8);

	/* Read without publishing: the writer still sees a full ring. */
	n = pmuvirt_sample_read(&g.r, out, 2);
	assert_int_equal(n, 2);
	rec_make(&s, 100);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);
	assert_int_equal(g.w.lost, 6);
	pmuvirt_sample_publish(&g.r);
	rec_make(&s, 8);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
	rec_make(&s, 9);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);

	n = pmuvirt_sample_read(&g.r, out, 16);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++)
		rec_check(&out[i], (uint64_t)i + 2);
	rec_check(&out[0], 0 + 2);
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 16), 0);

	/* lost saturates. */
	g.w.lost = 0xfffffffeu;
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);
	assert_int_equal(g.hdr->lost, 0xffffffffu);
	guards_intact(&g);
	free(g.mem);
}

/*
 * A tail the writer cannot make sense of (ahead of head, more than a ring
 * behind) drops records; any tail at all keeps every store inside the
 * records, and the writer reads back none of its own state from the ring.
 */
static void test_bad_tail(void **state)
{
	static const uint32_t bad[] = { 1, 2, 0x80000000u, 0xffffffffu - 7, 0xfffffff7u };
	struct pmuvirt_sample s;
	struct ring g;
	unsigned int i;
	uint32_t lost;

	ring_new(&g, 8);
	rec_make(&s, 1);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);	/* head 2 */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t t = g.w.head + bad[i];

		g.hdr->tail = t;
		lost = g.w.lost;
		assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);
		assert_int_equal(g.w.lost, lost + 1);
		assert_int_equal(g.w.head, 2);
	}
	/* The header's own fields written by the reader change nothing. */
	g.hdr->tail = 2;
	g.hdr->head = 0x12345;
	g.hdr->nr_records = 0x40000000u;
	g.hdr->data_offset = 0xfffffff0u;
	g.hdr->lost = 0;
	for (i = 0; i < 8; i++)
		assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
	assert_int_equal(g.hdr->head, 10);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), -ENOSPC);
	assert_int_equal(g.hdr->lost, g.w.lost);
	assert_int_equal(g.w.lost, 6);

	/* Every tail value near and far: the writer stays inside. */
	srand(14);
	for (i = 0; i < 100000; i++) {
		uint32_t head = g.w.head, t;

		t = (i & 1) ? (uint32_t)rand() : head - (uint32_t)(rand() % 20) + 5;
		g.hdr->tail = t;
		rec_make(&s, i);
		if (pmuvirt_sample_write(&g.w, &s, NULL) == 0) {
			assert_true((uint32_t)(head - t) < 8);
			/* the IP follows the 24-byte head */
			assert_int_equal(*(const uint64_t *)(g.w.data + (head & 7) *
							     g.w.record_size + 24), i);
		} else {
			assert_true((uint32_t)(head - t) >= 8);
			assert_int_equal(g.w.head, head);
		}
	}
	guards_intact(&g);
	free(g.mem);
}

/* A reader facing a head that makes no sense refuses, then resyncs. */
static void test_reader_bad_head(void **state)
{
	struct pmuvirt_sample s, out[8];
	struct ring g;

	ring_new(&g, 8);
	rec_make(&s, 0);
	assert_int_equal(pmuvirt_sample_write(&g.w, &s, NULL), 0);
	g.hdr->head = 9 + 1;
	assert_int_equal(pmuvirt_sample_pending(&g.r), -PMUVIRT_USER_EPROTO);
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 8), -PMUVIRT_USER_EPROTO);
	g.hdr->head = 0xffffffffu;	/* behind the reader */
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 8), -PMUVIRT_USER_EPROTO);
	g.hdr->head = 10;
	assert_int_equal(pmuvirt_sample_resync(&g.r), 10);
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 8), 0);
	/* nr_values beyond the array is clamped. */
	g.hdr->head = 11;
	((struct pmuvirt_sample *)(g.mem + GUARD + OFF))[10 & 7].nr_values = 200;
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 8), 1);
	assert_int_equal(out[0].nr_values, PMUVIRT_MAX_COUNTERS);
	free(g.mem);
}

/* A writer and a reader on two threads (two CPUs when there are two). */
#define XCPU_RECORDS	400000u

struct xcpu {
	struct ring g;
	uint64_t read;
	volatile int done;
};

static void *xcpu_writer(void *arg)
{
	struct xcpu *x = arg;
	struct pmuvirt_sample s;
	uint64_t seq;

	for (seq = 0; seq < XCPU_RECORDS; seq++) {
		rec_make(&s, seq);
		(void)pmuvirt_sample_write(&x->g.w, &s, NULL);
	}
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_cross_cpu(void **state)
{
	static struct pmuvirt_sample out[16];
	static struct xcpu x;
	pthread_t t;
	uint64_t last = 0;
	bool first = true;
	int n, i;

	ring_new(&x.g, 16);
	assert_int_equal(pthread_create(&t, NULL, xcpu_writer, &x), 0);
	for (;;) {
		int done = __atomic_load_n(&x.done, __ATOMIC_ACQUIRE);

		n = pmuvirt_sample_read(&x.g.r, out, 16);
		assert_true(n >= 0);
		for (i = 0; i < n; i++) {
			/* whole, and later than the one before (drops leave gaps only) */
			rec_check(&out[i], out[i].ip);
			assert_true(first || out[i].ip > last);
			last = out[i].ip;
			first = false;
		}
		x.read += (uint64_t)n;
		pmuvirt_sample_publish(&x.g.r);
		if (done && n == 0)
			break;
	}
	pthread_join(t, NULL);
	assert_int_equal(x.read + pmuvirt_sample_lost(&x.g.r), XCPU_RECORDS);
	assert_true(x.read > 0);
	guards_intact(&x.g);
	free(x.g.mem);
}

/* "threads": only the two-thread test (CTest test_sample_ring_threads); otherwise the rest. */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_format_chain),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_index_wrap),
		cmocka_unit_test(test_full_lost),
		cmocka_unit_test(test_bad_tail),
		cmocka_unit_test(test_reader_bad_head),
	};
	const struct CMUnitTest threads[] = {
		cmocka_unit_test(test_cross_cpu),
	};

	if (argc > 1 && !strcmp(argv[1], "threads"))
		return cmocka_run_group_tests(threads, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
