// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Symbol tables from ELF64 files and System.map files (symtab.h).  The ELF
 * reader follows the ELF-64 object file format (section headers, SHT_SYMTAB
 * and its linked string table); every offset and size read from the file
 * is checked against the file before it is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "symtab.h"

static int fail(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	return -1;
}

static int by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the sized one first, then by name for a stable order */
	if ((x->end > x->start) != (y->end > y->start))
		return x->end > x->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort, drop duplicates of an address, give unsized symbols the next one's start. */
static void finish(struct symtab *t)
{
	size_t i, k = 0;

	qsort(t->sym, t->n, sizeof(*t->sym), by_start);
	for (i = 0; i < t->n; i++) {
		if (k && t->sym[k - 1].start == t->sym[i].start)
			continue;
		t->sym[k++] = t->sym[i];
	}
	t->n = k;
	for (i = 0; i < t->n; i++)
		if (t->sym[i].end <= t->sym[i].start)
			t->sym[i].end = i + 1 < t->n ? t->sym[i + 1].start : t->sym[i].start + 1;
}

static int in_file(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static int load_elf(struct symtab *t, const char *path, const unsigned char *buf, size_t size,
		    char *err, size_t errlen)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *sh, *tab = NULL, *strs;
	const Elf64_Sym *s;
	size_t i, nsyms, names = 0;
	char *p;

	if (size < sizeof(*eh) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return fail(err, errlen, path, "not a little-endian ELF64 file");
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return fail(err, errlen, path, "bad section header table");
	sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			tab = &sh[i];
	for (i = 0; !tab && i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			tab = &sh[i];
	if (!tab)
		return fail(err, errlen, path, "no symbol table (stripped?)");
	if (tab->sh_link >= eh->e_shnum || tab->sh_entsize != sizeof(Elf64_Sym) ||
	    !in_file(size, tab->sh_offset, tab->sh_size))
		return fail(err, errlen, path, "bad symbol table");
	strs = &sh[tab->sh_link];
	if (!in_file(size, strs->sh_offset, strs->sh_size) || !strs->sh_size ||
	    buf[strs->sh_offset + strs->sh_size - 1])
		return fail(err, errlen, path, "bad string table");
	s = (const Elf64_Sym *)(buf + tab->sh_offset);
	nsyms = tab->sh_size / sizeof(*s);
	t->sym = calloc(nsyms ? nsyms : 1, sizeof(*t->sym));
	if (!t->sym)
		return fail(err, errlen, path, "out of memory");
	for (i = 0; i < nsyms; i++)
		if (s[i].st_name < strs->sh_size)
			names += strlen((const char *)buf + strs->sh_offset + s[i].st_name) + 1;
	t->names = p = malloc(names + 1);
	if (!p)
		return fail(err, errlen, path, "out of memory");
	for (i = 0; i < nsyms; i++) {
		unsigned int type = ELF64_ST_TYPE(s[i].st_info);
		const char *name;

		if ((type != STT_FUNC && type != STT_NOTYPE) || !s[i].st_value ||
		    s[i].st_name >= strs->sh_size || s[i].st_shndx == SHN_UNDEF ||
		    s[i].st_shndx >= eh->e_shnum || !(sh[s[i].st_shndx].sh_flags & SHF_EXECINSTR))
			continue;
		name = (const char *)buf + strs->sh_offset + s[i].st_name;
		if (!*name || (name[0] == '.' && name[1] == 'L'))
			continue;
		strcpy(p, name);
		t->sym[t->n].start = s[i].st_value;
		t->sym[t->n].end = s[i].st_value + s[i].st_size;
		t->sym[t->n].name = p;
		t->n++;
		p += strlen(p) + 1;
	}
	return 0;
}

static int load_map(struct symtab *t, const char *path, const unsigned char *buf, size_t size,
		    char *err, size_t errlen)
{
	size_t cap = 1024, lines = 0, i;
	const char *q = (const char *)buf, *end = q + size;
	char *p;

	t->names = p = malloc(size + 1);
	t->sym = malloc(cap * sizeof(*t->sym));
	if (!p || !t->sym)
		return fail(err, errlen, path, "out of memory");
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t len = nl ? (size_t)(nl - q) : (size_t)(end - q);
		char line[512], type, name[256];
		unsigned long long addr;

		lines++;
		if (len < sizeof(line)) {
			memcpy(line, q, len);
			line[len] = 0;
			if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
			    strchr("tTwW", type) && addr) {
				if (t->n == cap) {
					struct sym *n = realloc(t->sym, 2 * cap * sizeof(*n));

					if (!n)
						return fail(err, errlen, path, "out of memory");
					t->sym = n;
					cap *= 2;
				}
				strcpy(p, name);
				t->sym[t->n].start = addr;
				t->sym[t->n].end = 0;
				t->sym[t->n].name = p;
				t->n++;
				p += strlen(p) + 1;
			}
		}
		q += len + 1;
	}
	for (i = 0; i < t->n; i++)
		t->sym[i].end = 0;
	if (!t->n)
		return fail(err, errlen, path, lines ? "no text symbols (not a System.map?)" :
				 "empty file");
	return 0;
}

int symtab_load(struct symtab *t, const char *path, char *err, size_t errlen)
{
	unsigned char *buf = NULL;
	size_t size = 0, cap = 0;
	FILE *f = fopen(path, "rb");
	int ret;

	memset(t, 0, sizeof(*t));
	if (!f)
		return fail(err, errlen, path, "cannot open");
	for (;;) {
		size_t got;

		if (size == cap) {
			unsigned char *n = realloc(buf, cap ? 2 * cap : 1 << 20);

			if (!n) {
				fclose(f);
				free(buf);
				return fail(err, errlen, path, "out of memory");
			}
			buf = n;
			cap = cap ? 2 * cap : 1 << 20;
		}
		got = fread(buf + size, 1, cap - size, f);
		size += got;
		if (!got)
			break;
	}
	fclose(f);
	if (size >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG))
		ret = load_elf(t, path, buf, size, err, errlen);
	else
		ret = load_map(t, path, buf, size, err, errlen);
	free(buf);
	if (ret) {
		symtab_free(t);
		return ret;
	}
	finish(t);
	return 0;
}

const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* the last symbol that starts at or below @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sym[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->sym[lo - 1].end)
		return NULL;
	return &t->sym[lo - 1];
}

void symtab_free(struct symtab *t)
{
	free(t->sym);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
