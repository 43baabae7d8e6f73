/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-report's work, apart from its command line: load a profile file,
 * resolve each sample and each frame of its call chain to a function, and
 * print the flat profile per thread, the folded-stack lines, or the
 * records one per line.
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

/*
 * Why a file was not read, as "pmuvirt-report: NAME: at byte N: WHAT" (or
 * the errno's text), on @f: @ret and @err as pmuvirt_profile_load() or
 * pmuvirt_prof_parse() left them; @what, when not NULL, names a
 * callback's error for which @err says nothing.
 */
void pmuvirt_profile_print_error(FILE *f, const char *name, int ret,
				 const struct pmuvirt_prof_error *err, const char *what);

/* pmuvirt_profile_resolve() flags */
#define PMUVIRT_PROFILE_NO_ELF	0x1u	/* open no file: user samples get their mapping's name only */

/**
 * pmuvirt_profile_resolve() - name the function of every sample and frame
 * @p:		the profile.
 * @ksyms:	kernel symbols, or NULL (kernel samples stay unnamed).
 * @flags:	PMUVIRT_PROFILE_*.
 *
 * A user address is looked up in the latest snapshot of its process's
 * maps taken at or before the round that read its record, then in the ELF
 * file mapped there (as that file is now).  A frame is a return address:
 * its function is the one holding the call, at the address minus 1 (but
 * the user address where a kernel sample's thread entered the kernel is
 * looked up as it is).
 *
 * Return: 0 or -ENOMEM.
 */
int pmuvirt_profile_resolve(struct pmuvirt_profile *p, const struct pmuvirt_ksyms *ksyms,
			    unsigned int flags);

/**
 * typedef pmuvirt_profile_namer - a Xen session's symbols
 * @arg:	the namer's own.
 * @domain:	the record's domain.
 * @mode:	0 Xen, 1 the domain's kernel, 2 its user code.
 * @addr:	the address (a frame's return address minus 1).
 * @dso:	receives the name of the symbols' file (or a pseudo name
 *		such as "[xen]").
 *
 * Return: the function's name, or NULL for none.
 */
typedef const char *(*pmuvirt_profile_namer)(void *arg, uint32_t domain, int mode, uint64_t addr,
					    const char **dso);

/**
 * pmuvirt_profile_resolve_session() - name a Xen session's records
 * @p:		a profile loaded from a Xen session's file, whose threads are
 *		its domains ("dN", "idle") and a profiled domain's VCPUs
 *		("dNvM": tid the VCPU, pid the domain).
 * @namer:	names each address.
 * @arg:	passed to it.
 *
 * In place of pmuvirt_profile_resolve() (no maps, no kallsyms): a record
 * without an IP is "[not profiled]", or "[xen: no IP]" in Xen's mode.
 *
 * Return: 0; -EINVAL for a per-thread recording; -ENOMEM.
 */
int pmuvirt_profile_resolve_session(struct pmuvirt_profile *p, pmuvirt_profile_namer namer,
				    void *arg);

/* The header and, for each thread, its functions by weight (unresolved samples: "?"). */
void pmuvirt_profile_print_flat(const struct pmuvirt_profile *p, FILE *f);
/*
 * "comm;outermost;...;caller;function weight" lines for flame-graph tools,
 * one per thread name and call stack ("comm;function weight" for records
 * without frames), sorted.
 */
void pmuvirt_profile_print_folded(const struct pmuvirt_profile *p, FILE *f);
/*
 * Every record: thread, CPU, time, address, mode, function, file, weight,
 * values; then, for a record with frames, "chain" and a function per frame.
 */
void pmuvirt_profile_print_dump(const struct pmuvirt_profile *p, FILE *f);
/* What a reader should know (lost records, threads still running, ...), on @f. */
void pmuvirt_profile_print_warnings(const struct pmuvirt_profile *p, FILE *f);

/* Whether any sample or frame is a kernel address. */
int pmuvirt_profile_has_kernel(const struct pmuvirt_profile *p);
/* The kernel release the recording was made on. */
const char *pmuvirt_profile_release(const struct pmuvirt_profile *p);

/* Samples and their weight's sum. */
uint64_t pmuvirt_profile_samples(const struct pmuvirt_profile *p, uint64_t *weight);

/* ---- the profile's parts, for writers of other formats (pprof.c) ---- */

/* The recording's INFO (zeroes when the file had none). */
const struct pmuvirt_prof_info *pmuvirt_profile_info(const struct pmuvirt_profile *p);

/* Threads (rings), indexed from 0. */
unsigned int pmuvirt_profile_threads(const struct pmuvirt_profile *p);
/* Thread @t's name ("?" when unknown), ids and records lost or skipped. */
const char *pmuvirt_profile_thread(const struct pmuvirt_profile *p, unsigned int t,
				   uint32_t *tid, uint32_t *pid, uint64_t *lost);

/* Functions named by pmuvirt_profile_resolve(), indexed from 0. */
unsigned int pmuvirt_profile_functions(const struct pmuvirt_profile *p);
/*
 * Function @f's name ("[unknown]" when unnamed), its file (a path or a
 * pseudo name such as "[kernel.kallsyms]", "[anon]", "[unknown]") and
 * whether it is the kernel's; "?" for an index out of range.
 */
const char *pmuvirt_profile_function(const struct pmuvirt_profile *p, unsigned int f,
				     const char **dso, int *kernel);

/**
 * struct pmuvirt_profile_sample - one record, or one frame of its call chain
 * @ip:		its address (a frame's: the return address).
 * @weight:	the period boundaries the record stands for.
 * @thread:	its thread's index.
 * @function:	its function's index (after pmuvirt_profile_resolve()).
 * @kernel:	a kernel address.
 * @map:	the mapping holding @ip in the maps snapshot that named it;
 *		NULL for kernel addresses, addresses outside every mapping,
 *		and before pmuvirt_profile_resolve().
 * @nr_frames:	the record's call-chain frames (pmuvirt_profile_frame());
 *		0 for a frame.
 */
struct pmuvirt_profile_sample {
	uint64_t ip;
	uint32_t weight;
	uint32_t thread;
	uint32_t function;
	int kernel;
	const struct pmuvirt_map *map;
	unsigned int nr_frames;
};

/* Record @i (below pmuvirt_profile_samples()'s count), in file order. */
void pmuvirt_profile_sample(const struct pmuvirt_profile *p, uint64_t i,
			    struct pmuvirt_profile_sample *out);

/*
 * Frame @k (below the record's @nr_frames; 0 is the innermost caller) of
 * record @i: the record's kernel frames come first, then its user ones.
 */
void pmuvirt_profile_frame(const struct pmuvirt_profile *p, uint64_t i, unsigned int k,
			   struct pmuvirt_profile_sample *out);

void pmuvirt_profile_free(struct pmuvirt_profile *p);

#endif /* PMUVIRT_REPORT_H */
