// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Fuzz pmuvirt-report's reading of a profile file (untrusted input): the
 * section parser (tools/pmuvirt-record/profile-file.c), the maps parser on
 * every MAPS text, the report's loading, resolving (kernel symbols from a
 * fixed table, user samples named by their mapping only: no file is
 * opened) and printing, and the kallsyms parser on the raw bytes.
 * Checked: every value a callback sees is within the format's bounds; a
 * parsed maps list is sorted, without overlap, each mapping non-empty; the
 * report's sample count equals the parser's.  Where pmuvirt-report has
 * --pprof, every profile loaded is encoded too, and the gzip stream
 * decoded again (zlib, protobuf-c): "" first in the string table, every
 * string index and id in range, the records' count summed back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#ifdef PMUVIRT_HAVE_PPROF
#include <zlib.h>
#include "pprof.h"
#include "profile.pb-c.h"
#endif

struct seen {
	uint64_t samples;
};

static int f_info(void *arg, const struct pmuvirt_prof_info *info)
{
	if (info->nr_counters > PMUVIRT_MAX_COUNTERS || info->flags ||
	    strlen(info->events) > PMUVIRT_PROF_STRING_MAX ||
	    strlen(info->command) > PMUVIRT_PROF_STRING_MAX ||
	    strlen(info->release) > PMUVIRT_PROF_STRING_MAX)
		abort();
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

static int f_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s)
{
	struct seen *seen = arg;

	if (s->nr_values > PMUVIRT_MAX_COUNTERS || s->counter >= PMUVIRT_MAX_COUNTERS ||
	    (s->flags & ~(PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_VALUES)) ||
	    (s->nr_values && !(s->flags & PMUVIRT_SAMPLE_VALUES)))
		abort();
	seen->samples++;
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

		if (s->n_value != 2 || s->n_location_id != 1 || !s->location_id[0] ||
		    s->location_id[0] > pr->n_location || s->value[0] <= 0)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pmuvirt_prof_ops ops = {
		.info = f_info, .maps = f_maps, .sample = f_sample,
		.thread = f_thread, .end = f_end,
	};
	static const char kallsyms[] = "ffffffff81000000 T _stext\nffffffff81001000 t f\t[m]\n";
	static FILE *null;
	struct pmuvirt_prof_error err;
	struct pmuvirt_profile *p;
	struct pmuvirt_ksyms k;
	struct seen seen = { 0 };
	uint64_t weight;
	int ret, ret2;

	if (!null)
		null = fopen("/dev/null", "w");
	ret = pmuvirt_prof_parse(data, size, PMUVIRT_PROF_PARSE_NO_END, &ops, &seen, &err);
	if (ret && !err.what && ret != -ENOMEM)
		abort();	/* a refusal always says why */
	if (pmuvirt_ksyms_parse((const char *)data, size, &k) == 0)
		pmuvirt_ksyms_free(&k);
	if (pmuvirt_ksyms_parse(kallsyms, sizeof(kallsyms) - 1, &k))
		abort();
	p = pmuvirt_profile_load(data, size, PMUVIRT_PROF_PARSE_NO_END, &err, &ret2);
	if ((p == NULL) != (ret2 != 0) || (ret2 && ret2 != ret))
		abort();
	if (p) {
		if (pmuvirt_profile_samples(p, &weight) != seen.samples)
			abort();
		if (pmuvirt_profile_resolve(p, &k, PMUVIRT_PROFILE_NO_ELF))
			abort();
		pmuvirt_profile_print_flat(p, null);
		pmuvirt_profile_print_folded(p, null);
		pmuvirt_profile_print_dump(p, null);
		pmuvirt_profile_print_warnings(p, null);
#ifdef PMUVIRT_HAVE_PPROF
		check_pprof(p, seen.samples);
#endif
		pmuvirt_profile_free(p);
	}
	pmuvirt_ksyms_free(&k);
	return 0;
}
