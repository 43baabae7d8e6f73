// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-xenprof: system-wide profiling of a Xen machine from its control
 * domain, on pmuvirt's profiling session (include/pmuvirt/xen.h, commands
 * PROF_START .. PROF_RELEASE).
 *
 *   record   start a session, drain its rings into a file (at the VIRQ
 *            or every --drain-ms) while a command runs or for --seconds,
 *            stop, drain the rest, free the session
 *   report   a flat profile of a record file by domain and by symbol:
 *            Xen's from xen-syms, a domain's kernel from its System.map
 *            or vmlinux, a domain's user code from an ELF file
 *   stop     stop and free a session this domain left running
 *
 * Every record the rings had no room for is counted (each ring's "lost"),
 * and so is every record the reader had to skip: the report prints both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "drain.h"
#include "libpmuvirt-user.h"
#include "symtab.h"
#include "xen_linux.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuvirt-xenprof record [-e events] [-c period] [-d domid]... [-o file]\n"
		"                              [--values] [--fields list] [--pages n] [--high-water pct]\n"
		"                              [--drain-ms ms] [--no-virq] [--cpu n]\n"
		"                              [--seconds s | -- command [args]]\n"
		"       pmuvirt-xenprof report [-i file] [--xen-syms file] [--map domid=file]...\n"
		"                              [--exe domid=file]... [--vcpu] [--top n]\n"
		"       pmuvirt-xenprof stop\n"
		"  events: instructions cycles branches branch-misses rHEX, each :k (Xen only)\n"
		"  or :u (guests only); default -e cycles -c 1000000 -d 0, file pmuvirt-xenprof.data\n"
		"  --fields: what a record holds, of ip,time,mode,values (default all four,\n"
		"  16 value slots; --values fills them)\n");
	exit(2);
}

static void die(const char *what, long rc)
{
	fprintf(stderr, "pmuvirt-xenprof: %s: %s\n", what, strerror((int)(rc < 0 ? -rc : rc)));
	exit(1);
}

static int privcmd = -1;

static long hc(unsigned int cmd, void *arg)
{
	return xen_privcmd_hypercall(privcmd, PMUVIRT_XEN_HYPERCALL, cmd, (uint64_t)(uintptr_t)arg);
}

static void hdr(struct pmuvirt_xen_hdr *h, uint32_t size)
{
	h->version = PMUVIRT_XEN_VERSION;
	h->size = size;
}

static void open_privcmd(void)
{
	privcmd = open("/dev/xen/privcmd", O_RDWR | O_CLOEXEC);
	if (privcmd < 0)
		privcmd = open("/proc/xen/privcmd", O_RDWR | O_CLOEXEC);
	if (privcmd < 0)
		die("/dev/xen/privcmd", errno);
}

static long prof_simple(unsigned int cmd)
{
	struct pmuvirt_xen_prof_stop op;	/* STOP and RELEASE: one layout */

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	return hc(cmd, &op);
}

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct rec_opts {
	struct pmuvirt_xen_prof_start start;
	const char *out;
	unsigned int drain_ms;
	int no_virq;
	int cpu;		/* the drainer's CPU, -1 any */
	double seconds;
	char **cmd;
};

static long give_tails(struct xp_drain *d)
{
	struct pmuvirt_xen_prof_tail op;

	memset(&op, 0, sizeof(op));
	hdr(&op.hdr, sizeof(op));
	op.nr_rings = d->nr_rings;
	op.tails = (uint64_t)(uintptr_t)d->tails;
	return hc(PMUVIRT_XEN_PROF_TAIL, &op);
}

static int record(struct rec_opts *o)
{
	struct pmuvirt_xen_prof_start *st = &o->start;
	struct ioctl_evtchn_bind_virq bv = { .virq = PMUVIRT_XEN_PROF_VIRQ };
	struct pmuvirt_xen_prof_ring *desc;
	struct pmuvirt_xen_prof_map map;
	struct xp_drain d;
	unsigned long *frames;
	uint64_t *mfn64;
	unsigned int i, virqs = 0, drains = 0;
	int *ferr, evtchn, port = -1, status = 0, reaped = 0;
	double t0, deadline, next_drain;
	pid_t child = -1;
	void *mem;
	FILE *out;
	long rc;

	open_privcmd();
	out = fopen(o->out, "wb");
	if (!out)
		die(o->out, errno);
	hdr(&st->hdr, sizeof(*st));
	rc = hc(PMUVIRT_XEN_PROF_START, st);
	if (rc) {
		if (rc == -EBUSY)
			fprintf(stderr, "pmuvirt-xenprof: a session exists, or a VCPU's counters "
				"leave too few for this one (see Xen's log)\n");
		if (rc == -EINVAL && st->err_counter >= 0)
			fprintf(stderr, "pmuvirt-xenprof: event %d refused\n", st->err_counter);
		die("starting the session", rc);
	}
	memset(&map, 0, sizeof(map));
	hdr(&map.hdr, sizeof(map));
	desc = calloc(st->nr_rings, sizeof(*desc));
	mfn64 = calloc((size_t)st->nr_rings * o->start.ring_pages, sizeof(*mfn64));
	frames = calloc((size_t)st->nr_rings * o->start.ring_pages, sizeof(*frames));
	ferr = calloc((size_t)st->nr_rings * o->start.ring_pages, sizeof(*ferr));
	if (!desc || !mfn64 || !frames || !ferr)
		die("memory", ENOMEM);
	map.nr_rings = st->nr_rings;
	map.nr_frames = st->nr_rings * o->start.ring_pages;
	map.rings = (uint64_t)(uintptr_t)desc;
	map.frames = (uint64_t)(uintptr_t)mfn64;
	rc = hc(PMUVIRT_XEN_PROF_MAP, &map);
	if (rc)
		goto fail_stop;
	for (i = 0; i < map.nr_frames; i++)
		frames[i] = (unsigned long)mfn64[i];
	mem = xen_map_own_frames(privcmd, frames, map.nr_frames, ferr);
	if (mem == MAP_FAILED) {
		rc = -errno;
		goto fail_stop;
	}
	if (xp_drain_init(&d, mem, desc, map.nr_rings, map.ring_pages, out)) {
		rc = -errno;
		goto fail_stop;
	}
	if (xp_file_begin(out, &st->ctl, desc, map.nr_rings, map.nr_records)) {
		rc = -errno;
		goto fail_stop;
	}
	evtchn = o->no_virq ? -1 : open("/dev/xen/evtchn", O_RDWR | O_CLOEXEC);
	if (evtchn >= 0)
		port = ioctl(evtchn, IOCTL_EVTCHN_BIND_VIRQ, &bv);
	if (port < 0 && !o->no_virq)
		fprintf(stderr, "pmuvirt-xenprof: no VIRQ %u (%s): draining every %u ms\n",
			PMUVIRT_XEN_PROF_VIRQ, strerror(errno), o->drain_ms);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o->cmd) {
		child = fork();
		if (child < 0)
			die("fork", errno);
		if (!child) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			execvp(o->cmd[0], o->cmd);
			fprintf(stderr, "pmuvirt-xenprof: %s: %s\n", o->cmd[0], strerror(errno));
			_exit(127);
		}
	}
	/* Off the CPUs being measured: a busy command there must not starve the drain. */
	if (o->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fprintf(stderr, "pmuvirt-xenprof: --cpu %d: %s\n", o->cpu, strerror(errno));
	}
	t0 = now_s();
	deadline = o->seconds > 0 ? t0 + o->seconds : 0;
	next_drain = t0 + o->drain_ms / 1000.0;
	while (!stop_now) {
		struct pollfd pfd = { .fd = evtchn, .events = POLLIN };
		double left = next_drain - now_s();
		int slice = left <= 0 ? 0 : left >= 0.1 ? 100 : (int)(left * 1000) + 1;
		int virq = 0;
		uint32_t p;

		/* wake at the VIRQ, or every 100 ms to see whether the command ended */
		if (port >= 0) {
			if (poll(&pfd, 1, slice) == 1 && read(evtchn, &p, sizeof(p)) == sizeof(p)) {
				virq = 1;
				virqs++;
				/* unmask the port for the next one */
				if (write(evtchn, &p, sizeof(p)) != sizeof(p))
					port = -1;
			}
		} else if (slice) {
			usleep((useconds_t)slice * 1000);
		}
		if (virq || now_s() >= next_drain) {
			if (xp_drain_all(&d) < 0)
				die(o->out, errno);
			drains++;
			rc = give_tails(&d);
			if (rc)
				die("giving the rings back (PROF_TAIL)", rc);
			next_drain = now_s() + o->drain_ms / 1000.0;
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			reaped = 1;
			break;
		}
		if (deadline && now_s() >= deadline)
			break;
	}
	rc = prof_simple(PMUVIRT_XEN_PROF_STOP);
	if (rc)
		die("stopping the session", rc);
	if (xp_drain_all(&d) < 0)
		die(o->out, errno);
	if (xp_file_end(&d))
		die(o->out, errno);
	if (fclose(out))
		die(o->out, errno);
	munmap(mem, (size_t)map.nr_frames * 4096);
	rc = prof_simple(PMUVIRT_XEN_PROF_RELEASE);
	if (rc)
		die("freeing the session", rc);
	{
		uint64_t lost = 0, skipped = 0;

		for (i = 0; i < d.nr_rings; i++) {
			lost += d.ring[i].end.lost;
			skipped += d.ring[i].end.skipped;
		}
		fprintf(stderr, "pmuvirt-xenprof: %llu records from %u rings in %.1f s (%u drains, "
			"%u VIRQs), %llu lost, %llu skipped: %s\n", (unsigned long long)d.total,
			d.nr_rings, now_s() - t0, drains, virqs, (unsigned long long)lost,
			(unsigned long long)skipped, o->out);
	}
	xp_drain_free(&d);
	if (child > 0 && !reaped && waitpid(child, &status, 0) < 0)
		return 1;
	if (child > 0)
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;

fail_stop:
	prof_simple(PMUVIRT_XEN_PROF_STOP);
	prof_simple(PMUVIRT_XEN_PROF_RELEASE);
	die("mapping the session's rings", rc);
	return 1;
}

/* ---- report ---- */

struct dom_syms {
	uint32_t domain;
	struct symtab kernel, user;
	int have_kernel, have_user;
};

struct entry {
	uint32_t domain;
	uint32_t vcpu;		/* with --vcpu: a named domain's VCPU + 1, else 0 */
	uint16_t mode;		/* 0 xen, 1 kernel, 2 user */
	const char *name;	/* a symbol's name or an unresolved bucket */
	uint64_t weight;
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

/* "idle", "dN", or with a VCPU (its id + 1) "dNvM" */
static void dom_name(char *buf, size_t len, uint32_t domain, uint32_t vcpu)
{
	if (domain == PMUVIRT_XEN_DOMID_IDLE)
		snprintf(buf, len, "idle");
	else if (vcpu)
		snprintf(buf, len, "d%uv%u", domain, vcpu - 1);
	else
		snprintf(buf, len, "d%u", domain);
}

static struct dom_syms *dom_get(struct dom_syms **ds, unsigned int *n, uint32_t domain)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if ((*ds)[i].domain == domain)
			return &(*ds)[i];
	*ds = realloc(*ds, (*n + 1) * sizeof(**ds));
	if (!*ds)
		die("memory", ENOMEM);
	memset(&(*ds)[*n], 0, sizeof(**ds));
	(*ds)[*n].domain = domain;
	return &(*ds)[(*n)++];
}

static uint32_t parse_domid(const char *s, const char **rest)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (end == s || *end != '=' || v > 0x7fef)
		usage();
	*rest = end + 1;
	return (uint32_t)v;
}

static void load_or_die(struct symtab *t, const char *path)
{
	char err[256];

	if (symtab_load(t, path, err, sizeof(err))) {
		fprintf(stderr, "pmuvirt-xenprof: %s\n", err);
		exit(1);
	}
}

static int report(int argc, char **argv)
{
	const char *in = "pmuvirt-xenprof.data", *xen_syms = NULL;
	struct dom_syms *ds = NULL;
	unsigned int nds = 0, top = 30, i;
	int per_vcpu = 0;
	struct symtab xen = { 0 };
	struct xp_file_hdr fh;
	struct xp_file_end fe;
	struct xp_ring_end *re;
	struct pmuvirt_xen_prof_ring *desc;
	struct pmuvirt_sample s;
	struct entry *e;
	uint64_t nrec, total = 0, lost = 0, skipped = 0, noip = 0, unresolved = 0;
	size_t ne = 0, k, j;
	struct stat sb;
	long end_off;
	FILE *f;
	int a;

	for (a = 0; a < argc; a++) {
		const char *rest;

		if (!strcmp(argv[a], "-i") && a + 1 < argc) {
			in = argv[++a];
		} else if (!strcmp(argv[a], "--xen-syms") && a + 1 < argc) {
			xen_syms = argv[++a];
		} else if (!strcmp(argv[a], "--map") && a + 1 < argc) {
			struct dom_syms *d = dom_get(&ds, &nds, parse_domid(argv[++a], &rest));

			load_or_die(&d->kernel, rest);
			d->have_kernel = 1;
		} else if (!strcmp(argv[a], "--exe") && a + 1 < argc) {
			struct dom_syms *d = dom_get(&ds, &nds, parse_domid(argv[++a], &rest));

			load_or_die(&d->user, rest);
			d->have_user = 1;
		} else if (!strcmp(argv[a], "--vcpu")) {
			per_vcpu = 1;
		} else if (!strcmp(argv[a], "--top") && a + 1 < argc) {
			top = (unsigned int)strtoul(argv[++a], NULL, 0);
		} else {
			usage();
		}
	}
	if (xen_syms)
		load_or_die(&xen, xen_syms);
	f = fopen(in, "rb");
	if (!f || fstat(fileno(f), &sb))
		die(in, errno);
	if (fread(&fh, sizeof(fh), 1, f) != 1 || memcmp(fh.magic, XP_MAGIC, 8) ||
	    fh.record_size != sizeof(struct pmuvirt_sample) ||
	    fh.sample_version != PMUVIRT_SAMPLE_VERSION || fh.nr_rings > (1u << 20)) {
		fprintf(stderr, "pmuvirt-xenprof: %s: not a record file of this version\n", in);
		return 1;
	}
	desc = calloc(fh.nr_rings ? fh.nr_rings : 1, sizeof(*desc));
	re = calloc(fh.nr_rings ? fh.nr_rings : 1, sizeof(*re));
	if (!desc || !re)
		die("memory", ENOMEM);
	if (fread(desc, sizeof(*desc), fh.nr_rings, f) != fh.nr_rings)
		goto truncated;
	end_off = (long)(sb.st_size - (off_t)sizeof(fe) - (off_t)fh.nr_rings * (off_t)sizeof(*re));
	if (end_off < ftell(f) || (end_off - ftell(f)) % (long)sizeof(s))
		goto truncated;
	nrec = (uint64_t)(end_off - ftell(f)) / sizeof(s);
	e = calloc(nrec ? nrec : 1, sizeof(*e));
	if (!e)
		die("memory", ENOMEM);
	for (k = 0; k < nrec; k++) {
		const struct sym *sym = NULL;
		struct dom_syms *d = NULL;
		const char *name;
		uint16_t mode;

		if (fread(&s, sizeof(s), 1, f) != 1)
			goto truncated;
		mode = (s.flags & PMUVIRT_SAMPLE_HYPERVISOR) ? 0 :
		       (s.flags & PMUVIRT_SAMPLE_USER) ? 2 : 1;
		for (j = 0; j < nds; j++)
			if (ds[j].domain == s.domain)
				d = &ds[j];
		if (s.flags & PMUVIRT_SAMPLE_NO_IP) {
			name = "[not profiled]";
			noip += s.weight;
		} else {
			if (mode == 0 && xen_syms)
				sym = symtab_find(&xen, s.ip);
			else if (mode == 1 && d && d->have_kernel)
				sym = symtab_find(&d->kernel, s.ip);
			else if (mode == 2 && d && d->have_user)
				sym = symtab_find(&d->user, s.ip);
			name = sym ? sym->name : "[unknown]";
			if (!sym)
				unresolved += s.weight;
		}
		/* a named domain's record names its VCPU; others carry none */
		e[ne++] = (struct entry){ .domain = s.domain, .mode = mode, .name = name,
					  .weight = s.weight,
					  .vcpu = per_vcpu && s.domain != PMUVIRT_XEN_DOMID_IDLE &&
						  !(s.flags & PMUVIRT_SAMPLE_NO_IP) ? s.tid + 1 : 0 };
		total += s.weight;
	}
	if (fread(&fe, sizeof(fe), 1, f) != 1 || memcmp(fe.magic, XP_END_MAGIC, 8) ||
	    fe.nr_samples != nrec || fread(re, sizeof(*re), fh.nr_rings, f) != fh.nr_rings)
		goto truncated;
	fclose(f);

	for (i = 0; i < fh.nr_rings; i++) {
		lost += re[i].lost;
		skipped += re[i].skipped;
	}
	printf("# pmuvirt-xenprof report: %llu records (weight %llu) from %u rings of %u, "
	       "%llu lost, %llu skipped\n", (unsigned long long)nrec, (unsigned long long)total,
	       fh.nr_rings, fh.nr_records, (unsigned long long)lost, (unsigned long long)skipped);
	for (i = 0; i < fh.nr_rings; i++) {
		char dn[16];

		if (!re[i].read && !re[i].lost && !re[i].skipped)
			continue;
		dom_name(dn, sizeof(dn), desc[i].domain, 0);
		printf("#   ring %u (%s %s %u): %llu read, %llu lost, %llu skipped\n", i, dn,
		       (desc[i].flags & PMUVIRT_XEN_PROF_RING_PCPU) ? "pcpu" : "vcpu", desc[i].id,
		       (unsigned long long)re[i].read, (unsigned long long)re[i].lost,
		       (unsigned long long)re[i].skipped);
	}
	printf("# %llu without an IP (domains not profiled), %llu not resolved\n",
	       (unsigned long long)noip, (unsigned long long)unresolved);

	/* fold equal keys */
	qsort(e, ne, sizeof(*e), by_key);
	for (k = 0, j = 0; k < ne; k++) {
		if (j && !by_key(&e[j - 1], &e[k]))
			e[j - 1].weight += e[k].weight;
		else
			e[j++] = e[k];
	}
	ne = j;

	printf("#\n# by domain\n# %-8s %10s %8s %10s %10s %10s\n", "domain", "weight", "share",
	       "xen", "kernel", "user");
	for (k = 0; k < ne;) {
		uint64_t w[3] = { 0, 0, 0 }, sum;
		uint32_t dom = e[k].domain, vcpu = e[k].vcpu;
		char dn[24];

		for (; k < ne && e[k].domain == dom && e[k].vcpu == vcpu; k++)
			w[e[k].mode] += e[k].weight;
		sum = w[0] + w[1] + w[2];
		dom_name(dn, sizeof(dn), dom, vcpu);
		printf("  %-8s %10llu %7.2f%% %10llu %10llu %10llu\n", dn, (unsigned long long)sum,
		       total ? 100.0 * (double)sum / (double)total : 0.0, (unsigned long long)w[0],
		       (unsigned long long)w[1], (unsigned long long)w[2]);
	}
	qsort(e, ne, sizeof(*e), by_weight);
	printf("#\n# by symbol\n# %8s %10s %-8s %-7s %s\n", "share", "weight", "domain", "mode",
	       "symbol");
	for (k = 0; k < ne && k < top; k++) {
		char dn[24];

		dom_name(dn, sizeof(dn), e[k].domain, e[k].vcpu);
		printf("  %7.2f%% %10llu %-8s %-7s %s\n",
		       total ? 100.0 * (double)e[k].weight / (double)total : 0.0,
		       (unsigned long long)e[k].weight, dn, mode_name[e[k].mode], e[k].name);
	}
	free(e);
	free(desc);
	free(re);
	symtab_free(&xen);
	for (i = 0; i < nds; i++) {
		symtab_free(&ds[i].kernel);
		symtab_free(&ds[i].user);
	}
	free(ds);
	return 0;

truncated:
	fprintf(stderr, "pmuvirt-xenprof: %s: truncated or damaged record file\n", in);
	return 1;
}

int main(int argc, char **argv)
{
	struct rec_opts o;
	const char *events = "cycles";
	uint64_t period = 1000000;
	int a, values = 0, domains_given = 0;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "report"))
		return report(argc - 2, argv + 2);
	if (!strcmp(argv[1], "stop")) {
		long rc;

		open_privcmd();
		rc = prof_simple(PMUVIRT_XEN_PROF_STOP);
		if (rc && rc != -ENOENT)
			die("stopping the session", rc);
		rc = prof_simple(PMUVIRT_XEN_PROF_RELEASE);
		if (rc)
			die("freeing the session", rc);
		return 0;
	}
	if (strcmp(argv[1], "record"))
		usage();

	memset(&o, 0, sizeof(o));
	o.out = "pmuvirt-xenprof.data";
	o.drain_ms = 100;
	o.cpu = -1;
	o.start.ring_pages = 16;
	o.start.high_water_pct = 50;
	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--")) {
			if (a + 1 >= argc)
				usage();
			o.cmd = argv + a + 1;
			break;
		} else if (!strcmp(argv[a], "-e") && a + 1 < argc) {
			events = argv[++a];
		} else if (!strcmp(argv[a], "-c") && a + 1 < argc) {
			period = strtoull(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "-d") && a + 1 < argc) {
			if (o.start.nr_domains >= PMUVIRT_XEN_PROF_MAX_DOMAINS)
				usage();
			o.start.domains[o.start.nr_domains++] =
				(uint16_t)strtoul(argv[++a], NULL, 0);
			domains_given = 1;
		} else if (!strcmp(argv[a], "-o") && a + 1 < argc) {
			o.out = argv[++a];
		} else if (!strcmp(argv[a], "--values")) {
			values = 1;
		} else if (!strcmp(argv[a], "--fields") && a + 1 < argc) {
			if (pmuvirt_user_parse_fields(argv[++a], &o.start.sample_format))
				usage();
		} else if (!strcmp(argv[a], "--no-virq")) {
			o.no_virq = 1;
		} else if (!strcmp(argv[a], "--cpu") && a + 1 < argc) {
			o.cpu = (int)strtol(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--pages") && a + 1 < argc) {
			o.start.ring_pages = (uint32_t)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--high-water") && a + 1 < argc) {
			o.start.high_water_pct = (uint32_t)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--drain-ms") && a + 1 < argc) {
			o.drain_ms = (unsigned int)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--seconds") && a + 1 < argc) {
			o.seconds = strtod(argv[++a], NULL);
		} else {
			usage();
		}
	}
	if (!domains_given)
		o.start.nr_domains = 1;	/* domain 0 */
	if (pmuvirt_user_parse_events(events, &o.start.ctl) || !period ||
	    o.start.ctl.nr_counters > PMUVIRT_XEN_PROF_MAX_COUNTERS || !o.drain_ms)
		usage();
	if (values && o.start.sample_format)
		o.start.sample_format |= PMUVIRT_SAMPLE_FMT_VALUES;
	if (o.start.sample_format & PMUVIRT_SAMPLE_FMT_VALUES)
		values = 1;
	for (a = 0; a < (int)o.start.ctl.nr_counters; a++) {
		struct pmuvirt_counter_ctl *c = &o.start.ctl.counter[a];

		c->period = period;
		c->flags |= PMUVIRT_CTR_SAMPLE | (values ? PMUVIRT_CTR_SAMPLE_VALUES : 0);
	}
	return record(&o);
}
