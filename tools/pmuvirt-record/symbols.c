// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* Memory maps, ELF symbols (libdwfl) and kernel symbols for pmuvirt-report. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include "symbols.h"

#define LINE_MAX_BYTES	8192

/*
 * A copy of @text (@len bytes, one more for a NUL) cut into lines in
 * place, with @fn called on each: newlines become NULs; a line too long or
 * holding a NUL counts in @bad.  Return: the copy (the caller frees it),
 * or NULL for -ENOMEM or @fn's error.
 */
static char *each_line(const char *text, size_t len, int (*fn)(void *arg, char *line), void *arg,
		       unsigned int *bad)
{
	char *copy = malloc(len + 1);
	size_t at = 0;

	if (!copy)
		return NULL;
	memcpy(copy, text, len);
	copy[len] = 0;
	while (at < len) {
		char *l = copy + at, *nl = memchr(l, '\n', len - at);
		size_t n = nl ? (size_t)(nl - l) : len - at;

		l[n] = 0;
		if (n >= LINE_MAX_BYTES || strlen(l) != n) {
			(*bad)++;
		} else if (n && fn(arg, l)) {
			free(copy);
			return NULL;
		}
		at += n + 1;
	}
	return copy;
}

/* Room for one more element of @size bytes in *@arr (holding @nr of *@cap). */
static int grow(void *arr, unsigned int nr, unsigned int *cap, size_t size)
{
	void *p;
	unsigned int n;

	if (nr < *cap)
		return 0;
	n = *cap ? 2 * *cap : 64;
	p = realloc(*(void **)arr, n * size);
	if (!p)
		return -ENOMEM;
	*(void **)arr = p;
	*cap = n;
	return 0;
}

/* ---- /proc/PID/maps ---- */

static int parse_map_line(char *l, struct pmuvirt_map *m)
{
	static const char deleted[] = " (deleted)";
	char perms[5];
	int pos = -1;
	size_t n;

	if (sscanf(l, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*x:%*x %*u %n", &m->start, &m->end,
		   perms, &m->pgoff, &pos) != 4 || pos < 0)
		return -1;
	if (m->start >= m->end || strlen(perms) != 4)
		return -1;
	m->exec = perms[2] == 'x';
	l += pos;
	n = strlen(l);
	if (n >= sizeof(deleted) - 1 && !strcmp(l + n - (sizeof(deleted) - 1), deleted))
		l[n - (sizeof(deleted) - 1)] = 0;
	m->path = strdup(l);
	m->dso = NULL;
	return m->path ? 0 : -ENOMEM;
}

static int by_start(const void *a, const void *b)
{
	const struct pmuvirt_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct maps_builder {
	struct pmuvirt_maps *out;
	unsigned int cap;
};

static int maps_line(void *arg, char *line)
{
	struct maps_builder *b = arg;
	struct pmuvirt_map m;
	int ret = parse_map_line(line, &m);

	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		b->out->bad_lines++;
		return 0;
	}
	if (grow(&b->out->map, b->out->nr, &b->cap, sizeof(m))) {
		free(m.path);
		return -ENOMEM;
	}
	b->out->map[b->out->nr++] = m;
	return 0;
}

int pmuvirt_maps_parse(const char *text, size_t len, struct pmuvirt_maps *out)
{
	struct maps_builder b = { out, 0 };
	unsigned int i, k;
	char *copy;

	memset(out, 0, sizeof(*out));
	copy = each_line(text, len, maps_line, &b, &out->bad_lines);
	if (!copy) {
		pmuvirt_maps_free(out);
		return -ENOMEM;
	}
	free(copy);	/* the paths are copies of their own */
	if (out->nr)
		qsort(out->map, out->nr, sizeof(*out->map), by_start);
	/* the kernel's lists never overlap; a file's may */
	for (i = 0, k = 0; i < out->nr; i++) {
		if (k && out->map[i].start < out->map[k - 1].end) {
			free(out->map[i].path);
			out->bad_lines++;
			continue;
		}
		out->map[k++] = out->map[i];
	}
	out->nr = k;
	return 0;
}

const struct pmuvirt_map *pmuvirt_maps_find(const struct pmuvirt_maps *m, uint64_t addr)
{
	unsigned int lo = 0, hi = m->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (addr < m->map[mid].start)
			hi = mid;
		else if (addr >= m->map[mid].end)
			lo = mid + 1;
		else
			return &m->map[mid];
	}
	return NULL;
}

void pmuvirt_maps_free(struct pmuvirt_maps *m)
{
	unsigned int i;

	for (i = 0; i < m->nr; i++)
		free(m->map[i].path);
	free(m->map);
	memset(m, 0, sizeof(*m));
}

/* ---- ELF files ---- */

struct seg {
	uint64_t offset;
	uint64_t size;
	uint64_t vaddr;
};

struct pmuvirt_dso {
	char *path;
	int err;		/* why it could not be used, or 0 */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t bias;		/* module address - ELF address */
	struct seg *seg;	/* PT_LOAD segments */
	unsigned int nr_seg;
};

struct pmuvirt_syms {
	struct pmuvirt_dso **dso;
	unsigned int nr, cap;
};

struct pmuvirt_syms *pmuvirt_syms_new(void)
{
	return calloc(1, sizeof(struct pmuvirt_syms));
}

static const Dwfl_Callbacks dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Open @d->path through libdwfl at its ELF addresses; sets @d->err on failure. */
static void dso_open(struct pmuvirt_dso *d)
{
	struct stat st;
	GElf_Addr bias = 0;
	size_t nphdr, i;
	Elf *elf;
	int fd;

	fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		d->err = errno;
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		d->err = ENOEXEC;
		return;
	}
	d->dwfl = dwfl_begin(&dwfl_cb);
	if (!d->dwfl) {
		close(fd);
		d->err = ENOMEM;
		return;
	}
	/* on success the module owns fd */
	d->mod = dwfl_report_elf(d->dwfl, d->path, d->path, fd, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		close(fd);
		d->err = ENOEXEC;
		return;
	}
	elf = dwfl_module_getelf(d->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &nphdr)) {
		d->err = ENOEXEC;
		return;
	}
	d->bias = bias;
	d->seg = calloc(nphdr ? nphdr : 1, sizeof(*d->seg));
	if (!d->seg) {
		d->err = ENOMEM;
		return;
	}
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_memsz) {
			d->seg[d->nr_seg].offset = ph.p_offset;
			d->seg[d->nr_seg].size = ph.p_filesz > ph.p_memsz ? ph.p_filesz : ph.p_memsz;
			d->seg[d->nr_seg].vaddr = ph.p_vaddr;
			d->nr_seg++;
		}
	}
	if (!d->nr_seg)
		d->err = ENOEXEC;
}

static struct pmuvirt_dso *dso_get(struct pmuvirt_syms *s, const char *path)
{
	struct pmuvirt_dso *d;
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->dso[i]->path, path))
			return s->dso[i];
	if (grow(&s->dso, s->nr, &s->cap, sizeof(*s->dso)))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	dso_open(d);
	s->dso[s->nr++] = d;
	return d;
}

int pmuvirt_syms_user(struct pmuvirt_syms *s, struct pmuvirt_map *map, uint64_t addr,
		      const char **name, uint64_t *off)
{
	struct pmuvirt_dso *d = map->dso;
	GElf_Off soff = 0;
	GElf_Sym sym;
	uint64_t foff;
	const char *n;
	unsigned int i;

	if (!d) {
		if (map->path[0] != '/')
			return -ENOENT;	/* anonymous, or [vdso], [heap], ... */
		d = dso_get(s, map->path);
		if (!d)
			return -ENOMEM;
		map->dso = d;
	}
	if (d->err)
		return -d->err;
	if (addr < map->start || addr >= map->end)
		return -ENOEXEC;
	foff = addr - map->start + map->pgoff;
	for (i = 0; i < d->nr_seg; i++) {
		const struct seg *g = &d->seg[i];

		if (foff < g->offset || foff - g->offset >= g->size)
			continue;
		n = dwfl_module_addrinfo(d->mod, foff - g->offset + g->vaddr + d->bias, &soff, &sym,
					 NULL, NULL, NULL);
		if (!n || !*n)
			return -ENOENT;
		*name = n;
		*off = soff;
		return 0;
	}
	return -ENOEXEC;
}

void pmuvirt_syms_free(struct pmuvirt_syms *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		if (s->dso[i]->dwfl)
			dwfl_end(s->dso[i]->dwfl);
		free(s->dso[i]->seg);
		free(s->dso[i]->path);
		free(s->dso[i]);
	}
	free(s->dso);
	free(s);
}

/* ---- /proc/kallsyms ---- */

static int by_addr(const void *a, const void *b)
{
	const struct pmuvirt_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * "ffffffff81000000 T _stext" or "... t name\t[module]", cut in place (the
 * names point into the line); 1 for a symbol that is not code.  Without
 * sscanf(), which would be most of the time of a report with kernel samples.
 */
static int parse_ksym_line(char *l, struct pmuvirt_ksym *k)
{
	char type, *name, *mod, *end, *p;
	uint64_t addr;

	if (!isxdigit((unsigned char)l[0]))
		return -1;
	errno = 0;
	addr = strtoull(l, &p, 16);
	if (errno || p - l > 16 || p[0] != ' ' || !p[1] || p[2] != ' ')
		return -1;
	type = p[1];
	k->addr = addr;
	name = p + 3;
	end = name + strcspn(name, " \t");
	if (end == name)
		return -1;
	mod = end + strspn(end, " \t");
	*end = 0;
	if (*mod) {
		size_t n = strlen(mod);

		if (mod[0] != '[' || n < 3 || mod[n - 1] != ']')
			return -1;
		mod[n - 1] = 0;
		mod++;
	}
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 1;
	k->name = name;
	k->module = *mod ? mod : NULL;
	return 0;
}

struct ksyms_builder {
	struct pmuvirt_ksyms *out;
	unsigned int cap;
	uint64_t any;
};

static int ksyms_line(void *arg, char *line)
{
	struct ksyms_builder *b = arg;
	struct pmuvirt_ksym k;
	int ret = parse_ksym_line(line, &k);

	if (ret < 0)
		b->out->bad_lines++;
	if (ret)
		return 0;
	if (grow(&b->out->sym, b->out->nr, &b->cap, sizeof(k)))
		return -ENOMEM;
	b->any |= k.addr;
	b->out->sym[b->out->nr++] = k;
	return 0;
}

int pmuvirt_ksyms_parse(const char *text, size_t len, struct pmuvirt_ksyms *out)
{
	struct ksyms_builder b = { out, 0, 0 };

	memset(out, 0, sizeof(*out));
	out->text = each_line(text, len, ksyms_line, &b, &out->bad_lines);
	if (!out->text) {
		pmuvirt_ksyms_free(out);
		return -ENOMEM;
	}
	if (out->nr && !b.any) {
		pmuvirt_ksyms_free(out);
		return -EACCES;
	}
	if (out->nr)
		qsort(out->sym, out->nr, sizeof(*out->sym), by_addr);
	return 0;
}

unsigned int pmuvirt_upper_bound(const void *base, unsigned int nr, size_t size,
				 uint64_t (*key)(const void *elem), uint64_t k)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (key((const char *)base + (size_t)mid * size) <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t ksym_addr(const void *elem)
{
	return ((const struct pmuvirt_ksym *)elem)->addr;
}

const struct pmuvirt_ksym *pmuvirt_ksyms_find(const struct pmuvirt_ksyms *k, uint64_t addr)
{
	unsigned int n = pmuvirt_upper_bound(k->sym, k->nr, sizeof(*k->sym), ksym_addr, addr);

	return n ? &k->sym[n - 1] : NULL;
}

void pmuvirt_ksyms_free(struct pmuvirt_ksyms *k)
{
	free(k->sym);
	free(k->text);
	memset(k, 0, sizeof(*k));
}

/* ---- symbols at fixed addresses ---- */

struct pmuvirt_symfile {
	struct pmuvirt_dso *dso;	/* an ELF file, or NULL */
	struct pmuvirt_ksyms text;	/* System.map or kallsyms text */
};

int pmuvirt_read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 0;
	char *p = NULL;
	ssize_t n;
	int ret;

	*out = NULL;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			char *q = realloc(p, cap = cap ? 2 * cap : 1 << 16);

			if (!q) {
				ret = -ENOMEM;
				goto fail;
			}
			p = q;
		}
		n = read(fd, p + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto fail;
		}
		if (!n)
			break;
		*len += (size_t)n;
		if (*len > max) {
			ret = -EFBIG;
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	free(p);
	*len = 0;
	return ret;
}

int pmuvirt_symfile_open(struct pmuvirt_syms *s, const char *path, struct pmuvirt_symfile **out)
{
	struct pmuvirt_symfile *f;
	char magic[4], *text = NULL;
	struct stat st;
	size_t len;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	if (pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "\177ELF", 4)) {
		close(fd);
		f->dso = dso_get(s, path);
		if (!f->dso || f->dso->err) {
			ret = f->dso ? -f->dso->err : -ENOMEM;
			free(f);
			return ret;
		}
		*out = f;
		return 0;
	}
	ret = pmuvirt_read_fd(fd, 64u << 20, &text, &len);
	if (ret)
		goto fail;
	ret = pmuvirt_ksyms_parse(text, len, &f->text);
	if (!ret && !f->text.nr) {
		pmuvirt_ksyms_free(&f->text);
		ret = -ENOEXEC;
	}
	if (ret)
		goto fail;
	free(text);
	close(fd);
	*out = f;
	return 0;
fail:
	free(text);
	free(f);
	close(fd);
	return ret;
}

const char *pmuvirt_symfile_find(const struct pmuvirt_symfile *f, uint64_t addr)
{
	const struct pmuvirt_ksym *k;
	GElf_Off soff = 0;
	GElf_Sym sym;
	const char *n;

	if (!f)
		return NULL;
	if (f->dso) {
		n = dwfl_module_addrinfo(f->dso->mod, addr + f->dso->bias, &soff, &sym, NULL, NULL,
					 NULL);
		return n && *n ? n : NULL;
	}
	k = pmuvirt_ksyms_find(&f->text, addr);
	return k ? k->name : NULL;
}

void pmuvirt_symfile_free(struct pmuvirt_symfile *f)
{
	if (!f)
		return;
	pmuvirt_ksyms_free(&f->text);
	free(f);
}
