// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* pmuvirt-report's work: load, resolve, aggregate and print a profile. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pmuvirt/xen.h>
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
	uint32_t frames;	/* first frame in the pool, or NONE */
	uint16_t flags;
	uint8_t nr_values;
	uint8_t counter;
	uint16_t nr_kernel;
	uint16_t nr_user;
};

/* A frame of a record's call chain. */
struct frame {
	uint64_t addr;		/* the return address */
	const struct pmuvirt_map *map;	/* holding it, after resolving (user frames) */
	uint32_t sym;		/* index in syms, after resolving */
};

struct thread {
	uint32_t tid;
	uint32_t pid;
	char name[24];		/* a Xen session's: "dN", "dNvM" or "idle" */
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
	struct frame *frame;
	uint64_t nr_frame, cap_frame;
	uint32_t last_thread;
	struct sym *sym;
	unsigned int nr_sym, cap_sym;
	uint32_t *slot;		/* hash of syms, NONE = empty */
	unsigned int nr_slot;
	struct pmuvirt_syms *elf;
	uint64_t no_maps;	/* samples with user addresses whose process had no maps snapshot */
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

/*
 * A Xen session's record: its "thread" is its domain (pid) and, for a
 * profiled domain's record, its VCPU (tid; NONE for the others).
 */
static uint32_t session_thread(struct pmuvirt_profile *p, const struct pmuvirt_sample *s)
{
	int vcpu = s->domain != PMUVIRT_XEN_DOMID_IDLE &&
		   (!(s->flags & PMUVIRT_SAMPLE_NO_IP) || (s->flags & PMUVIRT_SAMPLE_HYPERVISOR));
	uint32_t t = thread_find(p, vcpu ? s->tid : NONE, s->domain);
	struct thread *th;

	if (t == NONE || p->thread[t].name[0])
		return t;
	th = &p->thread[t];
	if (s->domain == PMUVIRT_XEN_DOMID_IDLE)
		snprintf(th->name, sizeof(th->name), "idle");
	else if (vcpu)
		snprintf(th->name, sizeof(th->name), "d%" PRIu32 "v%" PRIu32, s->domain, s->tid);
	else
		snprintf(th->name, sizeof(th->name), "d%" PRIu32, s->domain);
	return t;
}

static int on_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s,
		     const uint64_t *frames)
{
	struct pmuvirt_profile *p = arg;
	uint32_t t = (p->info.flags & PMUVIRT_PROF_INFO_XEN) ? session_thread(p, s) :
							      thread_find(p, c->tid, c->pid);
	unsigned int nf = s->nr_kernel + s->nr_user, k;
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
	d->frames = NONE;
	d->flags = s->flags;
	d->nr_values = s->nr_values;
	d->counter = s->counter;
	d->nr_kernel = s->nr_kernel;
	d->nr_user = s->nr_user;
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
	if (nf) {
		if (p->nr_frame > UINT32_MAX - PMUVIRT_CHAIN_MAX)
			return -ENOMEM;
		while (p->nr_frame + nf > p->cap_frame)
			if (grow(&p->frame, p->cap_frame, &p->cap_frame, sizeof(*p->frame), 1))
				return -ENOMEM;
		d->frames = (uint32_t)p->nr_frame;
		for (k = 0; k < nf; k++) {
			p->frame[p->nr_frame + k].addr = frames[k];
			p->frame[p->nr_frame + k].map = NULL;
			p->frame[p->nr_frame + k].sym = NONE;
		}
		p->nr_frame += nf;
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

void pmuvirt_profile_print_error(FILE *f, const char *name, int ret,
				 const struct pmuvirt_prof_error *err, const char *what)
{
	if (err->what)
		fprintf(f, "pmuvirt-report: %s: at byte %" PRIu64 ": %s%s\n", name, err->offset,
			err->what, ret == -ENODATA ? " (--force reads what is there)" : "");
	else
		fprintf(f, "pmuvirt-report: %s: %s\n", name, what ? what : strerror(-ret));
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

/* The snapshot @s's user addresses are looked up in, or NULL. */
static struct snap *snap_of(struct pmuvirt_profile *p, const struct sample *s)
{
	struct proc *pr = proc_find(p, p->thread[s->thread].pid, 0);

	return pr ? snap_at(pr, s->tick) : NULL;
}

static uint32_t resolve_user(struct pmuvirt_profile *p, struct snap *sn, uint64_t addr,
			     unsigned int flags, const struct pmuvirt_map **map)
{
	struct pmuvirt_map *m;
	const char *name;
	uint64_t off;

	if (!sn)
		return sym_of(p, 0, "[unknown]", "[unknown]");
	m = (struct pmuvirt_map *)pmuvirt_maps_find(&sn->maps, addr);
	if (!m)
		return sym_of(p, 0, "[unknown]", "[unknown]");
	*map = m;
	if ((flags & PMUVIRT_PROFILE_NO_ELF) || pmuvirt_syms_user(p->elf, m, addr, &name, &off))
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

/* The same address of the same snapshot (or kernel symbols) is the same function. */
struct resolved {
	uint64_t addr;
	const void *where;	/* the snapshot or the kernel symbols */
	const struct pmuvirt_map *map;
	uint32_t sym;
};

struct resolver {
	struct pmuvirt_profile *p;
	const struct pmuvirt_ksyms *ksyms;
	unsigned int flags;
	struct resolved *cache;
};

/* The function at @addr (NONE without memory); *@map receives its user mapping or NULL. */
static uint32_t lookup(struct resolver *r, struct snap *sn, int kernel, uint64_t addr,
		       const struct pmuvirt_map **map)
{
	const void *where = kernel ? (const void *)r->ksyms : (const void *)sn;
	unsigned int c = (unsigned int)((addr ^ (addr >> 12) ^ (uintptr_t)where) &
					(CACHE_SIZE - 1));
	uint32_t sym;

	if (where && r->cache[c].where == where && r->cache[c].addr == addr) {
		*map = r->cache[c].map;
		return r->cache[c].sym;
	}
	*map = NULL;
	sym = kernel ? resolve_kernel(r->p, r->ksyms, addr) :
		       resolve_user(r->p, sn, addr, r->flags, map);
	if (sym != NONE) {
		r->cache[c].addr = addr;
		r->cache[c].where = where;
		r->cache[c].sym = sym;
		r->cache[c].map = *map;
	}
	return sym;
}

int pmuvirt_profile_resolve(struct pmuvirt_profile *p, const struct pmuvirt_ksyms *ksyms,
			    unsigned int flags)
{
	struct resolver r = { p, ksyms, flags, NULL };
	uint64_t i;

	if (!p->elf)
		p->elf = pmuvirt_syms_new();
	r.cache = calloc(CACHE_SIZE, sizeof(*r.cache));
	if (!p->elf || !r.cache) {
		free(r.cache);
		return -ENOMEM;
	}
	for (i = 0; i < p->nr_sample; i++) {
		struct sample *s = &p->sample[i];
		int user = s->flags & PMUVIRT_SAMPLE_USER;
		unsigned int nf = s->nr_kernel + s->nr_user, k;
		struct snap *sn = NULL;

		if (user || s->nr_user) {
			sn = snap_of(p, s);
			if (!sn)
				p->no_maps++;
		}
		s->sym = lookup(&r, sn, !user, s->ip, &s->map);
		for (k = 0; s->sym != NONE && k < nf; k++) {
			struct frame *fr = &p->frame[s->frames + k];
			/* where a kernel sample's thread entered the kernel: no return address */
			uint64_t at = !user && k == s->nr_kernel ? fr->addr : fr->addr - 1;

			fr->sym = lookup(&r, sn, k < s->nr_kernel, at, &fr->map);
			if (fr->sym == NONE)
				s->sym = NONE;
		}
		if (s->sym == NONE) {
			free(r.cache);
			return -ENOMEM;
		}
	}
	free(r.cache);
	return 0;
}

int pmuvirt_profile_resolve_session(struct pmuvirt_profile *p, pmuvirt_profile_namer namer,
				    void *arg)
{
	uint64_t i;

	if (!(p->info.flags & PMUVIRT_PROF_INFO_XEN))
		return -EINVAL;
	for (i = 0; i < p->nr_sample; i++) {
		struct sample *s = &p->sample[i];
		uint32_t domain = p->thread[s->thread].pid;
		int mode = (s->flags & PMUVIRT_SAMPLE_HYPERVISOR) ? 0 :
			   (s->flags & PMUVIRT_SAMPLE_USER) ? 2 : 1;
		unsigned int nf = s->nr_kernel + s->nr_user, k;
		const char *name, *dso;

		if (s->flags & PMUVIRT_SAMPLE_NO_IP) {
			name = mode == 0 ? "[xen: no IP]" : "[not profiled]";
			dso = mode == 0 ? "[xen]" : "[unknown]";
		} else {
			name = namer(arg, domain, mode, s->ip, &dso);
		}
		s->sym = sym_of(p, mode != 2, dso, name ? name : "[unknown]");
		/* frames are return addresses: the call is the byte before */
		for (k = 0; s->sym != NONE && k < nf; k++) {
			struct frame *fr = &p->frame[s->frames + k];
			int fmode = k < s->nr_kernel ? 1 : 2;

			name = fr->addr ? namer(arg, domain, fmode, fr->addr - 1, &dso) : NULL;
			if (!fr->addr)
				dso = "[unknown]";
			fr->sym = sym_of(p, fmode == 1, dso, name ? name : "[unknown]");
			if (fr->sym == NONE)
				s->sym = NONE;
		}
		if (s->sym == NONE)
			return -ENOMEM;
	}
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
	if (p->thread[t].name[0])
		return p->thread[t].name;
	return p->thread[t].have_totals && p->thread[t].totals.comm[0] ?
	       p->thread[t].totals.comm : "?";
}

struct agg {
	uint32_t thread;
	uint32_t sym;		/* or the key aggregate() was given */
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

/*
 * Samples summed per (thread, function), by thread (a hash of the pairs,
 * then a sort of them); per (thread, @key[sample]) with @key.
 */
static struct agg *aggregate(const struct pmuvirt_profile *p, const uint32_t *key, uint64_t *nr)
{
	struct agg *a = NULL;
	uint32_t *slot = NULL;
	unsigned int n = 0, cap = 0, nslot = 0, i, k;
	uint64_t j;

	for (j = 0; j < p->nr_sample; j++) {
		const struct sample *s = &p->sample[j];
		uint32_t sym = key ? key[j] : s->sym;

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
		for (i = (s->thread * 2654435761u ^ sym) & (nslot - 1); slot[i] != NONE;
		     i = (i + 1) & (nslot - 1))
			if (a[slot[i]].thread == s->thread && a[slot[i]].sym == sym)
				break;
		if (slot[i] == NONE) {
			if (grow(&a, n, &cap, sizeof(*a), 0))
				goto nomem;
			a[n].thread = s->thread;
			a[n].sym = sym;
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
	struct agg *a = aggregate(p, NULL, &nr);
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

/* A function as the folded lines name it: unnamed ones by their file, "_[k]" on the kernel's. */
static void put_fold_name(FILE *f, const struct sym *s, int folded)
{
	if (!strcmp(s->name, "[unknown]") && s->dso[0] != '[') {
		fputc('[', f);
		put_clean(f, base_name(s->dso), folded);
		fputc(']', f);
	} else if (!strcmp(s->name, "[unknown]")) {
		put_clean(f, s->dso, folded);
	} else {
		put_clean(f, s->name, folded);
	}
	if (s->kernel)
		fputs("_[k]", f);
}

/*
 * Call stacks, interned: each is its functions in the pool, the sample's
 * own first, then its frames' innermost first.
 */
struct stacks {
	uint32_t *id;
	uint64_t nr_id, cap_id;
	struct stack { uint64_t off; uint32_t len; uint32_t hash; } *st;
	unsigned int nr, cap;
	uint32_t *slot;		/* hash of stacks, NONE = empty */
	unsigned int nr_slot;
};

static void stacks_free(struct stacks *sk)
{
	free(sk->id);
	free(sk->st);
	free(sk->slot);
}

static uint32_t stack_hash(const uint32_t *id, unsigned int len)
{
	uint32_t h = 2166136261u;
	unsigned int i;

	for (i = 0; i < len; i++)
		h = (h ^ id[i]) * 16777619u;
	return h;
}

/* The index of the stack @id[0..@len), copied when new; NONE without memory. */
static uint32_t stack_intern(struct stacks *sk, const uint32_t *id, unsigned int len)
{
	uint32_t h = stack_hash(id, len), i;

	if (2 * sk->nr >= sk->nr_slot) {
		unsigned int n = sk->nr_slot ? 2 * sk->nr_slot : 1024, j;
		uint32_t *slot = malloc(n * sizeof(*slot));

		if (!slot)
			return NONE;
		memset(slot, 0xff, n * sizeof(*slot));
		for (j = 0; j < sk->nr; j++) {
			for (i = sk->st[j].hash & (n - 1); slot[i] != NONE; i = (i + 1) & (n - 1))
				;
			slot[i] = j;
		}
		free(sk->slot);
		sk->slot = slot;
		sk->nr_slot = n;
	}
	for (i = h & (sk->nr_slot - 1); sk->slot[i] != NONE; i = (i + 1) & (sk->nr_slot - 1)) {
		const struct stack *st = &sk->st[sk->slot[i]];

		if (st->hash == h && st->len == len &&
		    !memcmp(&sk->id[st->off], id, len * sizeof(*id)))
			return sk->slot[i];
	}
	if (grow(&sk->st, sk->nr, &sk->cap, sizeof(*sk->st), 0))
		return NONE;
	while (sk->nr_id + len > sk->cap_id)
		if (grow(&sk->id, sk->cap_id, &sk->cap_id, sizeof(*sk->id), 1))
			return NONE;
	memcpy(&sk->id[sk->nr_id], id, len * sizeof(*id));
	sk->st[sk->nr].off = sk->nr_id;
	sk->st[sk->nr].len = len;
	sk->st[sk->nr].hash = h;
	sk->nr_id += len;
	sk->slot[i] = sk->nr;
	return sk->nr++;
}

/* Each sample's stack (@key[sample]); -ENOMEM. */
static int stacks_of(const struct pmuvirt_profile *p, struct stacks *sk, uint32_t *key)
{
	uint32_t id[1 + PMUVIRT_CHAIN_MAX];
	uint64_t j;
	unsigned int k;

	for (j = 0; j < p->nr_sample; j++) {
		const struct sample *s = &p->sample[j];
		unsigned int nf = s->nr_kernel + s->nr_user;

		id[0] = s->sym;
		for (k = 0; k < nf; k++)
			id[1 + k] = p->frame[s->frames + k].sym;
		key[j] = stack_intern(sk, id, 1 + nf);
		if (key[j] == NONE)
			return -ENOMEM;
	}
	return 0;
}

struct fold {
	const char *comm;
	uint32_t stack;
	uint64_t weight;
};

static const struct stacks *sort_stacks;

/* By thread name, then function names from the outermost frame in (ties: function index). */
static int by_comm_stack(const void *a, const void *b)
{
	const struct fold *x = a, *y = b;
	const struct stack *sx = &sort_stacks->st[x->stack], *sy = &sort_stacks->st[y->stack];
	const uint32_t *ix = &sort_stacks->id[sx->off], *iy = &sort_stacks->id[sy->off];
	unsigned int i, lx = sx->len, ly = sy->len;
	int c = strcmp(x->comm, y->comm);

	for (i = 0; !c && i < lx && i < ly; i++) {
		uint32_t fx = ix[lx - 1 - i], fy = iy[ly - 1 - i];

		c = strcmp(sym_get(sort_p, fx)->name, sym_get(sort_p, fy)->name);
		if (!c && fx != fy)
			c = fx < fy ? -1 : 1;
	}
	if (!c && lx != ly)
		c = lx < ly ? -1 : 1;
	return c;
}

void pmuvirt_profile_print_folded(const struct pmuvirt_profile *p, FILE *f)
{
	uint32_t *key = malloc((p->nr_sample ? p->nr_sample : 1) * sizeof(*key));
	struct stacks sk;
	uint64_t nr = 0, i, n = 0;
	struct agg *a = NULL;
	struct fold *fo = NULL;
	unsigned int k;

	memset(&sk, 0, sizeof(sk));
	if (key && !stacks_of(p, &sk, key))
		a = aggregate(p, key, &nr);
	if (a)
		fo = malloc((nr ? nr : 1) * sizeof(*fo));
	if (!fo) {
		fprintf(stderr, "pmuvirt-report: out of memory\n");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		fo[i].comm = comm_of(p, a[i].thread);
		fo[i].stack = a[i].sym;
		fo[i].weight = a[i].weight;
	}
	sort_p = p;
	sort_stacks = &sk;
	qsort(fo, nr, sizeof(*fo), by_comm_stack);
	for (i = 0; i < nr; i++) {
		if (n && !strcmp(fo[n - 1].comm, fo[i].comm) && fo[n - 1].stack == fo[i].stack)
			fo[n - 1].weight += fo[i].weight;
		else
			fo[n++] = fo[i];
	}
	for (i = 0; i < n; i++) {
		const struct stack *st = &sk.st[fo[i].stack];

		put_clean(f, fo[i].comm, 1);
		for (k = st->len; k > 0; k--) {
			fputc(';', f);
			put_fold_name(f, sym_get(p, sk.id[st->off + k - 1]), 1);
		}
		fprintf(f, " %" PRIu64 "\n", fo[i].weight);
	}
out:
	stacks_free(&sk);
	free(key);
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
		unsigned int nf = s->nr_kernel + s->nr_user;

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
		if (nf)
			fputs(" chain", f);
		for (v = 0; v < nf; v++) {
			fputc(' ', f);
			put_fold_name(f, sym_get(p, p->frame[s->frames + v].sym), 0);
		}
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
		fprintf(f, "pmuvirt-report: %" PRIu64 " samples with user addresses of processes whose maps were never captured\n",
			p->no_maps);
	if (p->bad_map_lines)
		fprintf(f, "pmuvirt-report: %u lines of the maps snapshots did not parse\n",
			p->bad_map_lines);
}

int pmuvirt_profile_has_kernel(const struct pmuvirt_profile *p)
{
	uint64_t i;

	for (i = 0; i < p->nr_sample; i++)
		if (!(p->sample[i].flags & PMUVIRT_SAMPLE_USER) || p->sample[i].nr_kernel)
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
	out->nr_frames = s->nr_kernel + s->nr_user;
}

void pmuvirt_profile_frame(const struct pmuvirt_profile *p, uint64_t i, unsigned int k,
			   struct pmuvirt_profile_sample *out)
{
	const struct sample *s = &p->sample[i];
	const struct frame *fr = &p->frame[s->frames + k];

	out->ip = fr->addr;
	out->weight = s->weight;
	out->thread = s->thread;
	out->function = fr->sym;
	out->kernel = k < s->nr_kernel;
	out->map = fr->map;
	out->nr_frames = 0;
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
	free(p->frame);
	free(p->sym);
	free(p->slot);
	pmuvirt_syms_free(p->elf);
	free(p);
}
