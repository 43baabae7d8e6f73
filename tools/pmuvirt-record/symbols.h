/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Symbols for pmuvirt-report: a process's memory maps (the text of
 * /proc/PID/maps), the functions of the ELF files mapped there (elfutils'
 * libdwfl, with separate debug info where it finds it) and the kernel's
 * (the text of /proc/kallsyms).  All input is untrusted: lines that do not
 * parse are counted and left out.
 */
#ifndef PMUVIRT_SYMBOLS_H
#define PMUVIRT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct pmuvirt_dso;

/**
 * struct pmuvirt_map - one mapping of a process
 * @start:	first address.
 * @end:	address after the last.
 * @pgoff:	file offset of @start.
 * @exec:	mapped executable.
 * @path:	the file, "" for an anonymous mapping, or a pseudo name such
 *		as "[vdso]"; a " (deleted)" suffix is removed.
 * @dso:	the opened file (filled in by pmuvirt_syms_user()), or NULL.
 */
struct pmuvirt_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	int exec;
	char *path;
	struct pmuvirt_dso *dso;
};

/**
 * struct pmuvirt_maps - a process's mappings, sorted by @start
 * @map:	the mappings (no two overlap).
 * @nr:		their number.
 * @bad_lines:	lines that did not parse, or overlapped an earlier mapping.
 */
struct pmuvirt_maps {
	struct pmuvirt_map *map;
	unsigned int nr;
	unsigned int bad_lines;
};

/**
 * pmuvirt_maps_parse() - read the text of /proc/PID/maps
 * @text:	the text (need not end in a newline or a NUL).
 * @len:	its length.
 * @out:	receives the mappings; free with pmuvirt_maps_free().
 *
 * Return: 0 or -ENOMEM.
 */
int pmuvirt_maps_parse(const char *text, size_t len, struct pmuvirt_maps *out);

/* The mapping holding @addr, or NULL. */
const struct pmuvirt_map *pmuvirt_maps_find(const struct pmuvirt_maps *m, uint64_t addr);

void pmuvirt_maps_free(struct pmuvirt_maps *m);

/* The ELF files opened so far, by path. */
struct pmuvirt_syms;

struct pmuvirt_syms *pmuvirt_syms_new(void);
void pmuvirt_syms_free(struct pmuvirt_syms *s);

/**
 * pmuvirt_syms_user() - the function at a user address
 * @s:		the files opened so far.
 * @map:	the mapping holding @addr (its @dso is filled in on first use).
 * @addr:	the address.
 * @name:	receives the function's name (valid until pmuvirt_syms_free()).
 * @off:	receives @addr's offset in the function.
 *
 * The file is opened by @map's path (a regular file only), at the time of
 * the report: a file changed since the recording resolves wrongly.
 *
 * Return: 0; -ENOENT when the file has no symbol there; -ENOEXEC when
 * it is not ELF or no segment holds the address; another -errno when it
 * cannot be opened (or @map has no file).
 */
int pmuvirt_syms_user(struct pmuvirt_syms *s, struct pmuvirt_map *map, uint64_t addr,
		      const char **name, uint64_t *off);

/**
 * struct pmuvirt_ksym - one kernel symbol
 * @addr:	its address.
 * @name:	its name.
 * @module:	its module, or NULL for the kernel itself.
 */
struct pmuvirt_ksym {
	uint64_t addr;
	const char *name;
	const char *module;
};

/**
 * struct pmuvirt_ksyms - kernel symbols sorted by address
 * @sym:	the symbols (text ones: types t, T, w, W).
 * @nr:		their number.
 * @bad_lines:	lines that did not parse.
 * @text:	a copy of the text, which the names point into.
 */
struct pmuvirt_ksyms {
	struct pmuvirt_ksym *sym;
	unsigned int nr;
	unsigned int bad_lines;
	char *text;
};

/**
 * pmuvirt_ksyms_parse() - read the text of /proc/kallsyms
 * @text:	the text.
 * @len:	its length.
 * @out:	receives the symbols; free with pmuvirt_ksyms_free().
 *
 * Return: 0; -EACCES when every address is zero (the kernel hides them
 * from this reader: kptr_restrict); -ENOMEM.
 */
int pmuvirt_ksyms_parse(const char *text, size_t len, struct pmuvirt_ksyms *out);

/*
 * In the @nr elements of @size bytes at @base, sorted by @key(element):
 * how many have a key at or below @k (the index of the first above it).
 */
unsigned int pmuvirt_upper_bound(const void *base, unsigned int nr, size_t size,
				 uint64_t (*key)(const void *elem), uint64_t k);

/* The kernel symbol at or below @addr (NULL below the first). */
const struct pmuvirt_ksym *pmuvirt_ksyms_find(const struct pmuvirt_ksyms *k, uint64_t addr);

void pmuvirt_ksyms_free(struct pmuvirt_ksyms *k);

/**
 * struct pmuvirt_symfile - symbols at the addresses a file names
 *
 * For addresses that need no mapping: Xen's (xen-syms), a guest kernel's
 * (its vmlinux or System.map) and a program's linked at fixed addresses,
 * as a Xen session samples them.  An ELF file is read through libdwfl
 * (pmuvirt_syms_user()'s cache), any other file as System.map or
 * /proc/kallsyms text (pmuvirt_ksyms_parse()).
 */
struct pmuvirt_symfile;

/**
 * pmuvirt_symfile_open() - load @path's symbols
 * @s:		the ELF files opened so far (an ELF file's symbols stay there).
 * @path:	the file (a regular file).
 * @out:	receives the symbols; free with pmuvirt_symfile_free() before @s.
 *
 * Return: 0; -ENOEXEC for an ELF file libdwfl cannot read or text without
 * a symbol line; -EACCES for text whose addresses are all zero; another
 * -errno when the file cannot be read.
 */
int pmuvirt_symfile_open(struct pmuvirt_syms *s, const char *path, struct pmuvirt_symfile **out);

/* The function holding @addr, or NULL (valid until @f's or its pmuvirt_syms' free). */
const char *pmuvirt_symfile_find(const struct pmuvirt_symfile *f, uint64_t addr);

void pmuvirt_symfile_free(struct pmuvirt_symfile *f);

/**
 * pmuvirt_read_fd() - read @fd to its end into a new buffer
 * @fd:		open for reading.
 * @max:	the most bytes accepted.
 * @out:	receives the buffer (free() it); at least one byte is allocated,
 *		so an empty file gives a buffer too.
 * @len:	receives the bytes read.
 *
 * Return: 0; -EFBIG past @max bytes; -ENOMEM; the read's -errno.
 */
int pmuvirt_read_fd(int fd, size_t max, char **out, size_t *len);

#endif /* PMUVIRT_SYMBOLS_H */
