// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* pmuvirt-report's reading of a Xen session's file (session.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pmuvirt/xen.h>
#include "profile-file.h"
#include "report.h"
#include "session.h"
#include "symbols.h"

/* A record as the report keeps it: its name is resolved at once. */
struct entry {
	uint32_t domain;
	uint32_t vcpu;		/* with per_vcpu: a profiled domain's VCPU + 1, else 0 */
	uint16_t mode;		/* 0 xen, 1 kernel, 2 user */
	const char *name;	/* a symbol's name or an unresolved bucket */
	uint64_t weight;
};

struct folded {
	char *stack;	/* frames apart by FOLD_SEP, which sorts before any name's character */
	uint64_t weight;
};

#define FOLD_SEP	'\x01'

struct dom_syms {
	uint32_t domain;
	struct pmuvirt_symfile *kernel, *user;
	const char *user_path;
};

/* The symbol files of the options, opened. */
struct symset {
	struct pmuvirt_syms *elf;
	struct pmuvirt_symfile *xen;
	struct dom_syms *ds;
	unsigned int nds;
};

struct session {
	const struct pmuvirt_session_opts *o;
	FILE *out;
	struct symset sy;
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_ring *ring;		/* by index, from RING sections */
	unsigned int nr_ring, cap_ring;
	struct entry *e;
	struct folded *fo;
	size_t ne, cap;
	char *line;
	size_t line_len, line_cap;
	uint64_t nrec, total, noip, unresolved;
};

static const char *const mode_name[] = { "xen", "kernel", "user" };

static int by_key(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->vcpu != y->vcpu)
		return x->vcpu < y->vcpu ? -1 : 1;
	if (x->mode != y->mode)
		return x->mode - y->mode;
	return strcmp(x->name, y->name);
}

static int by_weight(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return by_key(a, b);
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

/* "idle", "dN", or with a VCPU (its id + 1) "dNvM" */
static void dom_name(char *buf, size_t len, uint32_t domain, uint32_t vcpu)
{
	if (domain == PMUVIRT_XEN_DOMID_IDLE)
		snprintf(buf, len, "idle");
	else if (vcpu)
		snprintf(buf, len, "d%" PRIu32 "v%" PRIu32, domain, vcpu - 1);
	else
		snprintf(buf, len, "d%" PRIu32, domain);
}

/* Append @name to the line: no control characters, no ';' (they separate frames). */
static int put_name(struct session *s, const char *name, int kernel)
{
	size_t n = strlen(name) + 6;
	const char *p;

	while (s->line_len + n + 1 > s->line_cap) {
		size_t cap = s->line_cap ? 2 * s->line_cap : 256;
		char *q = realloc(s->line, cap);

		if (!q)
			return -ENOMEM;
		s->line = q;
		s->line_cap = cap;
	}
	for (p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;

		s->line[s->line_len++] = c < 0x20 || c == 0x7f ? '?' : c == ';' ? ':' : (char)c;
	}
	if (kernel) {
		memcpy(s->line + s->line_len, "_[k]", 4);
		s->line_len += 4;
	}
	s->line[s->line_len] = 0;
	return 0;
}

static const struct dom_syms *dom_of(const struct symset *sy, uint32_t domain)
{
	unsigned int i;

	for (i = 0; i < sy->nds; i++)
		if (sy->ds[i].domain == domain)
			return &sy->ds[i];
	return NULL;
}

/* The function of a return address, kernel or user: the call's, one byte before it. */
static const char *frame_name(const struct dom_syms *d, int kernel, uint64_t addr)
{
	const char *n = NULL;

	if (d && addr)
		n = pmuvirt_symfile_find(kernel ? d->kernel : d->user, addr - 1);
	return n ? n : "[unknown]";
}

static int on_info(void *arg, const struct pmuvirt_prof_info *info)
{
	((struct session *)arg)->info = *info;
	return 0;
}

static int on_ring(void *arg, const struct pmuvirt_prof_ring *r)
{
	struct session *s = arg;

	if (r->index != s->nr_ring)
		return -EBADMSG;	/* RING sections come in index order */
	if (s->nr_ring == s->cap_ring) {
		unsigned int cap = s->cap_ring ? 2 * s->cap_ring : 16;
		struct pmuvirt_prof_ring *q = realloc(s->ring, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		s->ring = q;
		s->cap_ring = cap;
	}
	s->ring[s->nr_ring++] = *r;
	return 0;
}

/* END must count what the file holds. */
static int on_end(void *arg, const struct pmuvirt_prof_end *e)
{
	struct session *s = arg;

	return e->samples != s->nrec || e->threads != s->nr_ring ? -EBADMSG : 0;
}

static int dump_line(struct session *s, const struct pmuvirt_sample *r, const uint64_t *frame,
		     const struct dom_syms *d, uint16_t mode, const char *name)
{
	unsigned int n, nk = r->nr_kernel, nf = (unsigned int)r->nr_kernel + r->nr_user;
	char tail[160];
	int ret;

	snprintf(tail, sizeof(tail), " vcpu %" PRIu32 " cpu %" PRIu32 " time %" PRIu64 " ip 0x%" PRIx64
		 " %s ", r->tid, r->cpu, r->time, r->ip,
		 mode == 0 ? "[x]" : mode == 1 ? "[k]" : "[.]");
	ret = put_name(s, tail, 0);
	if (!ret)
		ret = put_name(s, name, mode != 2);
	snprintf(tail, sizeof(tail), " weight %" PRIu32 " counter %u", r->weight, r->counter);
	if (!ret)
		ret = put_name(s, tail, 0);
	for (n = 0; !ret && (r->flags & PMUVIRT_SAMPLE_VALUES) && n < r->nr_values; n++) {
		snprintf(tail, sizeof(tail), " %" PRIu64, r->value[n]);
		ret = put_name(s, tail, 0);
	}
	if (!ret && nf)
		ret = put_name(s, " chain", 0);
	/* innermost first: the kernel's frames, then the user's */
	for (n = 0; !ret && n < nf; n++) {
		snprintf(tail, sizeof(tail), " 0x%" PRIx64 " ", frame[n]);
		ret = put_name(s, tail, 0);
		if (!ret)
			ret = put_name(s, frame_name(d, n < nk, frame[n]), n < nk);
	}
	if (!ret)
		fprintf(s->out, "%s\n", s->line);
	return ret;
}

static int grow_entries(struct session *s, size_t size, void **arr)
{
	size_t cap;
	void *q;

	if (s->ne < s->cap)
		return 0;
	cap = s->cap ? 2 * s->cap : 1024;
	q = realloc(*arr, cap * size);
	if (!q)
		return -ENOMEM;
	*arr = q;
	s->cap = cap;
	return 0;
}

static int on_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *r,
		     const uint64_t *frame)
{
	struct session *s = arg;
	const struct pmuvirt_session_opts *o = s->o;
	unsigned int n, nk = r->nr_kernel, nf = (unsigned int)r->nr_kernel + r->nr_user;
	const struct dom_syms *d = dom_of(&s->sy, r->domain);
	const char *name = NULL;
	uint32_t vcpu;
	uint16_t mode;
	char dn[24];
	int ret;

	(void)c;
	s->nrec++;
	mode = (r->flags & PMUVIRT_SAMPLE_HYPERVISOR) ? 0 : (r->flags & PMUVIRT_SAMPLE_USER) ? 2 : 1;
	if (r->flags & PMUVIRT_SAMPLE_NO_IP) {
		/* Xen's IP withheld from an active domain, or a domain not named */
		name = mode == 0 ? "[xen: no IP]" : "[not profiled]";
		s->noip += r->weight;
	} else {
		if (mode == 0)
			name = pmuvirt_symfile_find(s->sy.xen, r->ip);
		else if (d)
			name = pmuvirt_symfile_find(mode == 1 ? d->kernel : d->user, r->ip);
		if (!name) {
			name = "[unknown]";
			s->unresolved += r->weight;
		}
	}
	/*
	 * a profiled domain's record names its VCPU (an active domain's also
	 * in Xen's mode, IP withheld); others carry none
	 */
	vcpu = o->per_vcpu && r->domain != PMUVIRT_XEN_DOMID_IDLE &&
	       (!(r->flags & PMUVIRT_SAMPLE_NO_IP) || mode == 0) ? r->tid + 1 : 0;
	s->total += r->weight;
	if (o->output == PMUVIRT_SESSION_FLAT) {
		if (grow_entries(s, sizeof(*s->e), (void **)&s->e))
			return -ENOMEM;
		s->e[s->ne++] = (struct entry){ .domain = r->domain, .mode = mode, .name = name,
						.weight = r->weight, .vcpu = vcpu };
		return 0;
	}
	dom_name(dn, sizeof(dn), r->domain, vcpu);
	s->line_len = 0;
	ret = put_name(s, dn, 0);
	if (ret || o->output == PMUVIRT_SESSION_DUMP)
		return ret ? ret : dump_line(s, r, frame, d, mode, name);
	/* outermost first: the user's frames, the kernel's, the function */
	for (n = nf; !ret && n-- > 0;) {
		s->line[s->line_len++] = FOLD_SEP;
		ret = put_name(s, frame_name(d, n < nk, frame[n]), n < nk);
	}
	if (!ret) {
		s->line[s->line_len++] = FOLD_SEP;
		ret = put_name(s, name, mode != 2);
	}
	if (ret || grow_entries(s, sizeof(*s->fo), (void **)&s->fo))
		return -ENOMEM;
	s->fo[s->ne].stack = strdup(s->line);
	if (!s->fo[s->ne].stack)
		return -ENOMEM;
	s->fo[s->ne++].weight = r->weight;
	return 0;
}

static void print_folded(struct session *s)
{
	size_t k, j;
	char *p;

	if (s->ne)
		qsort(s->fo, s->ne, sizeof(*s->fo), by_stack);
	for (k = 0, j = 0; k < s->ne; k++) {
		if (j && !strcmp(s->fo[j - 1].stack, s->fo[k].stack)) {
			s->fo[j - 1].weight += s->fo[k].weight;
			free(s->fo[k].stack);
		} else {
			s->fo[j++] = s->fo[k];
		}
	}
	s->ne = j;
	for (k = 0; k < s->ne; k++) {
		for (p = s->fo[k].stack; *p; p++)
			if (*p == FOLD_SEP)
				*p = ';';
		fprintf(s->out, "%s %" PRIu64 "\n", s->fo[k].stack, s->fo[k].weight);
	}
}

static void print_flat(struct session *s)
{
	uint64_t lost = 0, skipped = 0, nr_records = s->nr_ring ? s->ring[0].nr_records : 0;
	size_t k, j, ne;
	unsigned int i;

	for (i = 0; i < s->nr_ring; i++) {
		lost += s->ring[i].lost;
		skipped += s->ring[i].skipped;
	}
	fprintf(s->out, "# pmuvirt-report: Xen session%s, %" PRIu64 " records (weight %" PRIu64
		") from %u rings of %" PRIu64 ", %" PRIu64 " lost, %" PRIu64 " skipped\n",
		(s->info.flags & PMUVIRT_PROF_INFO_ACTIVE) ? " (an active domain's)" : "",
		s->nrec, s->total, s->nr_ring, nr_records, lost, skipped);
	for (i = 0; i < s->nr_ring; i++) {
		const struct pmuvirt_prof_ring *r = &s->ring[i];
		char dn[16];

		if (!r->read && !r->lost && !r->skipped)
			continue;
		dom_name(dn, sizeof(dn), r->domain, 0);
		fprintf(s->out, "#   ring %u (%s %s %" PRIu32 "): %" PRIu64 " read, %" PRIu64
			" lost, %" PRIu64 " skipped\n", i, dn,
			(r->flags & PMUVIRT_PROF_RING_PCPU) ? "pcpu" : "vcpu", r->id, r->read,
			r->lost, r->skipped);
	}
	fprintf(s->out, "# %" PRIu64 " without an IP (domains not profiled), %" PRIu64
		" not resolved\n", s->noip, s->unresolved);

	/* fold equal keys */
	if (s->ne)
		qsort(s->e, s->ne, sizeof(*s->e), by_key);
	for (k = 0, j = 0; k < s->ne; k++) {
		if (j && !by_key(&s->e[j - 1], &s->e[k]))
			s->e[j - 1].weight += s->e[k].weight;
		else
			s->e[j++] = s->e[k];
	}
	ne = j;
	fprintf(s->out, "#\n# by domain\n# %-8s %10s %8s %10s %10s %10s\n", "domain", "weight",
		"share", "xen", "kernel", "user");
	for (k = 0; k < ne;) {
		uint64_t w[3] = { 0, 0, 0 }, sum;
		uint32_t dom = s->e[k].domain, vcpu = s->e[k].vcpu;
		char dn[24];

		for (; k < ne && s->e[k].domain == dom && s->e[k].vcpu == vcpu; k++)
			w[s->e[k].mode] += s->e[k].weight;
		sum = w[0] + w[1] + w[2];
		dom_name(dn, sizeof(dn), dom, vcpu);
		fprintf(s->out, "  %-8s %10" PRIu64 " %7.2f%% %10" PRIu64 " %10" PRIu64 " %10" PRIu64
			"\n", dn, sum, s->total ? 100.0 * (double)sum / (double)s->total : 0.0,
			w[0], w[1], w[2]);
	}
	if (ne)
		qsort(s->e, ne, sizeof(*s->e), by_weight);
	fprintf(s->out, "#\n# by symbol\n# %8s %10s %-8s %-7s %s\n", "share", "weight", "domain",
		"mode", "symbol");
	for (k = 0; k < ne && k < s->o->top; k++) {
		char dn[24];

		dom_name(dn, sizeof(dn), s->e[k].domain, s->e[k].vcpu);
		fprintf(s->out, "  %7.2f%% %10" PRIu64 " %-8s %-7s %s\n",
			s->total ? 100.0 * (double)s->e[k].weight / (double)s->total : 0.0,
			s->e[k].weight, dn, mode_name[s->e[k].mode], s->e[k].name);
	}
}

static int stop_at_info(void *arg, const struct pmuvirt_prof_info *info)
{
	*(int *)arg = !!(info->flags & PMUVIRT_PROF_INFO_XEN);
	return 1;
}

int pmuvirt_session_is(const void *buf, size_t len)
{
	static const struct pmuvirt_prof_ops ops = { .info = stop_at_info };
	struct pmuvirt_prof_error err;
	int xen = 0;

	return pmuvirt_prof_parse(buf, len, 0, &ops, &xen, &err) == 1 && xen;
}

/* Open @path's symbols into *@f, or say why not. */
static int open_syms(struct symset *sy, const char *path, struct pmuvirt_symfile **f, FILE *err)
{
	int ret;

	pmuvirt_symfile_free(*f);
	*f = NULL;
	ret = pmuvirt_symfile_open(sy->elf, path, f);
	if (!ret)
		return 0;
	fprintf(err, "pmuvirt-report: %s: %s\n", path,
		ret == -EACCES ? "every address is zero (kptr_restrict)" :
		ret == -ENOEXEC ? "neither ELF nor System.map text" : strerror(-ret));
	return -1;
}

static void symset_free(struct symset *sy)
{
	unsigned int k;

	pmuvirt_symfile_free(sy->xen);
	for (k = 0; k < sy->nds; k++) {
		pmuvirt_symfile_free(sy->ds[k].kernel);
		pmuvirt_symfile_free(sy->ds[k].user);
	}
	free(sy->ds);
	pmuvirt_syms_free(sy->elf);
	memset(sy, 0, sizeof(*sy));
}

/* Open the symbol files @o names (the last of a domain's --map and --exe counts). */
static int symset_open(struct symset *sy, const struct pmuvirt_session_opts *o, FILE *err)
{
	unsigned int i, k;

	memset(sy, 0, sizeof(*sy));
	sy->elf = pmuvirt_syms_new();
	sy->ds = calloc(o->nr_dom ? o->nr_dom : 1, sizeof(*sy->ds));
	if (!sy->elf || !sy->ds) {
		fprintf(err, "pmuvirt-report: out of memory\n");
		return -1;
	}
	if (o->xen_syms && open_syms(sy, o->xen_syms, &sy->xen, err))
		return -1;
	for (i = 0; i < o->nr_dom; i++) {
		struct dom_syms *d = NULL;

		for (k = 0; k < sy->nds; k++)
			if (sy->ds[k].domain == o->dom[i].domain)
				d = &sy->ds[k];
		if (!d) {
			d = &sy->ds[sy->nds++];
			d->domain = o->dom[i].domain;
		}
		if (o->dom[i].kernel && open_syms(sy, o->dom[i].kernel, &d->kernel, err))
			return -1;
		if (o->dom[i].user) {
			if (open_syms(sy, o->dom[i].user, &d->user, err))
				return -1;
			d->user_path = o->dom[i].user;
		}
	}
	return 0;
}

/* pmuvirt_profile_namer of the symbol files. */
static const char *symset_name(void *arg, uint32_t domain, int mode, uint64_t addr,
			       const char **dso)
{
	const struct symset *sy = arg;
	const struct dom_syms *d = dom_of(sy, domain);

	if (mode == 0) {
		*dso = "[xen]";
		return pmuvirt_symfile_find(sy->xen, addr);
	}
	if (mode == 1) {
		*dso = "[kernel]";
		return d ? pmuvirt_symfile_find(d->kernel, addr) : NULL;
	}
	*dso = d && d->user_path ? d->user_path : "[unknown]";
	return d ? pmuvirt_symfile_find(d->user, addr) : NULL;
}

struct pmuvirt_profile *pmuvirt_session_profile(const void *buf, size_t len,
						const struct pmuvirt_session_opts *o,
						const char *name, FILE *err)
{
	struct pmuvirt_prof_error perr;
	struct pmuvirt_profile *p = NULL;
	struct symset sy;
	int ret;

	if (symset_open(&sy, o, err))
		goto out;
	p = pmuvirt_profile_load(buf, len, o->parse_flags, &perr, &ret);
	if (!p) {
		pmuvirt_profile_print_error(err, name, ret, &perr, NULL);
		goto out;
	}
	ret = pmuvirt_profile_resolve_session(p, symset_name, &sy);
	if (ret) {
		fprintf(err, "pmuvirt-report: %s: %s\n", name,
			ret == -EINVAL ? "not a Xen session's file" : strerror(-ret));
		pmuvirt_profile_free(p);
		p = NULL;
	}
out:
	symset_free(&sy);
	return p;
}

int pmuvirt_session_report(const void *buf, size_t len, const struct pmuvirt_session_opts *o,
			   const char *name, FILE *out, FILE *err)
{
	static const struct pmuvirt_prof_ops ops = {
		.info = on_info,
		.sample = on_sample,
		.ring = on_ring,
		.end = on_end,
	};
	struct pmuvirt_prof_error perr;
	struct session s;
	int ret = 1;
	size_t j;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.out = out;
	if (symset_open(&s.sy, o, err))
		goto out;
	ret = pmuvirt_prof_parse(buf, len, o->parse_flags, &ops, &s, &perr);
	if (ret) {
		pmuvirt_profile_print_error(err, name, ret, &perr,
					    ret == -EBADMSG ? "RING sections out of order, or END's "
					    "counts not what the file holds" : NULL);
		ret = 1;
		goto out;
	}
	if (o->output == PMUVIRT_SESSION_FOLDED)
		print_folded(&s);
	else if (o->output == PMUVIRT_SESSION_FLAT)
		print_flat(&s);
	ret = 0;
out:
	if (s.fo)
		for (j = 0; j < s.ne; j++)
			free(s.fo[j].stack);
	free(s.fo);
	free(s.e);
	free(s.line);
	free(s.ring);
	symset_free(&s.sy);
	return ret;
}
