// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The profile file: writer (pmuvirt-record, pmuvirt-xenprof) and checked
 * reader (pmuvirt-report).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "profile-file.h"

#define RECORDS_PER_SECTION	4096u
#define MAX_RECORD		(PMUVIRT_PROF_RECORD_BYTES + 8 * PMUVIRT_MAX_COUNTERS + \
				 8 * PMUVIRT_CHAIN_MAX)
#define WRITE_BUF		(16 * MAX_RECORD)

#define STR_(x)			#x
#define STR(x)			STR_(x)

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/*
 * The fixed part of INFO, THREAD and END: its fields in file order, each
 * little-endian and as wide as its struct member (4 or 8 bytes).
 */
struct field {
	size_t off;
	size_t size;
};

#define FIELD(type, member)	{ offsetof(type, member), sizeof(((type *)0)->member) }
#define NR_FIELDS(table)	(sizeof(table) / sizeof((table)[0]))

static const struct field info_fields[] = {
	FIELD(struct pmuvirt_prof_info, period),
	FIELD(struct pmuvirt_prof_info, start_ns),
	FIELD(struct pmuvirt_prof_info, event),
	FIELD(struct pmuvirt_prof_info, ctr_flags),
	FIELD(struct pmuvirt_prof_info, nr_counters),
	FIELD(struct pmuvirt_prof_info, sample_pages),
	FIELD(struct pmuvirt_prof_info, interval_ms),
	FIELD(struct pmuvirt_prof_info, flags),
	FIELD(struct pmuvirt_prof_info, sample_format),
	FIELD(struct pmuvirt_prof_info, chain_depth),
};

/* comm (16 bytes) follows */
static const struct field thread_fields[] = {
	FIELD(struct pmuvirt_prof_thread, tid),
	FIELD(struct pmuvirt_prof_thread, pid),
	FIELD(struct pmuvirt_prof_thread, flags),
	FIELD(struct pmuvirt_prof_thread, lost),
	FIELD(struct pmuvirt_prof_thread, records),
	FIELD(struct pmuvirt_prof_thread, weight),
	FIELD(struct pmuvirt_prof_thread, skipped),
	FIELD(struct pmuvirt_prof_thread, foreign),
};

static const struct field end_fields[] = {
	FIELD(struct pmuvirt_prof_end, samples),
	FIELD(struct pmuvirt_prof_end, weight),
	FIELD(struct pmuvirt_prof_end, lost),
	FIELD(struct pmuvirt_prof_end, threads),
	FIELD(struct pmuvirt_prof_end, flags),
	FIELD(struct pmuvirt_prof_end, status),
	FIELD(struct pmuvirt_prof_end, rings_dropped),
};

static void put_fields(uint8_t *b, const void *obj, const struct field *f, size_t n)
{
	uint32_t v32;
	uint64_t v64;

	for (; n; n--, f++) {
		if (f->size == 8) {
			memcpy(&v64, (const uint8_t *)obj + f->off, 8);
			put64(b, v64);
		} else {
			memcpy(&v32, (const uint8_t *)obj + f->off, 4);
			put32(b, v32);
		}
		b += f->size;
	}
}

static void get_fields(void *obj, const uint8_t *b, const struct field *f, size_t n)
{
	uint32_t v32;
	uint64_t v64;

	for (; n; n--, f++) {
		if (f->size == 8) {
			v64 = get64(b);
			memcpy((uint8_t *)obj + f->off, &v64, 8);
		} else {
			v32 = get32(b);
			memcpy((uint8_t *)obj + f->off, &v32, 4);
		}
		b += f->size;
	}
}

/* ---- writing ---- */

static int wr(struct pmuvirt_prof_writer *w, const void *p, size_t n)
{
	if (w->err)
		return -w->err;
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->err = errno ? errno : EIO;
		return -w->err;
	}
	w->bytes += n;
	return 0;
}

static int section(struct pmuvirt_prof_writer *w, uint32_t type, uint64_t size)
{
	uint8_t h[PMUVIRT_PROF_SECTION_HDR];

	put32(h, type);
	put32(h + 4, 0);
	put64(h + 8, size);
	return wr(w, h, sizeof(h));
}

int pmuvirt_prof_write_header(struct pmuvirt_prof_writer *w, FILE *f)
{
	uint8_t h[PMUVIRT_PROF_FILE_HDR];

	w->f = f;
	w->err = 0;
	w->bytes = 0;
	w->chain_depth = 0;
	w->xen = 0;
	memcpy(h, PMUVIRT_PROF_MAGIC, 8);
	put32(h + 8, PMUVIRT_PROF_VERSION);
	put32(h + 12, PMUVIRT_PROF_FILE_HDR);
	return wr(w, h, sizeof(h));
}

static int wr_string(struct pmuvirt_prof_writer *w, const char *s)
{
	uint8_t len[4];
	size_t n = strnlen(s, PMUVIRT_PROF_STRING_MAX + 1);

	if (n > PMUVIRT_PROF_STRING_MAX)
		return -EINVAL;
	put32(len, (uint32_t)n);
	if (wr(w, len, 4))
		return -w->err;
	return wr(w, s, n);
}

#define INFO_FIXED	48

/* What INFO's flags, format and chain depth must be (the ring's rules). */
static const char *info_check(const struct pmuvirt_prof_info *info, uint32_t version)
{
	if (info->flags & ~(version < 3 ? 0 : PMUVIRT_PROF_INFO_FLAGS))
		return "INFO flags unknown";
	if ((info->flags & PMUVIRT_PROF_INFO_ACTIVE) && !(info->flags & PMUVIRT_PROF_INFO_XEN))
		return "INFO active flag without the Xen flag";
	if (info->nr_counters > PMUVIRT_MAX_COUNTERS)
		return "INFO counter count above 16";
	if (info->sample_format & ~PMUVIRT_SAMPLE_FMT_ALL)
		return "INFO sample format unknown";
	if (info->chain_depth > PMUVIRT_CHAIN_MAX)
		return "INFO chain depth above 127";
	if (!info->chain_depth != !(info->sample_format & PMUVIRT_SAMPLE_FMT_CHAIN))
		return "INFO chain depth and chain format disagree";
	return NULL;
}

int pmuvirt_prof_write_info(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_info *info)
{
	const char *str[3] = { info->events, info->command, info->release };
	uint8_t b[INFO_FIXED];
	uint64_t size = INFO_FIXED;
	unsigned int i;
	int ret;

	if (info_check(info, PMUVIRT_PROF_VERSION))
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		size_t n = strnlen(str[i], PMUVIRT_PROF_STRING_MAX + 1);

		if (n > PMUVIRT_PROF_STRING_MAX)
			return -EINVAL;
		size += 4 + n;
	}
	put_fields(b, info, info_fields, NR_FIELDS(info_fields));
	ret = section(w, PMUVIRT_PROF_INFO, size);
	if (!ret)
		ret = wr(w, b, sizeof(b));
	for (i = 0; !ret && i < 3; i++)
		ret = wr_string(w, str[i]);
	if (!ret) {
		w->chain_depth = info->chain_depth;
		w->xen = !!(info->flags & PMUVIRT_PROF_INFO_XEN);
	}
	return ret;
}

int pmuvirt_prof_write_maps(struct pmuvirt_prof_writer *w, uint32_t pid, uint32_t tick,
			    const char *text, size_t len)
{
	uint8_t b[8];
	int ret;

	if (len > PMUVIRT_PROF_MAPS_MAX)
		return -EINVAL;
	put32(b, pid);
	put32(b + 4, tick);
	ret = section(w, PMUVIRT_PROF_MAPS, sizeof(b) + len);
	if (!ret)
		ret = wr(w, b, sizeof(b));
	if (!ret)
		ret = wr(w, text, len);
	return ret;
}

static unsigned int nr_values(const struct pmuvirt_sample *s)
{
	return s->nr_values > PMUVIRT_MAX_COUNTERS ? PMUVIRT_MAX_COUNTERS : s->nr_values;
}

/* A record's frames as written: kernel ones first, both within @depth. */
static void nr_frames(const struct pmuvirt_sample *s, int chain, uint32_t depth,
		      unsigned int *nk, unsigned int *nu)
{
	*nk = chain ? s->nr_kernel : 0;
	*nu = chain ? s->nr_user : 0;
	if (*nk > depth)
		*nk = depth;
	if (*nu > depth - *nk)
		*nu = depth - *nk;
}

int pmuvirt_prof_write_samples(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_chunk *c,
			       const struct pmuvirt_sample *recs,
			       const struct pmuvirt_sample_chain *chains, unsigned int n)
{
	uint32_t depth = w->chain_depth > PMUVIRT_CHAIN_MAX ? PMUVIRT_CHAIN_MAX : w->chain_depth;

	while (n) {
		unsigned int k = n < RECORDS_PER_SECTION ? n : RECORDS_PER_SECTION, i, v, nk, nu;
		uint64_t size = 16;
		uint8_t b[16], buf[WRITE_BUF];
		size_t used;
		int ret;

		for (i = 0; i < k; i++) {
			nr_frames(&recs[i], !!chains, depth, &nk, &nu);
			size += PMUVIRT_PROF_RECORD_BYTES + 8 * (nr_values(&recs[i]) + nk + nu);
		}
		put32(b, c->pid);
		put32(b + 4, c->tid);
		put32(b + 8, c->tick);
		put32(b + 12, k);
		ret = section(w, PMUVIRT_PROF_SAMPLES, size);
		if (!ret)
			ret = wr(w, b, 16);
		/* records encoded into a buffer, written a buffer at a time */
		for (i = 0, used = 0; !ret && i < k; i++) {
			const struct pmuvirt_sample *s = &recs[i];
			unsigned int nv = nr_values(s);
			uint8_t *r = buf + used;

			nr_frames(s, !!chains, depth, &nk, &nu);
			put64(r, s->ip);
			put64(r + 8, s->time);
			put32(r + 16, s->tid);
			put32(r + 20, s->cpu);
			put16(r + 24, s->flags);
			r[26] = s->counter;
			r[27] = (uint8_t)nv;
			put32(r + 28, s->weight);
			put16(r + 32, (uint16_t)nk);
			put16(r + 34, (uint16_t)nu);
			put32(r + 36, s->domain);
			r += PMUVIRT_PROF_RECORD_BYTES;
			for (v = 0; v < nv; v++, r += 8)
				put64(r, s->value[v]);
			for (v = 0; v < nk + nu; v++, r += 8)
				put64(r, chains[i].frame[v]);
			used = (size_t)(r - buf);
			if (used > sizeof(buf) - MAX_RECORD || i + 1 == k) {
				ret = wr(w, buf, used);
				used = 0;
			}
		}
		if (ret)
			return ret;
		recs += k;
		if (chains)
			chains += k;
		n -= k;
	}
	return 0;
}

#define THREAD_BYTES	64

int pmuvirt_prof_write_thread(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_thread *t)
{
	uint8_t b[THREAD_BYTES];
	int ret;

	if (t->flags & ~PMUVIRT_PROF_THREAD_FLAGS)
		return -EINVAL;
	put_fields(b, t, thread_fields, NR_FIELDS(thread_fields));
	memset(b + 48, 0, 16);
	memcpy(b + 48, t->comm, strnlen(t->comm, 16));
	ret = section(w, PMUVIRT_PROF_THREAD, sizeof(b));
	return ret ? ret : wr(w, b, sizeof(b));
}

#define DOMAIN_BYTES	8
#define RING_BYTES	48

static const struct field domain_fields[] = {
	FIELD(struct pmuvirt_prof_domain, domain),
	FIELD(struct pmuvirt_prof_domain, flags),
};

/* a reserved word (zero) follows nr_records */
static const struct field ring_fields[] = {
	FIELD(struct pmuvirt_prof_ring, index),
	FIELD(struct pmuvirt_prof_ring, domain),
	FIELD(struct pmuvirt_prof_ring, id),
	FIELD(struct pmuvirt_prof_ring, flags),
	FIELD(struct pmuvirt_prof_ring, nr_records),
};

static const struct field ring_count_fields[] = {
	FIELD(struct pmuvirt_prof_ring, read),
	FIELD(struct pmuvirt_prof_ring, lost),
	FIELD(struct pmuvirt_prof_ring, skipped),
};

int pmuvirt_prof_write_domain(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_domain *d)
{
	uint8_t b[DOMAIN_BYTES];
	int ret;

	if (!w->xen || (d->flags & ~PMUVIRT_PROF_DOMAIN_FLAGS))
		return -EINVAL;
	put_fields(b, d, domain_fields, NR_FIELDS(domain_fields));
	ret = section(w, PMUVIRT_PROF_DOMAIN, sizeof(b));
	return ret ? ret : wr(w, b, sizeof(b));
}

int pmuvirt_prof_write_ring(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_ring *r)
{
	uint8_t b[RING_BYTES];
	int ret;

	if (!w->xen || (r->flags & ~PMUVIRT_PROF_RING_FLAGS))
		return -EINVAL;
	put_fields(b, r, ring_fields, NR_FIELDS(ring_fields));
	put32(b + 20, 0);
	put_fields(b + 24, r, ring_count_fields, NR_FIELDS(ring_count_fields));
	ret = section(w, PMUVIRT_PROF_RING, sizeof(b));
	return ret ? ret : wr(w, b, sizeof(b));
}

#define END_BYTES	40

int pmuvirt_prof_write_end(struct pmuvirt_prof_writer *w, const struct pmuvirt_prof_end *e)
{
	uint8_t b[END_BYTES];
	int ret;

	if (e->flags & ~PMUVIRT_PROF_END_FLAGS)
		return -EINVAL;
	put_fields(b, e, end_fields, NR_FIELDS(end_fields));
	ret = section(w, PMUVIRT_PROF_END, sizeof(b));
	if (!ret)
		ret = wr(w, b, sizeof(b));
	if (!ret && fflush(w->f)) {
		w->err = errno ? errno : EIO;
		ret = -w->err;
	}
	return ret;
}

/* ---- reading ---- */

struct cursor {
	const uint8_t *p;
	size_t left;
	uint64_t off;		/* file offset of p */
	struct pmuvirt_prof_error *err;
};

static int bad(struct cursor *c, const char *what)
{
	c->err->offset = c->off;
	c->err->what = what;
	return -EINVAL;
}

static int take(struct cursor *c, size_t n, const uint8_t **out, const char *what)
{
	if (c->left < n)
		return bad(c, what);
	*out = c->p;
	c->p += n;
	c->left -= n;
	c->off += n;
	return 0;
}

static int get_string(struct cursor *c, char *dst, const char *what)
{
	const uint8_t *p;
	uint32_t n;

	if (take(c, 4, &p, what))
		return -EINVAL;
	n = get32(p);
	if (n > PMUVIRT_PROF_STRING_MAX)
		return bad(c, "INFO string longer than 4096 bytes");
	if (take(c, n, &p, what))
		return -EINVAL;
	if (memchr(p, 0, n))
		return bad(c, "INFO string holds a NUL byte");
	memcpy(dst, p, n);
	dst[n] = 0;
	return 0;
}

static int parse_info(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg,
		      uint32_t version, uint32_t *chain_depth, int *xen)
{
	struct pmuvirt_prof_info info;
	const uint8_t *p;
	const char *why;

	if (take(c, INFO_FIXED, &p, "INFO section shorter than its fixed part"))
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	get_fields(&info, p, info_fields, NR_FIELDS(info_fields));
	why = info_check(&info, version);
	if (why)
		return bad(c, why);
	*chain_depth = info.chain_depth;
	*xen = !!(info.flags & PMUVIRT_PROF_INFO_XEN);
	if (get_string(c, info.events, "INFO event list cut short") ||
	    get_string(c, info.command, "INFO command cut short") ||
	    get_string(c, info.release, "INFO kernel release cut short"))
		return -EINVAL;
	if (c->left)
		return bad(c, "INFO section longer than its contents");
	return ops->info ? ops->info(arg, &info) : 0;
}

static int parse_maps(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg)
{
	const uint8_t *p;
	uint32_t pid, tick;

	if (take(c, 8, &p, "MAPS section shorter than 8 bytes"))
		return -EINVAL;
	pid = get32(p);
	tick = get32(p + 4);
	if (c->left > PMUVIRT_PROF_MAPS_MAX)
		return bad(c, "MAPS text over 16 MiB");
	return ops->maps ? ops->maps(arg, pid, tick, (const char *)c->p, c->left) : 0;
}

static int parse_samples(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg,
			 uint32_t version, uint32_t chain_depth, int xen)
{
	/* a Xen session's records also sample Xen and domains it does not profile */
	uint16_t known = PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_VALUES |
			 (xen ? PMUVIRT_SAMPLE_HYPERVISOR | PMUVIRT_SAMPLE_NO_IP : 0);
	uint64_t frame[PMUVIRT_CHAIN_MAX];
	struct pmuvirt_prof_chunk ch;
	struct pmuvirt_sample s;
	const uint8_t *p;
	uint32_t n, i, v, nf;
	int ret;

	if (take(c, 16, &p, "SAMPLES section shorter than 16 bytes"))
		return -EINVAL;
	ch.pid = get32(p);
	ch.tid = get32(p + 4);
	ch.tick = get32(p + 8);
	n = get32(p + 12);
	if ((uint64_t)n * PMUVIRT_PROF_RECORD_BYTES > c->left)
		return bad(c, "SAMPLES record count larger than the section");
	for (i = 0; i < n; i++) {
		if (take(c, PMUVIRT_PROF_RECORD_BYTES, &p, "SAMPLES record cut short"))
			return -EINVAL;
		memset(&s, 0, sizeof(s));
		s.ip = get64(p);
		s.time = get64(p + 8);
		s.tid = get32(p + 16);
		s.cpu = get32(p + 20);
		s.flags = get16(p + 24);
		s.counter = p[26];
		s.nr_values = p[27];
		s.weight = get32(p + 28);
		s.nr_kernel = get16(p + 32);
		s.nr_user = get16(p + 34);
		s.domain = get32(p + 36);
		nf = (uint32_t)s.nr_kernel + s.nr_user;
		if (s.flags & ~known)
			return bad(c, "SAMPLES record flags unknown");
		if (s.counter >= PMUVIRT_MAX_COUNTERS)
			return bad(c, "SAMPLES record counter above 15");
		if (s.nr_values > PMUVIRT_MAX_COUNTERS)
			return bad(c, "SAMPLES record with more than 16 values");
		if (!(s.flags & PMUVIRT_SAMPLE_VALUES) && s.nr_values)
			return bad(c, "SAMPLES record values without the values flag");
		if (version < 3 && s.domain)
			return bad(c, "SAMPLES record reserved word not zero");
		if (nf > PMUVIRT_CHAIN_MAX)
			return bad(c, "SAMPLES record with more than 127 frames");
		if (nf > chain_depth)
			return bad(c, "SAMPLES record with more frames than INFO's chain depth");
		if (take(c, 8u * s.nr_values, &p, "SAMPLES record values cut short"))
			return -EINVAL;
		for (v = 0; v < s.nr_values; v++)
			s.value[v] = get64(p + 8 * v);
		if (take(c, 8u * nf, &p, "SAMPLES record frames cut short"))
			return -EINVAL;
		for (v = 0; v < nf; v++)
			frame[v] = get64(p + 8 * v);
		if (ops->sample) {
			ret = ops->sample(arg, &ch, &s, frame);
			if (ret)
				return ret;
		}
	}
	if (c->left)
		return bad(c, "SAMPLES section longer than its records");
	return 0;
}

static int parse_thread(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg)
{
	struct pmuvirt_prof_thread t;
	const uint8_t *p;

	if (c->left != THREAD_BYTES)
		return bad(c, "THREAD section not 64 bytes");
	take(c, THREAD_BYTES, &p, "");
	memset(&t, 0, sizeof(t));
	get_fields(&t, p, thread_fields, NR_FIELDS(thread_fields));
	memcpy(t.comm, p + 48, 16);
	if (t.flags & ~PMUVIRT_PROF_THREAD_FLAGS)
		return bad(c, "THREAD flags unknown");
	return ops->thread ? ops->thread(arg, &t) : 0;
}

static int parse_domain(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg)
{
	struct pmuvirt_prof_domain d;
	const uint8_t *p;

	if (c->left != DOMAIN_BYTES)
		return bad(c, "DOMAIN section not 8 bytes");
	take(c, DOMAIN_BYTES, &p, "");
	get_fields(&d, p, domain_fields, NR_FIELDS(domain_fields));
	if (d.flags & ~PMUVIRT_PROF_DOMAIN_FLAGS)
		return bad(c, "DOMAIN flags unknown");
	return ops->domain ? ops->domain(arg, &d) : 0;
}

static int parse_ring(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg)
{
	struct pmuvirt_prof_ring r;
	const uint8_t *p;

	if (c->left != RING_BYTES)
		return bad(c, "RING section not 48 bytes");
	take(c, RING_BYTES, &p, "");
	memset(&r, 0, sizeof(r));
	get_fields(&r, p, ring_fields, NR_FIELDS(ring_fields));
	get_fields(&r, p + 24, ring_count_fields, NR_FIELDS(ring_count_fields));
	if (r.flags & ~PMUVIRT_PROF_RING_FLAGS)
		return bad(c, "RING flags unknown");
	if (get32(p + 20))
		return bad(c, "RING reserved word not zero");
	return ops->ring ? ops->ring(arg, &r) : 0;
}

static int parse_end(struct cursor *c, const struct pmuvirt_prof_ops *ops, void *arg)
{
	struct pmuvirt_prof_end e;
	const uint8_t *p;

	if (c->left != END_BYTES)
		return bad(c, "END section not 40 bytes");
	take(c, END_BYTES, &p, "");
	get_fields(&e, p, end_fields, NR_FIELDS(end_fields));
	if (e.flags & ~PMUVIRT_PROF_END_FLAGS)
		return bad(c, "END flags unknown");
	return ops->end ? ops->end(arg, &e) : 0;
}

int pmuvirt_prof_parse(const void *buf, size_t len, unsigned int flags,
		       const struct pmuvirt_prof_ops *ops, void *arg, struct pmuvirt_prof_error *err)
{
	struct cursor c = { buf, len, 0, err };
	const uint8_t *p;
	uint32_t chain_depth = 0, version;
	int have_info = 0, xen = 0, ret;

	err->offset = 0;
	err->what = NULL;
	if (take(&c, PMUVIRT_PROF_FILE_HDR, &p, "file shorter than its 16-byte header"))
		return -EINVAL;
	if (memcmp(p, PMUVIRT_PROF_MAGIC, 8)) {
		c.off = 0;
		return bad(&c, "not a pmuvirt profile (magic)");
	}
	version = get32(p + 8);
	if (version < PMUVIRT_PROF_VERSION_MIN || version > PMUVIRT_PROF_VERSION) {
		err->offset = 8;
		err->what = "file format version not " STR(PMUVIRT_PROF_VERSION_MIN) " to "
			    STR(PMUVIRT_PROF_VERSION);
		return -EPROTO;
	}
	if (get32(p + 12) != PMUVIRT_PROF_FILE_HDR) {
		c.off = 12;
		return bad(&c, "file header size not 16");
	}
	while (c.left) {
		struct cursor body;
		uint64_t size;
		uint32_t type;

		if (take(&c, PMUVIRT_PROF_SECTION_HDR, &p, "section header cut short"))
			return -EINVAL;
		type = get32(p);
		size = get64(p + 8);
		if (get32(p + 4)) {
			c.off -= PMUVIRT_PROF_SECTION_HDR - 4;
			return bad(&c, "section header reserved word not zero");
		}
		if (size > PMUVIRT_PROF_SECTION_MAX)
			return bad(&c, "section larger than 64 MiB");
		if (size > c.left)
			return bad(&c, "section cut short (file truncated?)");
		body.p = c.p;
		body.left = (size_t)size;
		body.off = c.off;
		body.err = err;
		c.p += size;
		c.left -= size;
		c.off += size;
		if (!have_info && type != PMUVIRT_PROF_INFO) {
			body.off -= PMUVIRT_PROF_SECTION_HDR;
			return bad(&body, "first section not INFO");
		}
		switch (type) {
		case PMUVIRT_PROF_INFO:
			if (have_info) {
				body.off -= PMUVIRT_PROF_SECTION_HDR;
				return bad(&body, "second INFO section");
			}
			have_info = 1;
			ret = parse_info(&body, ops, arg, version, &chain_depth, &xen);
			break;
		case PMUVIRT_PROF_MAPS:
		case PMUVIRT_PROF_THREAD:
			if (xen) {
				body.off -= PMUVIRT_PROF_SECTION_HDR;
				return bad(&body, "MAPS or THREAD section in a Xen session");
			}
			ret = type == PMUVIRT_PROF_MAPS ? parse_maps(&body, ops, arg) :
							  parse_thread(&body, ops, arg);
			break;
		case PMUVIRT_PROF_DOMAIN:
		case PMUVIRT_PROF_RING:
			if (!xen) {
				body.off -= PMUVIRT_PROF_SECTION_HDR;
				return bad(&body, "DOMAIN or RING section outside a Xen session");
			}
			ret = type == PMUVIRT_PROF_DOMAIN ? parse_domain(&body, ops, arg) :
							    parse_ring(&body, ops, arg);
			break;
		case PMUVIRT_PROF_SAMPLES:
			ret = parse_samples(&body, ops, arg, version, chain_depth, xen);
			break;
		case PMUVIRT_PROF_END:
			if (c.left)
				return bad(&c, "data after the END section");
			return parse_end(&body, ops, arg);
		default:
			ret = 0;	/* a later version's section: skipped */
			break;
		}
		if (ret)
			return ret;
	}
	if (flags & PMUVIRT_PROF_PARSE_NO_END)
		return 0;
	err->offset = c.off;
	err->what = "no END section (recording cut short?)";
	return -ENODATA;
}
