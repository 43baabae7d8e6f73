// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Fuzz pmuvirt-report's reading of a profile file (untrusted input): the
 * section parser (tools/pmuvirt-record/profile-file.c), the maps parser on
 * every MAPS text, the report's loading, resolving (kernel symbols from a
 * fixed table, user samples named by their mapping only: no file is
 * opened) and printing, and the kallsyms parser on the raw bytes.
 * Checked: every value a callback sees is within the format's bounds
 * (a record's frames within INFO's chain depth, each read); a parsed maps
 * list is sorted, without overlap, each mapping non-empty; the report's
 * sample count equals the parser's, every frame's function is one it
 * named.  Where pmuvirt-report has --pprof, every profile loaded is
 * encoded too, and the gzip stream decoded again (zlib, protobuf-c): ""
 * first in the string table, every string index and id in range, every
 * stack between 1 and 128 locations deep, the records' count summed back.
 *
 * Most inputs are refused early, so the input is also read as a recipe
 * for a file the writer makes (make_file()): records with values and call
 * chains, whose fields and frames come from the input.  That file goes
 * through the same checks, and the parser must give back every record as
 * written, its chain clamped to INFO's depth.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "session.h"
#ifdef PMUVIRT_HAVE_PPROF
#include <zlib.h>
#include "pprof.h"
#include "profile.pb-c.h"
#endif

#define MADE_RECORDS	64

/* What the parser gave; for a made file, what it must give. */
struct seen {
	uint64_t samples;
	uint32_t chain_depth;
	uint64_t frame_sum;
	const struct pmuvirt_sample *want;	/* a made file's records, or NULL */
	int xen;		/* INFO names a Xen session */
	const struct pmuvirt_sample_chain *want_chain;
};

static int f_info(void *arg, const struct pmuvirt_prof_info *info)
{
	struct seen *seen = arg;

	if (info->nr_counters > PMUVIRT_MAX_COUNTERS || (info->flags & ~PMUVIRT_PROF_INFO_FLAGS) ||
	    (info->sample_format & ~PMUVIRT_SAMPLE_FMT_ALL) ||
	    info->chain_depth > PMUVIRT_CHAIN_MAX ||
	    !info->chain_depth != !(info->sample_format & PMUVIRT_SAMPLE_FMT_CHAIN) ||
	    strlen(info->events) > PMUVIRT_PROF_STRING_MAX ||
	    strlen(info->command) > PMUVIRT_PROF_STRING_MAX ||
	    strlen(info->release) > PMUVIRT_PROF_STRING_MAX)
		abort();
	seen->chain_depth = info->chain_depth;
	seen->xen = !!(info->flags & PMUVIRT_PROF_INFO_XEN);
	return 0;
}

static int f_maps(void *arg, uint32_t pid, uint32_t tick, const char *text, size_t len)
{
	struct pmuvirt_maps m;
	unsigned int i;

	if (len > PMUVIRT_PROF_MAPS_MAX)
		abort();
	if (pmuvirt_maps_parse(text, len, &m))
		return 0;
	for (i = 0; i < m.nr; i++) {
		if (m.map[i].start >= m.map[i].end || !m.map[i].path)
			abort();
		if (i && m.map[i].start < m.map[i - 1].end)
			abort();
		if (pmuvirt_maps_find(&m, m.map[i].start) != &m.map[i] ||
		    pmuvirt_maps_find(&m, m.map[i].end - 1) != &m.map[i])
			abort();
	}
	pmuvirt_maps_free(&m);
	return 0;
}

static int f_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s,
		    const uint64_t *frames)
{
	struct seen *seen = arg;
	unsigned int nf = s->nr_kernel + s->nr_user, k;

	if (s->nr_values > PMUVIRT_MAX_COUNTERS || s->counter >= PMUVIRT_MAX_COUNTERS ||
	    (s->flags & ~(PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_VALUES |
			  (seen->xen ? PMUVIRT_SAMPLE_HYPERVISOR | PMUVIRT_SAMPLE_NO_IP : 0))) ||
	    (s->nr_values && !(s->flags & PMUVIRT_SAMPLE_VALUES)) ||
	    nf > PMUVIRT_CHAIN_MAX || nf > seen->chain_depth || !frames)
		abort();
	for (k = 0; k < nf; k++)
		seen->frame_sum += frames[k];
	if (seen->want) {
		unsigned int i = (unsigned int)(seen->samples % MADE_RECORDS), d = seen->chain_depth;
		const struct pmuvirt_sample *w = &seen->want[i];
		const struct pmuvirt_sample_chain *ch = &seen->want_chain[i];
		unsigned int nk = w->nr_kernel < d ? w->nr_kernel : d;
		unsigned int nu = w->nr_user < d - nk ? w->nr_user : d - nk;

		if (s->ip != w->ip || s->flags != w->flags || s->nr_values != w->nr_values ||
		    s->weight != w->weight || s->nr_kernel != nk || s->nr_user != nu ||
		    s->domain != w->domain ||
		    memcmp(s->value, w->value, s->nr_values * sizeof(*s->value)) ||
		    memcmp(frames, ch->frame, nf * sizeof(*frames)))
			abort();
	}
	seen->samples++;
	return 0;
}

static int f_domain(void *arg, const struct pmuvirt_prof_domain *d)
{
	(void)arg;
	if (d->flags & ~PMUVIRT_PROF_DOMAIN_FLAGS)
		abort();
	return 0;
}

static int f_ring(void *arg, const struct pmuvirt_prof_ring *r)
{
	(void)arg;
	if (r->flags & ~PMUVIRT_PROF_RING_FLAGS)
		abort();
	return 0;
}

static int f_thread(void *arg, const struct pmuvirt_prof_thread *t)
{
	if ((t->flags & ~PMUVIRT_PROF_THREAD_FLAGS) || strlen(t->comm) > 16)
		abort();
	return 0;
}

static int f_end(void *arg, const struct pmuvirt_prof_end *e)
{
	if (e->flags & ~PMUVIRT_PROF_END_FLAGS)
		abort();
	return 0;
}

#ifdef PMUVIRT_HAVE_PPROF
static void check_index(const Perftools__Profiles__Profile *pr, int64_t i)
{
	if (i < 0 || (uint64_t)i >= pr->n_string_table)
		abort();
}

/* @p as pprof: it encodes (or runs out of memory) and decodes to what it holds. */
static void check_pprof(const struct pmuvirt_profile *p, uint64_t samples)
{
	Perftools__Profiles__Profile *pr;
	struct pmuvirt_pprof_stats st;
	size_t gz_len, k, j, cap;
	uint64_t sum = 0;
	unsigned char *raw;
	z_stream z;
	void *gz;
	int ret = pmuvirt_pprof_encode(p, &gz, &gz_len, &st);

	if (ret == -ENOMEM)
		return;
	if (ret)
		abort();
	cap = st.bytes + 1;
	raw = malloc(cap);
	memset(&z, 0, sizeof(z));
	if (!raw || inflateInit2(&z, 15 + 16) != Z_OK)
		abort();
	z.next_in = gz;
	z.avail_in = (uInt)gz_len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out != st.bytes)
		abort();
	inflateEnd(&z);
	pr = perftools__profiles__profile__unpack(NULL, st.bytes, raw);
	if (!pr || !pr->n_string_table || pr->string_table[0][0] || pr->n_sample != st.samples ||
	    pr->n_location != st.locations || pr->n_function != st.functions ||
	    pr->n_mapping != st.mappings || pr->n_sample_type != 2 || !pr->period_type)
		abort();
	for (k = 0; k < pr->n_sample_type; k++) {
		check_index(pr, pr->sample_type[k]->type);
		check_index(pr, pr->sample_type[k]->unit);
	}
	for (k = 0; k < pr->n_sample; k++) {
		const Perftools__Profiles__Sample *s = pr->sample[k];

		if (s->n_value != 2 || s->n_location_id < 1 ||
		    s->n_location_id > 1 + PMUVIRT_CHAIN_MAX || s->value[0] <= 0)
			abort();
		for (j = 0; j < s->n_location_id; j++)
			if (!s->location_id[j] || s->location_id[j] > pr->n_location)
				abort();
		sum += (uint64_t)s->value[0];
		for (j = 0; j < s->n_label; j++) {
			check_index(pr, s->label[j]->key);
			check_index(pr, s->label[j]->str);
		}
	}
	if (sum != samples)
		abort();
	for (k = 0; k < pr->n_location; k++) {
		const Perftools__Profiles__Location *l = pr->location[k];

		if (l->id != k + 1 || l->mapping_id > pr->n_mapping || l->n_line != 1 ||
		    !l->line[0]->function_id || l->line[0]->function_id > pr->n_function)
			abort();
	}
	for (k = 0; k < pr->n_function; k++) {
		if (pr->function[k]->id != k + 1)
			abort();
		check_index(pr, pr->function[k]->name);
		check_index(pr, pr->function[k]->system_name);
	}
	for (k = 0; k < pr->n_mapping; k++) {
		if (pr->mapping[k]->id != k + 1)
			abort();
		check_index(pr, pr->mapping[k]->filename);
	}
	for (k = 0; k < pr->n_comment; k++)
		check_index(pr, pr->comment[k]);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(raw);
	free(gz);
}
#endif

/* The report's frames: each names a function the report named, of its record's thread. */
static void check_frames(const struct pmuvirt_profile *p, uint64_t samples)
{
	unsigned int nr_fn = pmuvirt_profile_functions(p), k;
	struct pmuvirt_profile_sample s, fr;
	uint64_t i;

	for (i = 0; i < samples; i++) {
		pmuvirt_profile_sample(p, i, &s);
		if (s.function >= nr_fn || s.nr_frames > PMUVIRT_CHAIN_MAX)
			abort();
		for (k = 0; k < s.nr_frames; k++) {
			pmuvirt_profile_frame(p, i, k, &fr);
			if (fr.function >= nr_fn || fr.thread != s.thread ||
			    fr.weight != s.weight || fr.nr_frames || (fr.kernel && fr.map))
				abort();
		}
	}
}

/* A Xen session's symbols: a name for even addresses, none for odd ones. */
static const char *fuzz_namer(void *arg, uint32_t domain, int mode, uint64_t addr,
			      const char **dso)
{
	(void)arg;
	(void)domain;
	if (mode < 0 || mode > 2)
		abort();
	*dso = mode == 0 ? "[xen]" : mode == 1 ? "[kernel]" : "/prog";
	return addr & 1 ? NULL : "f";
}

/* The parser, then pmuvirt-report's whole work, on @data. */
static void check_file(const uint8_t *data, size_t size, struct seen *seen)
{
	static const struct pmuvirt_prof_ops ops = {
		.info = f_info, .maps = f_maps, .sample = f_sample,
		.thread = f_thread, .end = f_end, .domain = f_domain, .ring = f_ring,
	};
	static const char kallsyms[] = "ffffffff81000000 T _stext\nffffffff81001000 t f\t[m]\n";
	static FILE *null;
	struct pmuvirt_prof_error err;
	struct pmuvirt_profile *p;
	struct pmuvirt_ksyms k;
	uint64_t weight;
	int ret, ret2, out;

	if (!null)
		null = fopen("/dev/null", "w");
	ret = pmuvirt_prof_parse(data, size, PMUVIRT_PROF_PARSE_NO_END, &ops, seen, &err);
	if (ret && !err.what && ret != -ENOMEM)
		abort();	/* a refusal always says why */
	if (seen->want && ret)
		abort();	/* the writer's files are read */
	if (pmuvirt_ksyms_parse((const char *)data, size, &k) == 0)
		pmuvirt_ksyms_free(&k);
	if (pmuvirt_ksyms_parse(kallsyms, sizeof(kallsyms) - 1, &k))
		abort();
	p = pmuvirt_profile_load(data, size, PMUVIRT_PROF_PARSE_NO_END, &err, &ret2);
	if ((p == NULL) != (ret2 != 0) || (ret2 && ret2 != ret))
		abort();
	if (p) {
		if (pmuvirt_profile_samples(p, &weight) != seen->samples)
			abort();
		if ((pmuvirt_profile_info(p)->flags & PMUVIRT_PROF_INFO_XEN) ?
		    pmuvirt_profile_resolve_session(p, fuzz_namer, NULL) :
		    pmuvirt_profile_resolve(p, &k, PMUVIRT_PROFILE_NO_ELF))
			abort();
		check_frames(p, seen->samples);
		pmuvirt_profile_print_flat(p, null);
		pmuvirt_profile_print_folded(p, null);
		pmuvirt_profile_print_dump(p, null);
		pmuvirt_profile_print_warnings(p, null);
#ifdef PMUVIRT_HAVE_PPROF
		check_pprof(p, seen->samples);
#endif
		pmuvirt_profile_free(p);
	}
	pmuvirt_ksyms_free(&k);
	/* a Xen session's reading: every output, without symbol files */
	for (out = PMUVIRT_SESSION_FLAT; out <= PMUVIRT_SESSION_DUMP; out++) {
		struct pmuvirt_session_opts so = {
			.top = 30, .output = out, .per_vcpu = out == PMUVIRT_SESSION_FLAT,
			.parse_flags = PMUVIRT_PROF_PARSE_NO_END,
		};

		if (pmuvirt_session_report(data, size, &so, "fuzz", null, null) && !ret &&
		    pmuvirt_session_is(data, size) && seen->want)
			abort();	/* the writer's sessions are read */
	}
}

/* The input, a byte at a time (zeroes past its end). */
struct recipe {
	const uint8_t *p;
	size_t left;
};

static unsigned int byte(struct recipe *r)
{
	if (!r->left)
		return 0;
	r->left--;
	return *r->p++;
}

/* An address near one the report can name: a user mapping, the kernel, or none. */
static uint64_t addr(struct recipe *r)
{
	static const uint64_t base[4] = {
		0x400000, 0x7f0000000000ull, 0xffffffff81000000ull, 0,
	};
	unsigned int b = byte(r);

	return base[b & 3] + ((uint64_t)(b >> 2) << 8 | byte(r));
}

/*
 * A file made by the writer from the input: INFO's chain depth (0 to 127)
 * from the first byte, a maps snapshot, then up to MADE_RECORDS records
 * in two chunks, each's flags, counts, addresses and frames from the
 * input.  Returns its size (*@buf to be freed), 0 when none was made.
 */
static size_t make_file(const uint8_t *data, size_t size, struct pmuvirt_sample *recs,
			struct pmuvirt_sample_chain *chains, char **buf)
{
	static const char maps[] =
		"400000-401000 r-xp 00000000 00:00 0 /fuzz/prog\n"
		"7f0000000000-7f0000010000 r-xp 00000000 00:00 0 [vdso]\n";
	struct pmuvirt_prof_chunk c[2] = { { 10, 11, 1 }, { 10, 12, 2 } };
	struct pmuvirt_prof_end end = { .threads = 0 };
	struct recipe r = { data, size };
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_writer w;
	unsigned int n, i, k, half;
	size_t len = 0;
	FILE *f;

	if (!size)
		return 0;
	memset(&info, 0, sizeof(info));
	info.chain_depth = byte(&r) % (PMUVIRT_CHAIN_MAX + 1);
	info.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT |
			     (info.chain_depth ? PMUVIRT_SAMPLE_FMT_CHAIN : 0);
	info.period = 1000;
	n = byte(&r) % (MADE_RECORDS + 1);
	memset(recs, 0, MADE_RECORDS * sizeof(*recs));
	for (i = 0; i < n; i++) {
		struct pmuvirt_sample *s = &recs[i];
		unsigned int b = byte(&r);

		s->flags = b & (PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_VALUES);
		s->counter = (uint8_t)(b >> 4);
		s->weight = 1 + byte(&r);
		s->ip = addr(&r);
		if (s->flags & PMUVIRT_SAMPLE_VALUES)
			s->nr_values = (uint8_t)(byte(&r) % (PMUVIRT_MAX_COUNTERS + 1));
		for (k = 0; k < s->nr_values; k++)
			s->value[k] = (uint64_t)byte(&r) << (k * 3);
		s->nr_kernel = (uint16_t)(byte(&r) % 8);
		s->nr_user = (uint16_t)byte(&r);
		for (k = 0; k < PMUVIRT_CHAIN_MAX; k++)
			chains[i].frame[k] = k < s->nr_kernel + s->nr_user ? addr(&r) : 0;
	}
	f = open_memstream(buf, &len);
	if (!f)
		return 0;
	half = n / 2;
	if (pmuvirt_prof_write_header(&w, f) || pmuvirt_prof_write_info(&w, &info) ||
	    pmuvirt_prof_write_maps(&w, 10, 1, maps, sizeof(maps) - 1) ||
	    pmuvirt_prof_write_samples(&w, &c[0], recs, chains, half) ||
	    pmuvirt_prof_write_samples(&w, &c[1], recs + half, chains + half, n - half) ||
	    pmuvirt_prof_write_end(&w, &end))
		abort();
	fclose(f);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pmuvirt_sample recs[MADE_RECORDS];
	static struct pmuvirt_sample_chain chains[MADE_RECORDS];
	struct seen seen;
	char *buf = NULL;
	size_t len;

	memset(&seen, 0, sizeof(seen));
	check_file(data, size, &seen);
	len = make_file(data, size, recs, chains, &buf);
	if (len) {
		memset(&seen, 0, sizeof(seen));
		seen.want = recs;
		seen.want_chain = chains;
		check_file((const uint8_t *)buf, len, &seen);
	}
	free(buf);
	return 0;
}
