/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Symbol tables for pmuvirt-xenprof's report: the function symbols of an
 * ELF64 file's .symtab (xen-syms, a vmlinux, a statically linked program)
 * or the text symbols of a System.map, and the lookup of an address.
 */
#ifndef PMUVIRT_XENPROF_SYMTAB_H
#define PMUVIRT_XENPROF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct sym {
	uint64_t start;
	uint64_t end;		/* first address past it; the next symbol's start when unknown */
	const char *name;
};

struct symtab {
	struct sym *sym;	/* sorted by start */
	size_t n;
	char *names;		/* storage of the names */
};

/*
 * Load @path: an ELF64 little-endian file (its .symtab, else .dynsym:
 * function and untyped symbols in executable sections) or, when it is not
 * ELF, a System.map ("address type name" lines of types t, T, w, W).
 * Return: 0, or -1 with a message in @err (@errlen bytes).
 */
int symtab_load(struct symtab *t, const char *path, char *err, size_t errlen);

/* The symbol holding @addr, or NULL. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);

void symtab_free(struct symtab *t);

#endif /* PMUVIRT_XENPROF_SYMTAB_H */
