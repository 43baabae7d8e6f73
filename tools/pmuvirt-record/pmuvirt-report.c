// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-report: the flat profile per thread of a pmuvirt-record file,
 * its folded-stack lines for flame-graph tools, its records, or pprof's
 * gzipped profile.proto (where built with protobuf-c and zlib); of a Xen
 * session's file (pmuvirt-xenprof), the flat profile by domain and by
 * symbol, folded stacks or records (session.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#define PMUVIRT_DOMID_MAX	0x7fefu	/* the last id of a domain Xen creates (DOMID_FIRST_RESERVED - 1) */
#include "report.h"
#include "session.h"
#ifdef PMUVIRT_HAVE_PPROF
#include "pprof.h"
#endif

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuvirt-report [-i file] [--folded | --dump | --pprof file] [--kallsyms file] [--force]\n"
		"  -i          the recording (default pmuvirt.data)\n"
		"  --folded    \"comm;caller;...;function weight\" lines for flame-graph tools\n"
		"  --dump      every record (and its call chain), one per line\n"
		"  --pprof     pprof's profile.proto, gzipped, to this file (- for standard output)\n"
		"  --kallsyms  kernel symbols from this file (default /proc/kallsyms)\n"
		"  --force     read a file whose recording was cut short (no END section)\n"
		"a Xen session's file (pmuvirt-xenprof):\n"
		"       pmuvirt-report [-i file] [--xen-syms file] [--map domid=file]... [--exe domid=file]...\n"
		"                      [--vcpu] [--top n] [--folded | --dump | --pprof file] [--force]\n"
		"  --xen-syms  Xen's symbols (xen-syms)\n"
		"  --map       a domain's kernel symbols (its vmlinux or System.map)\n"
		"  --exe       a domain's program (ELF, at the addresses it is linked at)\n"
		"  --vcpu      the flat profile per VCPU of each profiled domain\n"
		"  --top       symbol rows of the flat profile (default 30)\n");
	exit(2);
}

/* The whole of @path, mapped (*@mapped) or read (a pipe, an empty file). */
static void *load(const char *path, size_t *len, int *mapped)
{
	struct stat st;
	char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	*len = 0;
	*mapped = 0;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			*len = (size_t)st.st_size;
			*mapped = 1;
			close(fd);
			return p;
		}
	}
	ret = pmuvirt_read_fd(fd, SIZE_MAX / 2, &p, len);
	close(fd);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return p;
}

/* Kernel symbols, when the profile has kernel samples and they can be read. */
static int load_ksyms(const char *path, int given, const char *release,
		      struct pmuvirt_ksyms *k)
{
	struct utsname un;
	size_t len;
	int mapped, ret;
	char *text = load(path, &len, &mapped);

	if (!text) {
		fprintf(stderr, "pmuvirt-report: %s: %s: kernel samples stay unnamed\n", path,
			strerror(errno));
		return -1;
	}
	ret = pmuvirt_ksyms_parse(text, len, k);
	if (mapped)
		munmap(text, len);
	else
		free(text);
	if (ret == -EACCES) {
		fprintf(stderr, "pmuvirt-report: %s hides the kernel's addresses (kptr_restrict): "
			"kernel samples stay unnamed\n", path);
		return -1;
	}
	if (ret) {
		fprintf(stderr, "pmuvirt-report: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	if (!given && !uname(&un) && release[0] && strcmp(un.release, release))
		fprintf(stderr, "pmuvirt-report: recorded on kernel %s, reporting on %s: "
			"kernel symbols may be wrong (--kallsyms)\n", release, un.release);
	return 0;
}

/* "DOMID=FILE" of --map (@kernel) or --exe. */
static int parse_domain_file(const char *arg, struct pmuvirt_session_syms *d, int kernel)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (end == arg || *end != '=' || !end[1] || errno || v > PMUVIRT_DOMID_MAX)
		return -1;
	d->domain = (uint32_t)v;
	d->kernel = kernel ? end + 1 : NULL;
	d->user = kernel ? NULL : end + 1;
	return 0;
}

/* --pprof: encode and save, or say why not. */
static int write_pprof(const struct pmuvirt_profile *p, const char *path)
{
#ifdef PMUVIRT_HAVE_PPROF
	struct pmuvirt_pprof_stats st;
	size_t len;
	void *buf;
	int ret = pmuvirt_pprof_encode(p, &buf, &len, &st);

	if (ret) {
		fprintf(stderr, "pmuvirt-report: %s: encoding the profile: %s\n", path, strerror(-ret));
		return ret;
	}
	ret = pmuvirt_pprof_save(path, buf, len);
	free(buf);
	if (ret) {
		fprintf(stderr, "pmuvirt-report: %s: %s: no profile written\n", path, strerror(-ret));
		return ret;
	}
	if (st.clamped)
		fprintf(stderr, "pmuvirt-report: %s: %" PRIu64 " values over 2^63-1 written as 2^63-1\n",
			path, st.clamped);
	fprintf(stderr, "pmuvirt-report: %s: %" PRIu64 " samples, %" PRIu64 " locations, %" PRIu64
		" functions, %" PRIu64 " mappings, %zu bytes\n", path, st.samples, st.locations,
		st.functions, st.mappings, len);
	return 0;
#else
	(void)p;
	(void)path;
	return -ENOSYS;
#endif
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "folded", no_argument, NULL, 'F' },
		{ "dump", no_argument, NULL, 'D' },
		{ "pprof", required_argument, NULL, 'P' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "force", no_argument, NULL, 'f' },
		{ "xen-syms", required_argument, NULL, 'X' },
		{ "map", required_argument, NULL, 'M' },
		{ "exe", required_argument, NULL, 'E' },
		{ "vcpu", no_argument, NULL, 'V' },
		{ "top", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "pmuvirt.data", *kallsyms = NULL, *pprof = NULL;
	int opt, mode = 0, force = 0, ret, have_k = 0, mapped, xen_opts = 0;
	struct pmuvirt_session_syms dom[64];
	struct pmuvirt_session_opts so = { .dom = dom, .top = 30 };
	struct pmuvirt_prof_error err;
	struct pmuvirt_profile *p;
	struct pmuvirt_ksyms k;
	uint64_t samples, weight;
	size_t len;
	void *buf;

	while ((opt = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': input = optarg; break;
		case 'F': mode = 'F'; break;
		case 'D': mode = 'D'; break;
		case 'P': mode = 'P'; pprof = optarg; break;
		case 'K': kallsyms = optarg; break;
		case 'f': force = 1; break;
		case 'X': so.xen_syms = optarg; xen_opts = 1; break;
		case 'M':
		case 'E':
			if (so.nr_dom == sizeof(dom) / sizeof(dom[0]) ||
			    parse_domain_file(optarg, &dom[so.nr_dom], opt == 'M'))
				usage();
			so.nr_dom++;
			xen_opts = 1;
			break;
		case 'V': so.per_vcpu = 1; xen_opts = 1; break;
		case 'T': so.top = (unsigned int)strtoul(optarg, NULL, 0); xen_opts = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
#ifndef PMUVIRT_HAVE_PPROF
	if (mode == 'P') {
		fprintf(stderr, "pmuvirt-report: --pprof: not built in (protobuf-c, zlib or pprof's "
			"profile.proto missing at build time: tools/install-deps.sh base)\n");
		return 2;
	}
#endif
	buf = load(input, &len, &mapped);
	if (!buf) {
		fprintf(stderr, "pmuvirt-report: %s: %s\n", input, strerror(errno));
		return 1;
	}
	if (pmuvirt_session_is(buf, len)) {
		so.output = mode == 'F' ? PMUVIRT_SESSION_FOLDED :
			    mode == 'D' ? PMUVIRT_SESSION_DUMP : PMUVIRT_SESSION_FLAT;
		so.parse_flags = force ? PMUVIRT_PROF_PARSE_NO_END : 0;
		if (mode == 'P') {
			p = pmuvirt_session_profile(buf, len, &so, input, stderr);
			ret = p ? (write_pprof(p, pprof) ? 1 : 0) : 1;
			pmuvirt_profile_free(p);
		} else {
			ret = pmuvirt_session_report(buf, len, &so, input, stdout, stderr);
		}
		if (mapped)
			munmap(buf, len);
		else
			free(buf);
		if (!ret && (fflush(stdout) || ferror(stdout))) {
			fprintf(stderr, "pmuvirt-report: writing the report: %s\n",
				strerror(errno ? errno : EIO));
			ret = 1;
		}
		return ret;
	}
	if (xen_opts) {
		fprintf(stderr, "pmuvirt-report: %s: --xen-syms, --map, --exe, --vcpu and --top are "
			"for a Xen session's file (pmuvirt-xenprof)\n", input);
		return 2;
	}
	p = pmuvirt_profile_load(buf, len, force ? PMUVIRT_PROF_PARSE_NO_END : 0, &err, &ret);
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	if (!p) {
		pmuvirt_profile_print_error(stderr, input, ret, &err, NULL);
		return 1;
	}
	memset(&k, 0, sizeof(k));
	if (pmuvirt_profile_has_kernel(p))
		have_k = !load_ksyms(kallsyms ? kallsyms : "/proc/kallsyms", !!kallsyms,
				     pmuvirt_profile_release(p), &k);
	if (pmuvirt_profile_resolve(p, have_k ? &k : NULL, 0)) {
		fprintf(stderr, "pmuvirt-report: out of memory\n");
		return 1;
	}
	ret = 0;
	if (mode == 'P')
		ret = write_pprof(p, pprof);
	else if (mode == 'F')
		pmuvirt_profile_print_folded(p, stdout);
	else if (mode == 'D')
		pmuvirt_profile_print_dump(p, stdout);
	else
		pmuvirt_profile_print_flat(p, stdout);
	pmuvirt_profile_print_warnings(p, stderr);
	samples = pmuvirt_profile_samples(p, &weight);
	if (mode)
		fprintf(stderr, "pmuvirt-report: %" PRIu64 " samples (weight %" PRIu64 ")\n",
			samples, weight);
	pmuvirt_profile_free(p);
	pmuvirt_ksyms_free(&k);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmuvirt-report: writing the report: %s\n",
			strerror(errno ? errno : EIO));
		return 1;
	}
	return ret ? 1 : 0;
}
