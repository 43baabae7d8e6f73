// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* pmuvirt-report's work: load, resolve, aggregate and print a profile. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define NONE		UINT32_MAX
#define CACHE_SIZE	4096

struct snap {
	uint32_t tick;
	struct pmuvirt_maps maps;
};

struct proc {
	uint32_t pid;
	struct snap *snap;	/* in file order: ticks never decrease */
	unsigned int nr, cap;
};

struct sample {
	uint64_t ip;
	uint64_t time;
	uint32_t thread;	/* index in threads */
	uint32_t tick;
	uint32_t cpu;
	uint32_t weight;
	uint32_t rec_tid;
	uint32_t sym;		/* index in syms, after resolving */
	const struct pmuvirt_map *map;	/* holding ip, after resolving (user samples) */
	uint32_t values;	/* first value in the pool, or NONE */
	uint16_t flags;
	uint8_t nr_values;
	uint8_t counter;
};

struct thread {
	uint32_t tid;
	uint32_t pid;
	int have_totals;
	struct pmuvirt_prof_thread totals;
	uint64_t samples;
	uint64_t weight;
};

/* A function: "<k>\1<file>\1<name>", interned. */
struct sym {
	char *key;
	const char *dso;	/* into key */
	const char *name;	/* into key */
	int kernel;
};

struct pmuvirt_profile {
	struct pmuvirt_prof_info info;
	int have_end;
	struct pmuvirt_prof_end end;
	struct proc *proc;
	unsigned int nr_proc, cap_proc;
	struct thread *thread;
	unsigned int nr_thread, cap_thread;
	struct sample *sample;
	uint64_t nr_sample, cap_sample;
	uint64_t *value;
	uint64_t nr_value, cap_value;
	uint32_t last_thread;
	struct sym *sym;
	unsigned int nr_sym, cap_sym;
	uint32_t *slot;		/* hash of syms, NONE = empty */
	unsigned int nr_slot;
	struct pmuvirt_syms *elf;
	uint64_t no_maps;	/* user samples whose process had no maps snapshot */
	unsigned int bad_map_lines;
	int err;		/* -ENOMEM met while loading */
};

static int grow(void *arr, uint64_t nr, void *capp, size_t size, int wide)
{
	uint64_t cap = wide ? *(uint64_t *)capp : *(unsigned int *)capp, n;
	void *p;

	if (nr < cap)
		return 0;
	n = cap ? 2 * cap : 64;
	if (n > SIZE_MAX / size || (!wide && n > UINT32_MAX))
		return -ENOMEM;
	p = realloc(*(void **)arr, (size_t)(n * size));
	if (!p)
		return -ENOMEM;
	*(void **)arr = p;
	if (wide)
		*(uint64_t *)capp = n;
	else
		*(unsigned int *)capp = (unsigned int)n;
	return 0;
}

/* ---- loading ---- */

static int on_info(void *arg, const struct pmuvirt_prof_info *info)
{
	struct pmuvirt_profile *p = arg;

	p->info = *info;
	return 0;
}

static struct proc *proc_find(struct pmuvirt_profile *p, uint32_t pid, int add)
{
	unsigned int i;

	for (i = 0; i < p->nr_proc; i++)
		if (p->proc[i].pid == pid)
			return &p->proc[i];
	if (!add || grow(&p->proc, p->nr_proc, &p->cap_proc, sizeof(*p->proc), 0))
		return NULL;
	memset(&p->proc[p->nr_proc], 0, sizeof(*p->proc));
	p->proc[p->nr_proc].pid = pid;
	return &p->proc[p->nr_proc++];
}

static int on_maps(void *arg, uint32_t pid, uint32_t tick, const char *text, size_t len)
{
	struct pmuvirt_profile *p = arg;
	struct proc *pr = proc_find(p, pid, 1);
	struct snap *s;
	unsigned int i;

	if (!pr || grow(&pr->snap, pr->nr, &pr->cap, sizeof(*pr->snap), 0))
		return -ENOMEM;
	/* keep them sorted by tick: a file may list them in any order */
	for (i = pr->nr; i > 0 && pr->snap[i - 1].tick > tick; i--)
		;
	memmove(&pr->snap[i + 1], &pr->snap[i], (pr->nr - i) * sizeof(*pr->snap));
	s = &pr->snap[i];
	s->tick = tick;
	if (pmuvirt_maps_parse(text, len, &s->maps)) {
		memmove(&pr->snap[i], &pr->snap[i + 1], (pr->nr - i) * sizeof(*pr->snap));
		return -ENOMEM;
	}
	pr->nr++;
	p->bad_map_lines += s->maps.bad_lines;
	return 0;
}

static uint32_t thread_find(struct pmuvirt_profile *p, uint32_t tid, uint32_t pid)
{
	uint32_t i;

	if (p->last_thread < p->nr_thread && p->thread[p->last_thread].tid == tid &&
	    p->thread[p->last_thread].pid == pid)
		return p->last_thread;
	for (i = 0; i < p->nr_thread; i++)
		if (p->thread[i].tid == tid && p->thread[i].pid == pid)
			return p->last_thread = i;
	if (grow(&p->thread, p->nr_thread, &p->cap_thread, sizeof(*p->thread), 0))
		return NONE;
	memset(&p->thread[p->nr_thread], 0, sizeof(*p->thread));
	p->thread[p->nr_thread].tid = tid;
	p->thread[p->nr_thread].pid = pid;
	return p->last_thread = p->nr_thread++;
}

static int on_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s)
{
	struct pmuvirt_profile *p = arg;
	uint32_t t = thread_find(p, c->tid, c->pid);
	struct sample *d;

	if (t == NONE || grow(&p->sample, p->nr_sample, &p->cap_sample, sizeof(*p->sample), 1))
		return -ENOMEM;
	d = &p->sample[p->nr_sample];
	d->ip = s->ip;
	d->time = s->time;
	d->thread = t;
	d->tick = c->tick;
	d->cpu = s->cpu;
	d->weight = s->weight;
	d->rec_tid = s->tid;
	d->sym = NONE;
	d->map = NULL;
	d->values = NONE;
	d->flags = s->flags;
	d->nr_values = s->nr_values;
	d->counter = s->counter;
	if (s->nr_values) {
		if (p->nr_value > UINT32_MAX - PMUVIRT_MAX_COUNTERS)
			return -ENOMEM;
		while (p->nr_value + s->nr_values > p->cap_value)
			if (grow(&p->value, p->cap_value, &p->cap_value, sizeof(*p->value), 1))
				return -ENOMEM;
		d->values = (uint32_t)p->nr_value;
		memcpy(&p->value[p->nr_value], s->value, s->nr_values * sizeof(*s->value));
		p->nr_value += s->nr_values;
	}
	p->thread[t].samples++;
	p->thread[t].weight += s->weight;
	p->nr_sample++;
	return 0;
}

static int on_thread(void *arg, const struct pmuvirt_prof_thread *t)
{
	struct pmuvirt_profile *p = arg;
	uint32_t i = thread_find(p, t->tid, t->pid);

	if (i == NONE)
		return -ENOMEM;
	p->thread[i].have_totals = 1;
	p->thread[i].totals = *t;
	return 0;
}

static int on_end(void *arg, const struct pmuvirt_prof_end *e)
{
	struct pmuvirt_profile *p = arg;

	p->have_end = 1;
	p->end = *e;
	return 0;
}

struct pmuvirt_profile *pmuvirt_profile_load(const void *buf, size_t len, unsigned int flags,
					     struct pmuvirt_prof_error *err, int *ret)
{
	static const struct pmuvirt_prof_ops ops = {
		.info = on_info, .maps = on_maps, .sample = on_sample,
		.thread = on_thread, .end = on_end,
	};
	struct pmuvirt_profile *p = calloc(1, sizeof(*p));

	if (!p) {
		*ret = -ENOMEM;
		return NULL;
	}
	p->last_thread = NONE;
	*ret = pmuvirt_prof_parse(buf, len, flags, &ops, p, err);
	if (*ret) {
		pmuvirt_profile_free(p);
		return NULL;
	}
	return p;
}

/* ---- resolving ---- */

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The index of the function named by @key (copied when new), NONE without memory. */
static uint32_t sym_intern(struct pmuvirt_profile *p, const char *key)
{
	uint32_t h = hash(key), i;
	struct sym *s;
	size_t n;
	char *k;

	if (p->nr_sym * 2 >= p->nr_slot) {
		unsigned int n = p->nr_slot ? 2 * p->nr_slot : 1024, j;
		uint32_t *slot = malloc(n * sizeof(*slot));

		if (!slot)
			return NONE;
		memset(slot, 0xff, n * sizeof(*slot));
		for (j = 0; j < p->nr_sym; j++) {
			for (i = hash(p->sym[j].key) & (n - 1); slot[i] != NONE; i = (i + 1) & (n - 1))
				;
			slot[i] = j;
		}
		free(p->slot);
		p->slot = slot;
		p->nr_slot = n;
	}
	for (i = h & (p->nr_slot - 1); p->slot[i] != NONE; i = (i + 1) & (p->nr_slot - 1))
		if (!strcmp(p->sym[p->slot[i]].key, key))
			return p->slot[i];
	if (grow(&p->sym, p->nr_sym, &p->cap_sym, sizeof(*p->sym), 0))
		return NONE;
	/* the key, then a copy of it cut into its parts */
	n = strlen(key) + 1;
	k = malloc(2 * n);
	if (!k)
		return NONE;
	memcpy(k, key, n);
	memcpy(k + n, key, n);
	s = &p->sym[p->nr_sym];
	s->key = k;
	s->kernel = k[0] == 'k';
	s->dso = k + n + 2;
	k = strchr(k + n + 2, '\1');
	*k = 0;
	s->name = k + 1;
	p->slot[i] = p->nr_sym;
	return p->nr_sym++;
}

static uint32_t sym_of(struct pmuvirt_profile *p, int kernel, const char *dso, const char *name)
{
	size_t n = strlen(dso) + strlen(name) + 4;
	char stackbuf[512], *key = n <= sizeof(stackbuf) ? stackbuf : malloc(n);
	uint32_t id;
	char *c;

	if (!key)
		return NONE;
	snprintf(key, n, "%c\1%s\1%s", kernel ? 'k' : 'u', dso, name);
	/* \1 separates the parts: none inside them */
	for (c = key + 2; *c; c++)
		if (*c == '\1' && c != key + 2 + strlen(dso))
			*c = '?';
	id = sym_intern(p, key);
	if (key != stackbuf)
		free(key);
	return id;
}

static uint64_t snap_tick(const void *elem)
{
	return ((const struct snap *)elem)->tick;
}

/* The snapshot valid at @tick: the latest taken at or before it. */
static struct snap *snap_at(struct proc *pr, uint32_t tick)
{
	unsigned int n = pmuvirt_upper_bound(pr->snap, pr->nr, sizeof(*pr->snap), snap_tick, tick);

	return n ? &pr->snap[n - 1] : NULL;
}

static uint32_t resolve_user(struct pmuvirt_profile *p, struct sample *s, unsigned int flags)
{
	struct proc *pr = proc_find(p, p->thread[s->thread].pid, 0);
	struct snap *sn = pr ? snap_at(pr, s->tick) : NULL;
	struct pmuvirt_map *m;
	const char *name;
	uint64_t off;

	if (!sn) {
		p->no_maps++;
		return sym_of(p, 0, "[unknown]", "[unknown]");
	}
	m = (struct pmuvirt_map *)pmuvirt_maps_find(&sn->maps, s->ip);
	if (!m)
		return sym_of(p, 0, "[unknown]", "[unknown]");
	s->map = m;
	if ((flags & PMUVIRT_PROFILE_NO_ELF) || pmuvirt_syms_user(p->elf, m, s->ip, &name, &off))
		return sym_of(p, 0, m->path[0] ? m->path : "[anon]", "[unknown]");
	return sym_of(p, 0, m->path, name);
}

static uint32_t resolve_kernel(struct pmuvirt_profile *p, const struct pmuvirt_ksyms *k,
			       uint64_t ip)
{
	const struct pmuvirt_ksym *ks = k ? pmuvirt_ksyms_find(k, ip) : NULL;
	char dso[80];

	if (!ks)
		return sym_of(p, 1, "[kernel]", "[unknown]");
	if (ks->module)
		snprintf(dso, sizeof(dso), "[%s]", ks->module);
	else
		snprintf(dso, sizeof(dso), "[kernel.kallsyms]");
	return sym_of(p, 1, dso, ks->name);
}

int pmuvirt_profile_resolve(struct pmuvirt_profile *p, const struct pmuvirt_ksyms *ksyms,
			    unsigned int flags)
{
	/* the same address of the same snapshot is the same function */
	struct { uint64_t ip; const void *where; const struct pmuvirt_map *map; uint32_t sym; } *cache;
	uint64_t i;

	if (!p->elf)
		p->elf = pmuvirt_syms_new();
	cache = calloc(CACHE_SIZE, sizeof(*cache));
	if (!p->elf || !cache) {
		free(cache);
		return -ENOMEM;
	}
	for (i = 0; i < p->nr_sample; i++) {
		struct sample *s = &p->sample[i];
		int user = s->flags & PMUVIRT_SAMPLE_USER;
		struct proc *pr = user ? proc_find(p, p->thread[s->thread].pid, 0) : NULL;
		const void *where = user ? (pr ? (const void *)snap_at(pr, s->tick) : NULL) :
				    (const void *)ksyms;
		unsigned int c = (unsigned int)((s->ip ^ (s->ip >> 12) ^ (uintptr_t)where) &
						(CACHE_SIZE - 1));

		if (where && cache[c].where == where && cache[c].ip == s->ip) {
			s->sym = cache[c].sym;
			s->map = cache[c].map;
			continue;
		}
		s->map = NULL;
		s->sym = user ? resolve_user(p, s, flags) : resolve_kernel(p, ksyms, s->ip);
		if (s->sym == NONE) {
			free(cache);
			return -ENOMEM;
		}
		cache[c].ip = s->ip;
		cache[c].where = where;
		cache[c].sym = s->sym;
		cache[c].map = s->map;
	}
	free(cache);
	return 0;
}

/* ---- printing ---- */

/* A sample's function; before pmuvirt_profile_resolve(), "?". */
static const struct sym *sym_get(const struct pmuvirt_profile *p, uint32_t id)
{
	static const struct sym unresolved = { NULL, "?", "?", 0 };

	return id < p->nr_sym ? &p->sym[id] : &unresolved;
}

/* Names come from the file and from ELF files: no control characters out. */
static void put_clean(FILE *f, const char *s, int folded)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			c = '?';
		else if (folded && c == ';')
			c = ':';
		fputc(c, f);
	}
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static const char *comm_of(const struct pmuvirt_profile *p, uint32_t t)
{
	return p->thread[t].have_totals && p->thread[t].totals.comm[0] ?
	       p->thread[t].totals.comm : "?";
}

struct agg {
	uint32_t thread;
	uint32_t sym;
	uint64_t samples;
	uint64_t weight;
};

static const struct pmuvirt_profile *sort_p;

static int by_thread_sym(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static int by_weight(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(sym_get(sort_p, x->sym)->name, sym_get(sort_p, y->sym)->name);
}

static int by_pid_tid(const void *a, const void *b)
{
	const struct thread *x = &sort_p->thread[*(const uint32_t *)a];
	const struct thread *y = &sort_p->thread[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Samples summed per (thread, function), by thread (a hash of the pairs, then a sort of them). */
static struct agg *aggregate(const struct pmuvirt_profile *p, uint64_t *nr)
{
	struct agg *a = NULL;
	uint32_t *slot = NULL;
	unsigned int n = 0, cap = 0, nslot = 0, i, k;
	uint64_t j;

	for (j = 0; j < p->nr_sample; j++) {
		const struct sample *s = &p->sample[j];

		if (2 * n >= nslot) {
			unsigned int ns = nslot ? 2 * nslot : 1024;
			uint32_t *sl = malloc(ns * sizeof(*sl));

			if (!sl)
				goto nomem;
			memset(sl, 0xff, ns * sizeof(*sl));
			for (k = 0; k < n; k++) {
				for (i = (a[k].thread * 2654435761u ^ a[k].sym) & (ns - 1); sl[i] != NONE;
				     i = (i + 1) & (ns - 1))
					;
				sl[i] = k;
			}
			free(slot);
			slot = sl;
			nslot = ns;
		}
		for (i = (s->thread * 2654435761u ^ s->sym) & (nslot - 1); slot[i] != NONE;
		     i = (i + 1) & (nslot - 1))
			if (a[slot[i]].thread == s->thread && a[slot[i]].sym == s->sym)
				break;
		if (slot[i] == NONE) {
			if (grow(&a, n, &cap, sizeof(*a), 0))
				goto nomem;
			a[n].thread = s->thread;
			a[n].sym = s->sym;
			a[n].samples = 0;
			a[n].weight = 0;
			slot[i] = n++;
		}
		a[slot[i]].samples++;
		a[slot[i]].weight += s->weight;
	}
	free(slot);
	if (!a)
		a = malloc(sizeof(*a));
	if (a)
		qsort(a, n, sizeof(*a), by_thread_sym);
	*nr = n;
	return a;
nomem:
	free(slot);
	free(a);
	return NULL;
}

static uint64_t lost_of(const struct thread *t)
{
	return t->have_totals ? t->totals.lost + t->totals.skipped : 0;
}

void pmuvirt_profile_print_flat(const struct pmuvirt_profile *p, FILE *f)
{
	uint64_t nr = 0, i, weight = 0, lost = 0;
	uint32_t *order = malloc((p->nr_thread ? p->nr_thread : 1) * sizeof(*order));
	struct agg *a = aggregate(p, &nr);
	unsigned int t;

	if (!a || !order) {
		fprintf(stderr, "pmuvirt-report: out of memory\n");
		free(a);
		free(order);
		return;
	}
	for (t = 0; t < p->nr_thread; t++) {
		weight += p->thread[t].weight;
		lost += lost_of(&p->thread[t]);
		order[t] = t;
	}
	fprintf(f, "# command: ");
	put_clean(f, p->info.command, 0);
	fprintf(f, "\n# event: ");
	put_clean(f, p->info.events, 0);
	fprintf(f, " (sampled every %" PRIu64 "), kernel ", p->info.period);
	put_clean(f, p->info.release, 0);
	fprintf(f, "\n# %" PRIu64 " samples (weight %" PRIu64 "), %u threads, %" PRIu64 " lost\n",
		p->nr_sample, weight, p->nr_thread, lost);
	sort_p = p;
	qsort(order, p->nr_thread, sizeof(*order), by_pid_tid);
	for (t = 0; t < p->nr_thread; t++) {
		const struct thread *th = &p->thread[order[t]];
		uint64_t first, k;

		fprintf(f, "\n# thread ");
		put_clean(f, comm_of(p, order[t]), 0);
		fprintf(f, " tid %u pid %u: %" PRIu64 " samples (weight %" PRIu64 "), %" PRIu64
			" lost\n", th->tid, th->pid, th->samples, th->weight, lost_of(th));
		if (!th->samples)
			continue;
		fprintf(f, "#%9s %9s  %-40s %s\n", "Overhead", "Samples", "Symbol", "DSO");
		for (first = 0; first < nr && a[first].thread != order[t]; first++)
			;
		for (k = first; k < nr && a[k].thread == order[t]; k++)
			;
		qsort(a + first, k - first, sizeof(*a), by_weight);
		for (i = first; i < k; i++) {
			const struct sym *s = sym_get(p, a[i].sym);

			fprintf(f, "%9.2f%% %9" PRIu64 "  %s ", 100.0 * a[i].weight / th->weight,
				a[i].samples, s->kernel ? "[k]" : "[.]");
			put_clean(f, s->name, 0);
			fprintf(f, "%*s ", (int)(strlen(s->name) < 36 ? 36 - strlen(s->name) : 0), "");
			put_clean(f, base_name(s->dso), 0);
			fputc('\n', f);
		}
	}
	free(a);
	free(order);
}

struct fold {
	const char *comm;
	uint32_t sym;
	uint64_t weight;
};

static int by_comm_name(const void *a, const void *b)
{
	const struct fold *x = a, *y = b;
	int c = strcmp(x->comm, y->comm);

	if (!c)
		c = strcmp(sym_get(sort_p, x->sym)->name, sym_get(sort_p, y->sym)->name);
	if (c)
		return c;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

void pmuvirt_profile_print_folded(const struct pmuvirt_profile *p, FILE *f)
{
	uint64_t nr = 0, i, n = 0;
	struct agg *a = aggregate(p, &nr);
	struct fold *fo = malloc((nr ? nr : 1) * sizeof(*fo));

	if (!a || !fo) {
		fprintf(stderr, "pmuvirt-report: out of memory\n");
		free(a);
		free(fo);
		return;
	}
	for (i = 0; i < nr; i++) {
		fo[i].comm = comm_of(p, a[i].thread);
		fo[i].sym = a[i].sym;
		fo[i].weight = a[i].weight;
	}
	sort_p = p;
	qsort(fo, nr, sizeof(*fo), by_comm_name);
	for (i = 0; i < nr; i++) {
		if (n && !strcmp(fo[n - 1].comm, fo[i].comm) && fo[n - 1].sym == fo[i].sym)
			fo[n - 1].weight += fo[i].weight;
		else
			fo[n++] = fo[i];
	}
	for (i = 0; i < n; i++) {
		const struct sym *s = sym_get(p, fo[i].sym);

		put_clean(f, fo[i].comm, 1);
		fputc(';', f);
		if (!strcmp(s->name, "[unknown]") && s->dso[0] != '[') {
			fputc('[', f);
			put_clean(f, base_name(s->dso), 1);
			fputc(']', f);
		} else if (!strcmp(s->name, "[unknown]")) {
			put_clean(f, s->dso, 1);
		} else {
			put_clean(f, s->name, 1);
		}
		fprintf(f, "%s %" PRIu64 "\n", s->kernel ? "_[k]" : "", fo[i].weight);
	}
	free(a);
	free(fo);
}

void pmuvirt_profile_print_dump(const struct pmuvirt_profile *p, FILE *f)
{
	uint64_t i;
	unsigned int v;

	for (i = 0; i < p->nr_sample; i++) {
		const struct sample *s = &p->sample[i];
		const struct sym *sy = sym_get(p, s->sym);

		put_clean(f, comm_of(p, s->thread), 0);
		fprintf(f, " %u/%u cpu %u time %" PRIu64 " ip 0x%" PRIx64 " %s ",
			s->rec_tid, p->thread[s->thread].pid, s->cpu, s->time, s->ip,
			s->flags & PMUVIRT_SAMPLE_USER ? "[.]" : "[k]");
		put_clean(f, sy->name, 0);
		fputc(' ', f);
		put_clean(f, sy->dso, 0);
		fprintf(f, " weight %u counter %u", s->weight, s->counter);
		for (v = 0; s->values != NONE && v < s->nr_values; v++)
			fprintf(f, " %" PRIu64, p->value[s->values + v]);
		fputc('\n', f);
	}
}

void pmuvirt_profile_print_warnings(const struct pmuvirt_profile *p, FILE *f)
{
	unsigned int t;

	for (t = 0; t < p->nr_thread; t++) {
		const struct thread *th = &p->thread[t];

		if (!th->have_totals)
			continue;
		if (th->totals.lost)
			fprintf(f, "pmuvirt-report: thread %u: %u records lost (ring full: raise -m or -c)\n",
				th->tid, th->totals.lost);
		if (th->totals.skipped)
			fprintf(f, "pmuvirt-report: thread %u: %" PRIu64 " records skipped (the ring made no sense)\n",
				th->tid, th->totals.skipped);
		if (th->totals.foreign)
			fprintf(f, "pmuvirt-report: thread %u: %" PRIu64 " records named another thread\n",
				th->tid, th->totals.foreign);
	}
	if (!p->have_end)
		fprintf(f, "pmuvirt-report: the file has no END section: recording was cut short\n");
	if (p->end.flags & PMUVIRT_PROF_END_INCOMPLETE)
		fprintf(f, "pmuvirt-report: threads of the command still ran when recording stopped\n");
	if (p->end.rings_dropped)
		fprintf(f, "pmuvirt-report: %u threads' samples are missing (rings not handed over)\n",
			p->end.rings_dropped);
	if (p->no_maps)
		fprintf(f, "pmuvirt-report: %" PRIu64 " user samples of processes whose maps were never captured\n",
			p->no_maps);
	if (p->bad_map_lines)
		fprintf(f, "pmuvirt-report: %u lines of the maps snapshots did not parse\n",
			p->bad_map_lines);
}

int pmuvirt_profile_has_kernel(const struct pmuvirt_profile *p)
{
	uint64_t i;

	for (i = 0; i < p->nr_sample; i++)
		if (!(p->sample[i].flags & PMUVIRT_SAMPLE_USER))
			return 1;
	return 0;
}

const char *pmuvirt_profile_release(const struct pmuvirt_profile *p)
{
	return p->info.release;
}

const struct pmuvirt_prof_info *pmuvirt_profile_info(const struct pmuvirt_profile *p)
{
	return &p->info;
}

unsigned int pmuvirt_profile_threads(const struct pmuvirt_profile *p)
{
	return p->nr_thread;
}

const char *pmuvirt_profile_thread(const struct pmuvirt_profile *p, unsigned int t,
				   uint32_t *tid, uint32_t *pid, uint64_t *lost)
{
	*tid = p->thread[t].tid;
	*pid = p->thread[t].pid;
	*lost = lost_of(&p->thread[t]);
	return comm_of(p, t);
}

unsigned int pmuvirt_profile_functions(const struct pmuvirt_profile *p)
{
	return p->nr_sym;
}

const char *pmuvirt_profile_function(const struct pmuvirt_profile *p, unsigned int f,
				     const char **dso, int *kernel)
{
	const struct sym *s = sym_get(p, f);

	*dso = s->dso;
	*kernel = s->kernel;
	return s->name;
}

void pmuvirt_profile_sample(const struct pmuvirt_profile *p, uint64_t i,
			    struct pmuvirt_profile_sample *out)
{
	const struct sample *s = &p->sample[i];

	out->ip = s->ip;
	out->weight = s->weight;
	out->thread = s->thread;
	out->function = s->sym;
	out->kernel = !(s->flags & PMUVIRT_SAMPLE_USER);
	out->map = s->map;
}

uint64_t pmuvirt_profile_samples(const struct pmuvirt_profile *p, uint64_t *weight)
{
	unsigned int t;

	*weight = 0;
	for (t = 0; t < p->nr_thread; t++)
		*weight += p->thread[t].weight;
	return p->nr_sample;
}

void pmuvirt_profile_free(struct pmuvirt_profile *p)
{
	unsigned int i, k;

	if (!p)
		return;
	for (i = 0; i < p->nr_proc; i++) {
		for (k = 0; k < p->proc[i].nr; k++)
			pmuvirt_maps_free(&p->proc[i].snap[k].maps);
		free(p->proc[i].snap);
	}
	for (i = 0; i < p->nr_sym; i++)
		free(p->sym[i].key);
	free(p->proc);
	free(p->thread);
	free(p->sample);
	free(p->value);
	free(p->sym);
	free(p->slot);
	pmuvirt_syms_free(p->elf);
	free(p);
}
