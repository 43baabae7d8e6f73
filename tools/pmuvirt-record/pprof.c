// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-report --pprof: the profile as perftools.profiles.Profile.
 *
 * The message is built from protoc-c's structures (profile.pb-c.h,
 * generated at build time from pprof's profile.proto), packed by
 * protobuf-c and compressed by zlib into a gzip stream.  Every entity is
 * interned in a hash table: strings (index 0 is ""), functions (one per
 * function the report named), mappings (one per distinct start, limit,
 * offset and file), locations (one per address, function and mapping)
 * and samples (records summed per thread and call stack).  A record's
 * stack is the location of its IP, then one per frame of its call chain
 * (their return addresses), innermost first: leaf first, as profile.proto
 * orders Sample.location_id.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "pprof.h"

#define NR_VALUES	2	/* samples, the event */
#define NR_LABELS	3	/* thread, tid, pid */

/* An open-addressing table of keys of @width words to values (0: empty slot). */
struct tab {
	uint64_t *key;
	uint64_t *val;
	size_t cap;
	size_t nr;
	unsigned int width;
};

/* A Sample's records and their weights (saturating), its thread and its stack. */
struct sum {
	uint64_t records;
	uint64_t weight;
	unsigned int thread;
	unsigned int nr_loc;	/* its Location ids ... */
	size_t loc;		/* ... at smp_loc[loc] */
};

/* A stack of Location ids, leaf first. */
struct stack {
	const uint64_t *loc;
	unsigned int nr;
};

struct enc {
	const struct pmuvirt_profile *p;
	struct tab str_tab;		/* key: the string's hash; val: index + 1 */
	char **str;
	size_t nr_str, cap_str;
	uint64_t *fn_of;		/* report function index (+1 for "out of range") -> Function id */
	Perftools__Profiles__Function *fn;
	size_t nr_fn, cap_fn;
	struct tab map_tab;		/* start, limit, offset, file -> Mapping id */
	Perftools__Profiles__Mapping *map;
	size_t nr_map, cap_map;
	struct tab loc_tab;		/* address, Function id, Mapping id -> Location id */
	Perftools__Profiles__Location *loc;
	Perftools__Profiles__Line *line;
	Perftools__Profiles__Line **line_p;
	size_t nr_loc, cap_loc, cap_line;
	struct tab smp_tab;		/* thread, the stack's hash and depth -> Sample index + 1 */
	Perftools__Profiles__Sample *smp;
	uint64_t *smp_loc;		/* the Samples' stacks, one after another */
	struct sum *smp_sum;
	size_t nr_smp, cap_smp, nr_smp_loc, cap_smp_loc, cap_smp_sum;
	Perftools__Profiles__Label *label;	/* NR_LABELS per thread */
	Perftools__Profiles__Label **label_p;
	uint64_t clamped;
};

/* Room for element @nr of *@arr (elements of @size bytes). */
static int grow(void *arr, size_t nr, size_t *cap, size_t size)
{
	size_t n;
	void *p;

	if (nr < *cap)
		return 0;
	n = *cap ? 2 * *cap : 64;
	if (n < *cap || n > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*(void **)arr, n * size);
	if (!p)
		return -ENOMEM;
	*(void **)arr = p;
	*cap = n;
	return 0;
}

static uint64_t mix(const uint64_t *k, unsigned int width)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	unsigned int i;

	for (i = 0; i < width; i++) {
		h ^= k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

static int tab_resize(struct tab *t)
{
	size_t n = t->cap ? 2 * t->cap : 1024, i, j;
	uint64_t *key, *val;

	if (n > SIZE_MAX / sizeof(*key) / t->width)
		return -ENOMEM;
	key = malloc(n * t->width * sizeof(*key));
	val = calloc(n, sizeof(*val));
	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->val[i])
			continue;
		for (j = mix(&t->key[i * t->width], t->width) & (n - 1); val[j]; j = (j + 1) & (n - 1))
			;
		memcpy(&key[j * t->width], &t->key[i * t->width], t->width * sizeof(*key));
		val[j] = t->val[i];
	}
	free(t->key);
	free(t->val);
	t->key = key;
	t->val = val;
	t->cap = n;
	return 0;
}

/*
 * The value slot of @k: its value, or 0 for a new key (the caller stores
 * one there, non-zero).  With @eq (a key equal in hash only, for strings)
 * the slots are probed until @eq accepts a value.  NULL without memory.
 */
static uint64_t *tab_slot(struct tab *t, const uint64_t *k,
			  int (*eq)(struct enc *e, uint64_t val, const void *arg),
			  struct enc *e, const void *arg)
{
	size_t i;

	if (2 * (t->nr + 1) > t->cap && tab_resize(t))
		return NULL;
	for (i = mix(k, t->width) & (t->cap - 1); t->val[i]; i = (i + 1) & (t->cap - 1))
		if (!memcmp(&t->key[i * t->width], k, t->width * sizeof(*k)) &&
		    (!eq || eq(e, t->val[i], arg)))
			return &t->val[i];
	memcpy(&t->key[i * t->width], k, t->width * sizeof(*k));
	t->nr++;
	return &t->val[i];
}

static void tab_free(struct tab *t)
{
	free(t->key);
	free(t->val);
}

/* ---- strings ---- */

/* @s as valid UTF-8 without control characters: each byte that is not becomes '?'. */
static char *clean_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	while (i < n) {
		unsigned int c = u[i], len, min, cp, k;

		if (c < 0x80) {
			out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2; min = 0x80; cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3; min = 0x800; cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4; min = 0x10000; cp = c & 0x07;
		} else {
			out[i++] = '?';
			continue;
		}
		for (k = 1; k < len && i + k < n && (u[i + k] & 0xc0) == 0x80; k++)
			cp = cp << 6 | (u[i + k] & 0x3f);
		if (k < len || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, u + i, len);
		i += len;
	}
	out[n] = 0;
	return out;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static int str_eq(struct enc *e, uint64_t val, const void *arg)
{
	return !strcmp(e->str[val - 1], arg);
}

/* The string table index of @s (cleaned), or -1 without memory. */
static int64_t str_id(struct enc *e, const char *s)
{
	char *c = clean_utf8(s);
	uint64_t h, *slot;

	if (!c)
		return -1;
	h = str_hash(c);
	slot = tab_slot(&e->str_tab, &h, str_eq, e, c);
	if (!slot || (!*slot && grow(&e->str, e->nr_str, &e->cap_str, sizeof(*e->str)))) {
		free(c);
		return -1;
	}
	if (*slot) {
		free(c);
		return (int64_t)(*slot - 1);
	}
	e->str[e->nr_str] = c;
	*slot = ++e->nr_str;
	return (int64_t)(*slot - 1);
}

/* ---- functions, mappings, locations ---- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* The Function of the report's function @f (0 without memory). */
static uint64_t fn_id(struct enc *e, uint32_t f)
{
	unsigned int nr = pmuvirt_profile_functions(e->p);
	unsigned int i = f < nr ? f : nr;
	Perftools__Profiles__Function *fn;
	const char *name, *dso;
	char *label = NULL;
	int kernel;
	int64_t s;

	if (e->fn_of[i])
		return e->fn_of[i];
	name = pmuvirt_profile_function(e->p, f, &dso, &kernel);
	/* an unnamed function goes by its file, as in the folded lines */
	if (!strcmp(name, "[unknown]") && dso[0] != '[') {
		if (asprintf(&label, "[%s]", base_name(dso)) < 0)
			return 0;
		name = label;
	} else if (!strcmp(name, "[unknown]")) {
		name = dso;
	}
	s = str_id(e, name);
	free(label);
	if (s < 0 || grow(&e->fn, e->nr_fn, &e->cap_fn, sizeof(*e->fn)))
		return 0;
	fn = &e->fn[e->nr_fn];
	perftools__profiles__function__init(fn);
	fn->id = ++e->nr_fn;
	fn->name = s;
	fn->system_name = s;
	return e->fn_of[i] = fn->id;
}

/* The Mapping of @m (0 without memory). */
static uint64_t map_id(struct enc *e, const struct pmuvirt_map *m)
{
	Perftools__Profiles__Mapping *mp;
	int64_t file = str_id(e, m->path);
	uint64_t k[4], *slot;

	if (file < 0)
		return 0;
	k[0] = m->start;
	k[1] = m->end;
	k[2] = m->pgoff;
	k[3] = (uint64_t)file;
	slot = tab_slot(&e->map_tab, k, NULL, NULL, NULL);
	if (!slot)
		return 0;
	if (*slot)
		return *slot;
	if (grow(&e->map, e->nr_map, &e->cap_map, sizeof(*e->map)))
		return 0;
	mp = &e->map[e->nr_map];
	perftools__profiles__mapping__init(mp);
	mp->id = e->nr_map + 1;
	mp->memory_start = m->start;
	mp->memory_limit = m->end;
	mp->file_offset = m->pgoff;
	mp->filename = file;
	/* every location carries its function: nothing for pprof to look up */
	mp->has_functions = 1;
	e->nr_map++;
	return *slot = mp->id;
}

/* The Location of sample @s (0 without memory). */
static uint64_t loc_id(struct enc *e, const struct pmuvirt_profile_sample *s)
{
	Perftools__Profiles__Location *l;
	uint64_t k[3], *slot;

	k[0] = s->ip;
	k[1] = fn_id(e, s->function);
	k[2] = s->map ? map_id(e, s->map) : 0;
	if (!k[1] || (s->map && !k[2]))
		return 0;
	slot = tab_slot(&e->loc_tab, k, NULL, NULL, NULL);
	if (!slot)
		return 0;
	if (*slot)
		return *slot;
	if (grow(&e->loc, e->nr_loc, &e->cap_loc, sizeof(*e->loc)) ||
	    grow(&e->line, e->nr_loc, &e->cap_line, sizeof(*e->line)))
		return 0;
	l = &e->loc[e->nr_loc];
	perftools__profiles__location__init(l);
	perftools__profiles__line__init(&e->line[e->nr_loc]);
	l->id = e->nr_loc + 1;
	l->mapping_id = k[2];
	l->address = s->ip;
	e->line[e->nr_loc].function_id = k[1];
	e->nr_loc++;
	return *slot = l->id;
}

/* ---- samples ---- */

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int64_t clamp(struct enc *e, uint64_t v)
{
	if (v <= INT64_MAX)
		return (int64_t)v;
	e->clamped++;
	return INT64_MAX;
}

static int stack_eq(struct enc *e, uint64_t val, const void *arg)
{
	const struct sum *sum = &e->smp_sum[val - 1];
	const struct stack *st = arg;

	return sum->nr_loc == st->nr &&
	       !memcmp(&e->smp_loc[sum->loc], st->loc, st->nr * sizeof(*st->loc));
}

/* Record @i, added to the Sample of its thread and stack. */
static int add_sample(struct enc *e, uint64_t i)
{
	uint64_t loc[1 + PMUVIRT_CHAIN_MAX], k[3], *slot;
	struct pmuvirt_profile_sample s, fr;
	struct stack st = { loc, 0 };
	struct sum *sum;
	unsigned int j;

	pmuvirt_profile_sample(e->p, i, &s);
	loc[st.nr++] = loc_id(e, &s);
	for (j = 0; j < s.nr_frames && j < PMUVIRT_CHAIN_MAX; j++) {
		pmuvirt_profile_frame(e->p, i, j, &fr);
		loc[st.nr++] = loc_id(e, &fr);
	}
	for (j = 0; j < st.nr; j++)
		if (!loc[j])
			return -ENOMEM;
	k[0] = s.thread;
	k[1] = mix(loc, st.nr);
	k[2] = st.nr;
	slot = tab_slot(&e->smp_tab, k, stack_eq, e, &st);
	if (!slot)
		return -ENOMEM;
	if (!*slot) {
		if (grow(&e->smp, e->nr_smp, &e->cap_smp, sizeof(*e->smp)) ||
		    grow(&e->smp_sum, e->nr_smp, &e->cap_smp_sum, sizeof(*e->smp_sum)))
			return -ENOMEM;
		while (e->nr_smp_loc + st.nr > e->cap_smp_loc)
			if (grow(&e->smp_loc, e->cap_smp_loc, &e->cap_smp_loc, sizeof(*e->smp_loc)))
				return -ENOMEM;
		perftools__profiles__sample__init(&e->smp[e->nr_smp]);
		memcpy(&e->smp_loc[e->nr_smp_loc], loc, st.nr * sizeof(*loc));
		memset(&e->smp_sum[e->nr_smp], 0, sizeof(*e->smp_sum));
		e->smp_sum[e->nr_smp].thread = s.thread;
		e->smp_sum[e->nr_smp].nr_loc = st.nr;
		e->smp_sum[e->nr_smp].loc = e->nr_smp_loc;
		e->nr_smp_loc += st.nr;
		*slot = ++e->nr_smp;
	}
	sum = &e->smp_sum[*slot - 1];
	sum->records = add_sat(sum->records, 1);
	sum->weight = add_sat(sum->weight, s.weight);
	return 0;
}

/* The labels of every thread: its name, tid and pid. */
static int thread_labels(struct enc *e)
{
	unsigned int nr = pmuvirt_profile_threads(e->p), t, i;
	int64_t key[NR_LABELS];

	e->label = calloc((size_t)nr * NR_LABELS + 1, sizeof(*e->label));
	e->label_p = calloc((size_t)nr * NR_LABELS + 1, sizeof(*e->label_p));
	if (!e->label || !e->label_p)
		return -ENOMEM;
	key[0] = str_id(e, "thread");
	key[1] = str_id(e, "tid");
	key[2] = str_id(e, "pid");
	if (key[0] < 0 || key[1] < 0 || key[2] < 0)
		return -ENOMEM;
	for (t = 0; t < nr; t++) {
		Perftools__Profiles__Label *l = &e->label[(size_t)t * NR_LABELS];
		uint32_t tid, pid;
		uint64_t lost;
		const char *comm = pmuvirt_profile_thread(e->p, t, &tid, &pid, &lost);

		for (i = 0; i < NR_LABELS; i++) {
			perftools__profiles__label__init(&l[i]);
			l[i].key = key[i];
			e->label_p[(size_t)t * NR_LABELS + i] = &l[i];
		}
		l[0].str = str_id(e, comm);
		l[1].num = tid;
		l[2].num = pid;
		if (l[0].str < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- the message ---- */

/* zlib's gzip stream of @in. */
static int gzip(const void *in, size_t len, void **out, size_t *out_len)
{
	const unsigned char *ip = in;
	unsigned char *buf = NULL;
	size_t n = 0, cap = len / 4 + 4096, left = len;
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	for (;;) {
		uInt in_chunk = left > UINT_MAX ? UINT_MAX : (uInt)left, out_chunk;

		if (n == cap && grow(&buf, n, &cap, 1)) {
			ret = Z_MEM_ERROR;
			break;
		}
		out_chunk = cap - n > UINT_MAX ? UINT_MAX : (uInt)(cap - n);
		z.next_in = (Bytef *)ip;
		z.avail_in = in_chunk;
		z.next_out = buf + n;
		z.avail_out = out_chunk;
		ret = deflate(&z, left == in_chunk ? Z_FINISH : Z_NO_FLUSH);
		ip += in_chunk - z.avail_in;
		left -= in_chunk - z.avail_in;
		n += out_chunk - z.avail_out;
		if (ret == Z_STREAM_END || (ret != Z_OK && ret != Z_BUF_ERROR))
			break;
	}
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(buf);
		return ret == Z_MEM_ERROR ? -ENOMEM : -EIO;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

/* The first event of the list ("instructions" of "instructions,tsc"). */
static int64_t event_id(struct enc *e)
{
	const char *ev = pmuvirt_profile_info(e->p)->events;
	size_t n = strcspn(ev, ",");
	char name[PMUVIRT_PROF_STRING_MAX + 1];

	if (!n)
		return str_id(e, "events");
	memcpy(name, ev, n);
	name[n] = 0;
	return str_id(e, name);
}

/* "@what: @text" as a comment, when @text is not empty. */
static int comment(struct enc *e, int64_t *c, size_t *nr, const char *what, const char *text)
{
	char *s;
	int64_t id;

	if (!text[0])
		return 0;
	if (asprintf(&s, "%s: %s", what, text) < 0)
		return -ENOMEM;
	id = str_id(e, s);
	free(s);
	if (id < 0)
		return -ENOMEM;
	c[(*nr)++] = id;
	return 0;
}

/* The string table's fixed entries, the threads' labels and every record interned. */
static int collect(struct enc *e, Perftools__Profiles__ValueType *vt)
{
	uint64_t nr, i;
	int64_t count, ev;

	if (str_id(e, "") != 0)		/* index 0 */
		return -ENOMEM;
	count = str_id(e, "count");
	ev = event_id(e);
	vt[0].type = str_id(e, "samples");
	if (count < 0 || ev < 0 || vt[0].type < 0 || thread_labels(e))
		return -ENOMEM;
	vt[0].unit = count;
	vt[1].type = ev;
	vt[1].unit = count;
	vt[2].type = ev;		/* the period's type */
	vt[2].unit = count;
	nr = pmuvirt_profile_samples(e->p, &i);
	for (i = 0; i < nr; i++)
		if (add_sample(e, i))
			return -ENOMEM;
	return 0;
}

/* The Samples' values (@values: NR_VALUES per Sample) and the Locations' lines. */
static void fill(struct enc *e, int64_t *values)
{
	const struct pmuvirt_prof_info *info = pmuvirt_profile_info(e->p);
	uint64_t period = info->period ? info->period : 1;
	size_t k;

	for (k = 0; k < e->nr_smp; k++) {
		Perftools__Profiles__Sample *sm = &e->smp[k];
		const struct sum *sum = &e->smp_sum[k];

		sm->n_location_id = sum->nr_loc;
		sm->location_id = &e->smp_loc[sum->loc];
		sm->n_value = NR_VALUES;
		sm->value = &values[k * NR_VALUES];
		sm->value[0] = clamp(e, sum->records);
		/* the events the records stand for: weight times period */
		sm->value[1] = clamp(e, sum->weight && period > UINT64_MAX / sum->weight ?
				     UINT64_MAX : sum->weight * period);
		sm->n_label = NR_LABELS;
		sm->label = &e->label_p[(size_t)sum->thread * NR_LABELS];
	}
	for (k = 0; k < e->nr_loc; k++) {
		e->line_p[k] = &e->line[k];
		e->loc[k].n_line = 1;
		e->loc[k].line = &e->line_p[k];
	}
}

/* @dst: pointers to the @n elements of @arr (NULL without memory). */
#define POINT_TO(dst, arr, n) do {				\
	size_t k_;						\
								\
	(dst) = calloc((n) + 1, sizeof(*(dst)));		\
	for (k_ = 0; (dst) && k_ < (n); k_++)			\
		(dst)[k_] = &(arr)[k_];				\
} while (0)

/* Fill in @prof's fields and pointer arrays (the caller frees them). */
static int assemble(struct enc *e, Perftools__Profiles__Profile *prof,
		    Perftools__Profiles__ValueType *vt, Perftools__Profiles__ValueType **vt_p,
		    int64_t *comments)
{
	const struct pmuvirt_prof_info *info = pmuvirt_profile_info(e->p);
	size_t k = 0;

	if (comment(e, comments, &k, "command", info->command) ||
	    comment(e, comments, &k, "events", info->events) ||
	    comment(e, comments, &k, "kernel", info->release))
		return -ENOMEM;
	prof->n_comment = k;
	prof->comment = comments;
	POINT_TO(prof->sample, e->smp, e->nr_smp);
	POINT_TO(prof->mapping, e->map, e->nr_map);
	POINT_TO(prof->location, e->loc, e->nr_loc);
	POINT_TO(prof->function, e->fn, e->nr_fn);
	if (!prof->sample || !prof->mapping || !prof->location || !prof->function)
		return -ENOMEM;
	prof->n_sample = e->nr_smp;
	prof->n_mapping = e->nr_map;
	prof->n_location = e->nr_loc;
	prof->n_function = e->nr_fn;
	prof->n_string_table = e->nr_str;
	prof->string_table = e->str;
	vt_p[0] = &vt[0];
	vt_p[1] = &vt[1];
	prof->n_sample_type = NR_VALUES;
	prof->sample_type = vt_p;
	prof->period_type = &vt[2];
	prof->period = clamp(e, info->period ? info->period : 1);
	prof->default_sample_type = vt[1].type;
	prof->time_nanos = clamp(e, info->start_ns);
	return 0;
}

static void enc_free(struct enc *e)
{
	size_t k;

	for (k = 0; k < e->nr_str; k++)
		free(e->str[k]);
	free(e->str);
	tab_free(&e->str_tab);
	tab_free(&e->map_tab);
	tab_free(&e->loc_tab);
	tab_free(&e->smp_tab);
	free(e->fn_of);
	free(e->fn);
	free(e->map);
	free(e->loc);
	free(e->line);
	free(e->line_p);
	free(e->smp);
	free(e->smp_loc);
	free(e->smp_sum);
	free(e->label);
	free(e->label_p);
}

int pmuvirt_pprof_encode(const struct pmuvirt_profile *p, void **buf, size_t *len,
			 struct pmuvirt_pprof_stats *stats)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[3], *vt_p[NR_VALUES];
	int64_t comments[3], *values = NULL;
	uint8_t *packed = NULL;
	size_t size = 0, k;
	struct enc e;
	int ret = -ENOMEM;

	memset(&e, 0, sizeof(e));
	e.p = p;
	e.str_tab.width = 1;
	e.map_tab.width = 4;
	e.loc_tab.width = 3;
	e.smp_tab.width = 3;
	for (k = 0; k < 3; k++)
		perftools__profiles__value_type__init(&vt[k]);
	e.fn_of = calloc((size_t)pmuvirt_profile_functions(p) + 1, sizeof(*e.fn_of));
	if (!e.fn_of || collect(&e, vt))
		goto out;
	e.line_p = calloc(e.nr_loc + 1, sizeof(*e.line_p));
	values = e.nr_smp <= SIZE_MAX / sizeof(*values) / NR_VALUES ?
		 malloc((e.nr_smp ? e.nr_smp : 1) * NR_VALUES * sizeof(*values)) : NULL;
	if (!e.line_p || !values)
		goto out;
	fill(&e, values);
	if (assemble(&e, &prof, vt, vt_p, comments))
		goto out;
	size = perftools__profiles__profile__get_packed_size(&prof);
	packed = malloc(size ? size : 1);
	if (!packed)
		goto out;
	if (perftools__profiles__profile__pack(&prof, packed) != size) {
		ret = -EIO;
		goto out;
	}
	ret = gzip(packed, size, buf, len);
out:
	if (stats) {
		stats->samples = e.nr_smp;
		stats->locations = e.nr_loc;
		stats->functions = e.nr_fn;
		stats->mappings = e.nr_map;
		stats->strings = e.nr_str;
		stats->clamped = e.clamped;
		stats->bytes = size;
	}
	free(packed);
	free(prof.sample);
	free(prof.mapping);
	free(prof.location);
	free(prof.function);
	free(values);
	enc_free(&e);
	return ret;
}

/* ---- the file ---- */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;

	while (len) {
		ssize_t n = write(fd, b, len > (1u << 30) ? (1u << 30) : len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int pmuvirt_pprof_save(const char *path, const void *buf, size_t len)
{
	struct stat st;
	char *tmp;
	mode_t mask;
	int fd, ret;

	if (!strcmp(path, "-"))
		return write_all(STDOUT_FILENO, buf, len);
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		ret = write_all(fd, buf, len);
		if (close(fd) && !ret)
			ret = -errno;
		return ret;
	}
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	mask = umask(0);
	umask(mask);
	ret = fchmod(fd, 0666 & ~mask) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, buf, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
