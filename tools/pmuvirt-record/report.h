/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-report's work, apart from its command line: load a profile file,
 * resolve each sample to a function, and print the flat profile per
 * thread, the folded-stack lines, or the records one per line.
 */
#ifndef PMUVIRT_REPORT_H
#define PMUVIRT_REPORT_H

#include <stdio.h>
#include "profile-file.h"
#include "symbols.h"

struct pmuvirt_profile;

/**
 * pmuvirt_profile_load() - read a profile file from memory
 * @buf:	its bytes (untrusted; not used after the call).
 * @len:	their number.
 * @flags:	PMUVIRT_PROF_PARSE_*.
 * @err:	why it was refused.
 * @ret:	receives 0 or the error (as pmuvirt_prof_parse(); -ENOMEM).
 *
 * Return: the profile, or NULL with *@ret set.
 */
struct pmuvirt_profile *pmuvirt_profile_load(const void *buf, size_t len, unsigned int flags,
					     struct pmuvirt_prof_error *err, int *ret);

/* pmuvirt_profile_resolve() flags */
#define PMUVIRT_PROFILE_NO_ELF	0x1u	/* open no file: user samples get their mapping's name only */

/**
 * pmuvirt_profile_resolve() - name the function of every sample
 * @p:		the profile.
 * @ksyms:	kernel symbols, or NULL (kernel samples stay unnamed).
 * @flags:	PMUVIRT_PROFILE_*.
 *
 * A user sample is looked up in the latest snapshot of its process's maps
 * taken at or before the round that read it, then in the ELF file mapped
 * there (as that file is now).
 *
 * Return: 0 or -ENOMEM.
 */
int pmuvirt_profile_resolve(struct pmuvirt_profile *p, const struct pmuvirt_ksyms *ksyms,
			    unsigned int flags);

/* The header and, for each thread, its functions by weight (unresolved samples: "?"). */
void pmuvirt_profile_print_flat(const struct pmuvirt_profile *p, FILE *f);
/* "comm;function weight" lines for flame-graph tools (one frame: records carry no stack). */
void pmuvirt_profile_print_folded(const struct pmuvirt_profile *p, FILE *f);
/* Every record: thread, CPU, time, address, mode, function, file, weight, values. */
void pmuvirt_profile_print_dump(const struct pmuvirt_profile *p, FILE *f);
/* What a reader should know (lost records, threads still running, ...), on @f. */
void pmuvirt_profile_print_warnings(const struct pmuvirt_profile *p, FILE *f);

/* Whether any sample is a kernel address. */
int pmuvirt_profile_has_kernel(const struct pmuvirt_profile *p);
/* The kernel release the recording was made on. */
const char *pmuvirt_profile_release(const struct pmuvirt_profile *p);

/* Samples and their weight's sum. */
uint64_t pmuvirt_profile_samples(const struct pmuvirt_profile *p, uint64_t *weight);

void pmuvirt_profile_free(struct pmuvirt_profile *p);

#endif /* PMUVIRT_REPORT_H */
