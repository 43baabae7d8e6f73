/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-report's reading of a Xen session's file (pmuvirt-xenprof
 * record and active): a flat profile by domain and by symbol, folded call
 * stacks, or every record.  Xen's addresses are named from xen-syms, a
 * domain's kernel ones from its vmlinux or System.map, a domain's user
 * ones from a program linked at its addresses (struct pmuvirt_symfile).
 */
#ifndef PMUVIRT_SESSION_H
#define PMUVIRT_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct pmuvirt_session_syms - one domain's symbol files
 * @domain:	the domain.
 * @kernel:	its kernel's vmlinux or System.map, or NULL.
 * @user:	its program's ELF file, or NULL.
 */
struct pmuvirt_session_syms {
	uint32_t domain;
	const char *kernel;
	const char *user;
};

/* struct pmuvirt_session_opts.output */
#define PMUVIRT_SESSION_FLAT	0
#define PMUVIRT_SESSION_FOLDED	1
#define PMUVIRT_SESSION_DUMP	2

/**
 * struct pmuvirt_session_opts - what to print
 * @xen_syms:	Xen's xen-syms (or System.map text), or NULL.
 * @dom:	the domains' symbol files.
 * @nr_dom:	their number.
 * @per_vcpu:	the flat profile's rows per VCPU of a profiled domain.
 * @top:	symbol rows of the flat profile at most.
 * @output:	PMUVIRT_SESSION_*.
 * @parse_flags: PMUVIRT_PROF_PARSE_*.
 */
struct pmuvirt_session_opts {
	const char *xen_syms;
	const struct pmuvirt_session_syms *dom;
	unsigned int nr_dom;
	int per_vcpu;
	unsigned int top;
	int output;
	unsigned int parse_flags;
};

/* Whether the profile file in @buf (@len bytes) is a Xen session's (its INFO says so). */
int pmuvirt_session_is(const void *buf, size_t len);

/**
 * pmuvirt_session_report() - print a Xen session's file
 * @buf:	the file's bytes (untrusted).
 * @len:	their number.
 * @o:		what to print.
 * @name:	the file's name, for messages.
 * @out:	the report.
 * @err:	messages: a file refused, a symbol file that cannot be read.
 *
 * Return: 0, or 1 after a message on @err.
 */
int pmuvirt_session_report(const void *buf, size_t len, const struct pmuvirt_session_opts *o,
			   const char *name, FILE *out, FILE *err);

struct pmuvirt_profile;

/**
 * pmuvirt_session_profile() - a Xen session's file as a resolved profile
 * @buf:	the file's bytes (untrusted).
 * @len:	their number.
 * @o:		the symbol files and parse flags (the output is not used).
 * @name:	the file's name, for messages.
 * @err:	messages.
 *
 * For the writers of other formats (pprof.c): the profile's threads are
 * the domains and the profiled domains' VCPUs, its functions named from
 * @o's symbol files (pmuvirt_profile_resolve_session()).
 *
 * Return: the profile (pmuvirt_profile_free()), or NULL after a message.
 */
struct pmuvirt_profile *pmuvirt_session_profile(const void *buf, size_t len,
						const struct pmuvirt_session_opts *o,
						const char *name, FILE *err);

#endif /* PMUVIRT_SESSION_H */
