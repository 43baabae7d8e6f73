/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-report --pprof: a resolved profile as pprof's
 * perftools.profiles.Profile (profile.proto, encoded by protobuf-c),
 * gzip-compressed, the form go tool pprof, speedscope and continuous
 * profilers read (docs/sampling.md, "pprof output").
 */
#ifndef PMUVIRT_PPROF_H
#define PMUVIRT_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

/**
 * struct pmuvirt_pprof_stats - what an encoding holds
 * @samples:	Sample messages (records summed per thread and call stack).
 * @locations:	Location messages (one per address, function and mapping).
 * @functions:	Function messages.
 * @mappings:	Mapping messages.
 * @strings:	entries of the string table.
 * @clamped:	values over INT64_MAX written as INT64_MAX.
 * @bytes:	the Profile's encoded size, before compression.
 */
struct pmuvirt_pprof_stats {
	uint64_t samples;
	uint64_t locations;
	uint64_t functions;
	uint64_t mappings;
	uint64_t strings;
	uint64_t clamped;
	uint64_t bytes;
};

/**
 * pmuvirt_pprof_encode() - a profile as a gzip-compressed Profile message
 * @p:		the profile, after pmuvirt_profile_resolve().
 * @buf:	receives the bytes (free() them).
 * @len:	receives their number.
 * @stats:	receives the counts, or NULL.
 *
 * Sample types: samples (records) and the sampling event (the records'
 * weights times the period), both counts; one label per thread's name,
 * tid and pid.  A Sample's stack is the location of the records' IP,
 * then one per frame of their call chain (its return address).  Strings
 * are made valid UTF-8 without control characters.
 *
 * Return: 0, -ENOMEM, or -EIO when zlib fails.
 */
int pmuvirt_pprof_encode(const struct pmuvirt_profile *p, void **buf, size_t *len,
			 struct pmuvirt_pprof_stats *stats);

/**
 * pmuvirt_pprof_save() - write bytes to a file, whole or not at all
 * @path:	the file; "-" is standard output.
 * @buf:	the bytes.
 * @len:	their number.
 *
 * A regular file (or a path that does not exist) is written to a new
 * file beside it, flushed to disk and renamed over @path: on failure the
 * new file is removed and @path is as it was.  Anything else that exists
 * (a device, a pipe) is opened and written in place.
 *
 * Return: 0 or -errno.
 */
int pmuvirt_pprof_save(const char *path, const void *buf, size_t len);

#endif /* PMUVIRT_PPROF_H */
