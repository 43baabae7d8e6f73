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
 *            or vmlinux, a domain's user code from an ELF file; or, with
 *            the same symbols, folded call stacks or every record
 *   active   in a domain a session names active: drain its own VCPUs'
 *            rings into a file, as record does
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
#include <sys/ioctl.h>	/* before pmuvirt/xen.h: PMUVIRT_XENPROF_IOC_MAP */
#include <sys/stat.h>
#include <sys/wait.h>

#include "drain.h"
#include "libpmuvirt-user.h"
#include "symtab.h"
#include "xen_linux.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuvirt-xenprof record [-e events] [-c period] [-d domid]... [-a domid]...\n"
		"                              [-o file] [--values] [--fields list] [--pages n] [-g [depth]]\n"
		"                              [--high-water pct] [--drain-ms ms] [--no-virq] [--cpu n]\n"
		"                              [--seconds s | -- command [args]]\n"
		"       pmuvirt-xenprof active [-o file] [--wait s] [--drain-ms ms] [--no-virq] [--cpu n]\n"
		"                              [-g] [--seconds s | -- command [args]]\n"
		"       pmuvirt-xenprof report [-i file] [--xen-syms file] [--map domid=file]...\n"
		"                              [--exe domid=file]... [--vcpu] [--top n] [--folded | --dump]\n"
		"       pmuvirt-xenprof stop\n"
		"  events: instructions cycles branches branch-misses rHEX, each :k (Xen only)\n"
		"  or :u (guests only); default -e cycles -c 1000000 -d 0, file pmuvirt-xenprof.data\n"
		"  -a: a domain that reads its own records (active; it runs \"pmuvirt-xenprof active\")\n"
		"  --fields: what a record holds, of ip,time,mode,values,chain (default the\n"
		"  first four, 16 value slots; --values fills them)\n"
		"  -g: call chains of 64-bit PV guests, depth frames (1 to 127, default 16);\n"
		"  active -g: the session must record them\n");
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
	int chains;		/* active: the rings must hold call chains */
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

/* PROF_MAP, or the same through pmuvirt.ko's device @dev: 0 or a negative errno. */
static long prof_map(int dev, struct pmuvirt_xen_prof_map *map)
{
	if (dev < 0)
		return hc(PMUVIRT_XEN_PROF_MAP, map);
	return ioctl(dev, PMUVIRT_XENPROF_IOC_MAP, map) ? -errno : 0;
}

/*
 * The rings this domain reads (PROF_MAP), mapped read-only: *@desc gets
 * their list, @map the counts.  A PV domain maps their machine frames
 * with privcmd (@dev -1); a PVH or HVM one has pmuvirt.ko's device @dev
 * place them at guest frames of its own and maps them from there.
 * Return: the mapping, or MAP_FAILED with *@rc the error (-ENOENT
 * without a session, -EPERM: none of its rings).
 */
static void *map_rings(int dev, struct pmuvirt_xen_prof_map *map,
		       struct pmuvirt_xen_prof_ring **desc, long *rc)
{
	unsigned long *frames = NULL;
	uint64_t *mfn64 = NULL;
	unsigned int i;
	int *ferr = NULL;
	void *mem;

	*desc = NULL;
	memset(map, 0, sizeof(*map));
	hdr(&map->hdr, sizeof(*map));
	/* no room: the counts come back with -ENOSPC */
	*rc = prof_map(dev, map);
	if (*rc != -ENOSPC) {
		if (!*rc)
			*rc = -EPROTO;
		return MAP_FAILED;
	}
	if (!map->nr_rings || map->nr_frames != map->nr_rings * map->ring_pages) {
		*rc = -EPROTO;
		return MAP_FAILED;
	}
	*desc = calloc(map->nr_rings, sizeof(**desc));
	if (dev < 0) {
		mfn64 = calloc(map->nr_frames, sizeof(*mfn64));
		frames = calloc(map->nr_frames, sizeof(*frames));
		ferr = calloc(map->nr_frames, sizeof(*ferr));
		if (!mfn64 || !frames || !ferr)
			die("memory", ENOMEM);
	}
	if (!*desc)
		die("memory", ENOMEM);
	map->rings = (uint64_t)(uintptr_t)*desc;
	map->frames = (uint64_t)(uintptr_t)mfn64;
	*rc = prof_map(dev, map);
	mem = MAP_FAILED;
	if (!*rc && dev >= 0) {
		mem = mmap(NULL, (size_t)map->nr_frames * 4096, PROT_READ, MAP_SHARED, dev, 0);
	} else if (!*rc) {
		for (i = 0; i < map->nr_frames; i++)
			frames[i] = (unsigned long)mfn64[i];
		mem = xen_map_own_frames(privcmd, frames, map->nr_frames, ferr);
	}
	if (!*rc && mem == MAP_FAILED)
		*rc = -errno;
	free(mfn64);
	free(frames);
	free(ferr);
	return mem;
}

struct drain_stats {
	unsigned int virqs, drains;
	int status, reaped;
	double t0;
};

/*
 * Drain @d at the VIRQ or every --drain-ms until @child ends, --seconds
 * pass or a signal comes; *@st gets the counts and the child's status.
 */
static void drain_loop(struct xp_drain *d, const struct rec_opts *o, pid_t child,
		       struct drain_stats *st)
{
	struct ioctl_evtchn_bind_virq bv = { .virq = PMUVIRT_XEN_PROF_VIRQ };
	double deadline, next_drain;
	int evtchn, port = -1;
	long rc;

	evtchn = o->no_virq ? -1 : open("/dev/xen/evtchn", O_RDWR | O_CLOEXEC);
	if (evtchn >= 0)
		port = ioctl(evtchn, IOCTL_EVTCHN_BIND_VIRQ, &bv);
	if (port < 0 && !o->no_virq)
		fprintf(stderr, "pmuvirt-xenprof: no VIRQ %u (%s): draining every %u ms\n",
			PMUVIRT_XEN_PROF_VIRQ, strerror(errno), o->drain_ms);
	deadline = o->seconds > 0 ? st->t0 + o->seconds : 0;
	next_drain = st->t0 + o->drain_ms / 1000.0;
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
				st->virqs++;
				/* unmask the port for the next one */
				if (write(evtchn, &p, sizeof(p)) != sizeof(p))
					port = -1;
			}
		} else if (slice) {
			usleep((useconds_t)slice * 1000);
		}
		if (virq || now_s() >= next_drain) {
			if (xp_drain_all(d) < 0)
				die(o->out, errno);
			st->drains++;
			rc = give_tails(d);
			if (rc)
				die("giving the rings back (PROF_TAIL)", rc);
			next_drain = now_s() + o->drain_ms / 1000.0;
		}
		if (child > 0 && waitpid(child, &st->status, WNOHANG) == child) {
			st->reaped = 1;
			break;
		}
		if (deadline && now_s() >= deadline)
			break;
	}
	if (evtchn >= 0)
		close(evtchn);
}

/* Run the command, if any, with the signals the drain stops at restored. */
static pid_t start_command(const struct rec_opts *o)
{
	pid_t child;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!o->cmd)
		return -1;
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
	return child;
}

/* Off the CPUs being measured: a busy command there must not starve the drain. */
static void pin_drainer(const struct rec_opts *o)
{
	cpu_set_t set;

	if (o->cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(o->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "pmuvirt-xenprof: --cpu %d: %s\n", o->cpu, strerror(errno));
}

/* The last drain, the file's end, the counts on stderr. */
static void finish_file(struct xp_drain *d, const struct rec_opts *o, const struct drain_stats *st,
			FILE *out)
{
	uint64_t lost = 0, skipped = 0;
	unsigned int i;

	if (xp_drain_all(d) < 0)
		die(o->out, errno);
	if (xp_file_end(d))
		die(o->out, errno);
	if (fclose(out))
		die(o->out, errno);
	for (i = 0; i < d->nr_rings; i++) {
		lost += d->ring[i].end.lost;
		skipped += d->ring[i].end.skipped;
	}
	fprintf(stderr, "pmuvirt-xenprof: %llu records from %u rings in %.1f s (%u drains, "
		"%u VIRQs), %llu lost, %llu skipped: %s\n", (unsigned long long)d->total,
		d->nr_rings, now_s() - st->t0, st->drains, st->virqs, (unsigned long long)lost,
		(unsigned long long)skipped, o->out);
}

static int child_status(pid_t child, struct drain_stats *st)
{
	if (child > 0 && !st->reaped && waitpid(child, &st->status, 0) < 0)
		return 1;
	if (child > 0)
		return WIFEXITED(st->status) ? WEXITSTATUS(st->status) : 128 + WTERMSIG(st->status);
	return 0;
}

/*
 * Free the stopped session: an active domain may still map its rings
 * (-EBUSY) for a while after its tool's last drain.
 */
static long release_session(double wait_s)
{
	double until = now_s() + wait_s;
	long rc;

	while ((rc = prof_simple(PMUVIRT_XEN_PROF_RELEASE)) == -EBUSY && now_s() < until)
		usleep(100 * 1000);
	if (rc == -EBUSY)
		fprintf(stderr, "pmuvirt-xenprof: a domain still maps its rings; free the session "
			"later with \"pmuvirt-xenprof stop\"\n");
	return rc;
}

static int record(struct rec_opts *o)
{
	struct pmuvirt_xen_prof_start *st = &o->start;
	struct pmuvirt_xen_prof_ring *desc;
	struct pmuvirt_xen_prof_map map;
	struct drain_stats ds = { 0 };
	struct xp_drain d;
	pid_t child;
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
		if (rc == -EOPNOTSUPP && st->active)
			fprintf(stderr, "pmuvirt-xenprof: an active domain must be PV\n");
		die("starting the session", rc);
	}
	mem = map_rings(-1, &map, &desc, &rc);
	if (mem == MAP_FAILED)
		goto fail_stop;
	if (xp_drain_init(&d, mem, desc, map.nr_rings, map.ring_pages, out)) {
		rc = -errno;
		goto fail_stop;
	}
	if (xp_file_begin(out, &st->ctl, desc, map.nr_rings, map.nr_records, d.chain_depth)) {
		rc = -errno;
		goto fail_stop;
	}
	child = start_command(o);
	pin_drainer(o);
	ds.t0 = now_s();
	drain_loop(&d, o, child, &ds);
	rc = prof_simple(PMUVIRT_XEN_PROF_STOP);
	if (rc)
		die("stopping the session", rc);
	finish_file(&d, o, &ds, out);
	munmap(mem, (size_t)map.nr_frames * 4096);
	rc = release_session(st->active ? 30 : 0);
	if (rc)
		die("freeing the session", rc);
	xp_drain_free(&d);
	free(desc);
	return child_status(child, &ds);

fail_stop:
	prof_simple(PMUVIRT_XEN_PROF_STOP);
	release_session(st->active ? 30 : 0);
	die("mapping the session's rings", rc);
	return 1;
}

/*
 * In an active domain: wait (at most --wait seconds) for a session that
 * names this domain active, then drain its own rings like record.  The
 * controller stops and frees the session; records its VCPUs write after
 * this ends are counted lost.
 */
static int active(struct rec_opts *o, double wait_s)
{
	struct pmuvirt_xen_prof_ring *desc;
	struct pmuvirt_xen_prof_map map;
	struct pmuvirt_control none;
	struct drain_stats ds = { 0 };
	double until = now_s() + wait_s;
	struct xp_drain d;
	unsigned int i;
	int dev;
	pid_t child;
	void *mem;
	FILE *out;
	long rc;

	open_privcmd();
	out = fopen(o->out, "wb");
	if (!out)
		die(o->out, errno);
	/* pmuvirt.ko's device in a PVH or HVM domain; privcmd maps a PV one's */
	dev = open("/dev/pmuvirt-xenprof", O_RDWR | O_CLOEXEC);
	while ((mem = map_rings(dev, &map, &desc, &rc)) == MAP_FAILED &&
	       (rc == -ENOENT || rc == -EPERM) && now_s() < until && !stop_now) {
		free(desc);
		usleep(100 * 1000);
	}
	if (mem == MAP_FAILED) {
		if (rc == -ENOENT || rc == -EPERM)
			fprintf(stderr, "pmuvirt-xenprof: no session names this domain active\n");
		die("mapping this domain's rings", rc);
	}
	for (i = 0; i < map.nr_rings; i++)
		if (desc[i].domain != desc[0].domain || (desc[i].flags & PMUVIRT_XEN_PROF_RING_PCPU))
			die("a ring of another domain", EPROTO);
	fprintf(stderr, "pmuvirt-xenprof: active: domain %u, %u rings of %u records (%s)\n",
		desc[0].domain, map.nr_rings, map.nr_records,
		dev >= 0 ? "placed by pmuvirt.ko" : "mapped by machine frame");
	if (xp_drain_init(&d, mem, desc, map.nr_rings, map.ring_pages, out))
		die("the rings", errno);
	if (o->chains && !d.chain_depth) {
		fprintf(stderr, "pmuvirt-xenprof: the session records no call chains "
			"(its controller's \"record -g\" does)\n");
		exit(1);
	}
	/* the controller chose the counters: this domain does not see them */
	memset(&none, 0, sizeof(none));
	if (xp_file_begin(out, &none, desc, map.nr_rings, map.nr_records, d.chain_depth))
		die(o->out, errno);
	/* what the rings hold from before this started, and their room back at once */
	if (xp_drain_all(&d) < 0)
		die(o->out, errno);
	rc = give_tails(&d);
	if (rc)
		die("giving the rings back (PROF_TAIL)", rc);
	child = start_command(o);
	pin_drainer(o);
	ds.t0 = now_s();
	drain_loop(&d, o, child, &ds);
	finish_file(&d, o, &ds, out);
	munmap(mem, (size_t)map.nr_frames * 4096);
	/* the device takes the rings out of this domain's physical map */
	if (dev >= 0)
		close(dev);
	xp_drain_free(&d);
	free(desc);
	return child_status(child, &ds);
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

/* A name for the folded lines: no control characters, no ';' (they separate frames). */
static void put_name(char **buf, size_t *len, size_t *cap, const char *name, int kernel)
{
	size_t n = strlen(name) + 6;
	const char *p;

	while (*len + n + 1 > *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			die("memory", ENOMEM);
	}
	for (p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;

		(*buf)[(*len)++] = c < 0x20 || c == 0x7f ? '?' : c == ';' ? ':' : (char)c;
	}
	if (kernel) {
		memcpy(*buf + *len, "_[k]", 4);
		*len += 4;
	}
	(*buf)[*len] = 0;
}

struct folded {
	char *stack;	/* frames apart by FOLD_SEP, which sorts before any name's character */
	uint64_t weight;
};

#define FOLD_SEP	'\x01'

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

/* The function of a return address, kernel or user: the call's, one byte before it. */
static const char *frame_name(const struct dom_syms *d, int kernel, uint64_t addr)
{
	const struct sym *sym = NULL;

	if (d && addr && kernel && d->have_kernel)
		sym = symtab_find(&d->kernel, addr - 1);
	else if (d && addr && !kernel && d->have_user)
		sym = symtab_find(&d->user, addr - 1);
	return sym ? sym->name : "[unknown]";
}

static int report(int argc, char **argv)
{
	const char *in = "pmuvirt-xenprof.data", *xen_syms = NULL;
	struct dom_syms *ds = NULL;
	unsigned int nds = 0, top = 30, i;
	int per_vcpu = 0, folded = 0, dump = 0, version;
	struct symtab xen = { 0 };
	struct xp_file_hdr fh;
	struct xp_file_chain fc = { 0 };
	struct xp_file_end fe;
	struct xp_ring_end *re;
	struct pmuvirt_xen_prof_ring *desc;
	struct pmuvirt_sample s;
	struct entry *e = NULL;
	struct folded *fo = NULL;
	uint64_t nrec = 0, total = 0, lost = 0, skipped = 0, noip = 0, unresolved = 0;
	uint64_t frame[PMUVIRT_CHAIN_MAX];
	size_t ne = 0, cap = 0, k, j, line_cap = 0, line_len;
	char *line = NULL;
	struct stat sb;
	long end_off, pos;
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
		} else if (!strcmp(argv[a], "--folded") && !dump) {
			folded = 1;
		} else if (!strcmp(argv[a], "--dump") && !folded) {
			dump = 1;
		} else {
			usage();
		}
	}
	if (xen_syms)
		load_or_die(&xen, xen_syms);
	f = fopen(in, "rb");
	if (!f || fstat(fileno(f), &sb))
		die(in, errno);
	version = 0;
	if (fread(&fh, sizeof(fh), 1, f) == 1)
		version = !memcmp(fh.magic, XP_MAGIC, 8) ? 1 : !memcmp(fh.magic, XP_MAGIC_CHAIN, 8) ? 2 : 0;
	if (version == 2 && (fread(&fc, sizeof(fc), 1, f) != 1 || !fc.chain_depth ||
			     fc.chain_depth > PMUVIRT_CHAIN_MAX || fc.reserved))
		version = 0;
	if (!version || fh.record_size != sizeof(struct pmuvirt_sample) ||
	    fh.sample_version != PMUVIRT_SAMPLE_VERSION || fh.nr_rings > (1u << 20)) {
		fprintf(stderr, "pmuvirt-xenprof: %s: not a record file of a version this reads (%s, %s)\n",
			in, XP_MAGIC, XP_MAGIC_CHAIN);
		return 1;
	}
	desc = calloc(fh.nr_rings ? fh.nr_rings : 1, sizeof(*desc));
	re = calloc(fh.nr_rings ? fh.nr_rings : 1, sizeof(*re));
	if (!desc || !re)
		die("memory", ENOMEM);
	if (fread(desc, sizeof(*desc), fh.nr_rings, f) != fh.nr_rings)
		goto truncated;
	end_off = (long)(sb.st_size - (off_t)sizeof(fe) - (off_t)fh.nr_rings * (off_t)sizeof(*re));
	pos = ftell(f);
	if (end_off < pos || (version == 1 && (end_off - pos) % (long)sizeof(s)))
		goto truncated;
	while (pos < end_off) {
		const struct sym *sym = NULL;
		struct dom_syms *d = NULL;
		const char *name;
		unsigned int nk, nu, vcpu;
		uint16_t mode;

		if (fread(&s, sizeof(s), 1, f) != 1)
			goto truncated;
		nk = s.nr_kernel;
		nu = s.nr_user;
		if (nk + nu > fc.chain_depth || (nk + nu && fread(frame, 8, nk + nu, f) != nk + nu))
			goto truncated;
		pos += (long)(sizeof(s) + 8 * (nk + nu));
		if (pos > end_off)
			goto truncated;
		nrec++;
		mode = (s.flags & PMUVIRT_SAMPLE_HYPERVISOR) ? 0 :
		       (s.flags & PMUVIRT_SAMPLE_USER) ? 2 : 1;
		for (j = 0; j < nds; j++)
			if (ds[j].domain == s.domain)
				d = &ds[j];
		if (s.flags & PMUVIRT_SAMPLE_NO_IP) {
			/* Xen's IP withheld from an active domain, or a domain not named */
			name = mode == 0 ? "[xen: no IP]" : "[not profiled]";
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
		/*
		 * a named domain's record names its VCPU (an active domain's
		 * also in Xen's mode, IP withheld); others carry none
		 */
		vcpu = per_vcpu && s.domain != PMUVIRT_XEN_DOMID_IDLE &&
		       (!(s.flags & PMUVIRT_SAMPLE_NO_IP) || mode == 0) ? s.tid + 1 : 0;
		total += s.weight;
		if (folded || dump) {
			char dn[24];
			unsigned int n;

			dom_name(dn, sizeof(dn), s.domain, vcpu);
			line_len = 0;
			put_name(&line, &line_len, &line_cap, dn, 0);
			if (dump) {
				char tail[160];

				snprintf(tail, sizeof(tail), " vcpu %u cpu %u time %llu ip 0x%llx %s ",
					 s.tid, s.cpu, (unsigned long long)s.time,
					 (unsigned long long)s.ip, mode == 0 ? "[x]" : mode == 1 ? "[k]" : "[.]");
				put_name(&line, &line_len, &line_cap, tail, 0);
				put_name(&line, &line_len, &line_cap, name, mode != 2);
				snprintf(tail, sizeof(tail), " weight %u counter %u", s.weight, s.counter);
				put_name(&line, &line_len, &line_cap, tail, 0);
				for (n = 0; (s.flags & PMUVIRT_SAMPLE_VALUES) && n < s.nr_values; n++) {
					snprintf(tail, sizeof(tail), " %llu", (unsigned long long)s.value[n]);
					put_name(&line, &line_len, &line_cap, tail, 0);
				}
				if (nk + nu)
					put_name(&line, &line_len, &line_cap, " chain", 0);
				/* innermost first: the kernel's frames, then the user's */
				for (n = 0; n < nk + nu; n++) {
					snprintf(tail, sizeof(tail), " 0x%llx ", (unsigned long long)frame[n]);
					put_name(&line, &line_len, &line_cap, tail, 0);
					put_name(&line, &line_len, &line_cap,
						 frame_name(d, n < nk, frame[n]), n < nk);
				}
				printf("%s\n", line);
				continue;
			}
			/* outermost first: the user's frames, the kernel's, the function */
			for (n = nk + nu; n-- > 0;) {
				line[line_len++] = FOLD_SEP;
				put_name(&line, &line_len, &line_cap,
					 frame_name(d, n < nk, frame[n]), n < nk);
			}
			line[line_len++] = FOLD_SEP;
			put_name(&line, &line_len, &line_cap, name, mode != 2);
			if (ne == cap) {
				cap = cap ? 2 * cap : 1024;
				fo = realloc(fo, cap * sizeof(*fo));
				if (!fo)
					die("memory", ENOMEM);
			}
			fo[ne].stack = strdup(line);
			if (!fo[ne].stack)
				die("memory", ENOMEM);
			fo[ne++].weight = s.weight;
			continue;
		}
		if (ne == cap) {
			cap = cap ? 2 * cap : 1024;
			e = realloc(e, cap * sizeof(*e));
			if (!e)
				die("memory", ENOMEM);
		}
		e[ne++] = (struct entry){ .domain = s.domain, .mode = mode, .name = name,
					  .weight = s.weight, .vcpu = vcpu };
	}
	if (fread(&fe, sizeof(fe), 1, f) != 1 || memcmp(fe.magic, XP_END_MAGIC, 8) ||
	    fe.nr_samples != nrec || fread(re, sizeof(*re), fh.nr_rings, f) != fh.nr_rings)
		goto truncated;
	fclose(f);
	free(line);

	if (folded) {
		qsort(fo, ne, sizeof(*fo), by_stack);
		for (k = 0, j = 0; k < ne; k++) {
			if (j && !strcmp(fo[j - 1].stack, fo[k].stack)) {
				fo[j - 1].weight += fo[k].weight;
				free(fo[k].stack);
			} else {
				fo[j++] = fo[k];
			}
		}
		for (k = 0; k < j; k++) {
			char *p;

			for (p = fo[k].stack; *p; p++)
				if (*p == FOLD_SEP)
					*p = ';';
			printf("%s %llu\n", fo[k].stack, (unsigned long long)fo[k].weight);
			free(fo[k].stack);
		}
		free(fo);
	}
	if (folded || dump)
		goto out;

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
out:
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
	int a, values = 0, domains_given = 0, is_active;
	unsigned long chain_depth = 0;
	double wait_s = 0;

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
	is_active = !strcmp(argv[1], "active");
	if (strcmp(argv[1], "record") && !is_active)
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
		} else if (!strcmp(argv[a], "-e") && a + 1 < argc && !is_active) {
			events = argv[++a];
		} else if (!strcmp(argv[a], "-c") && a + 1 < argc && !is_active) {
			period = strtoull(argv[++a], NULL, 0);
		} else if ((!strcmp(argv[a], "-d") || !strcmp(argv[a], "-a")) && a + 1 < argc &&
			   !is_active) {
			if (o.start.nr_domains >= PMUVIRT_XEN_PROF_MAX_DOMAINS)
				usage();
			if (argv[a][1] == 'a')
				o.start.active |= 1u << o.start.nr_domains;
			o.start.domains[o.start.nr_domains++] =
				(uint16_t)strtoul(argv[++a], NULL, 0);
			domains_given = 1;
		} else if (!strcmp(argv[a], "--wait") && a + 1 < argc && is_active) {
			wait_s = strtod(argv[++a], NULL);
		} else if (!strcmp(argv[a], "-o") && a + 1 < argc) {
			o.out = argv[++a];
		} else if (!strcmp(argv[a], "--values") && !is_active) {
			values = 1;
		} else if (!strcmp(argv[a], "--fields") && a + 1 < argc && !is_active) {
			if (pmuvirt_user_parse_fields(argv[++a], &o.start.sample_format))
				usage();
		} else if (!strcmp(argv[a], "-g") && is_active) {
			o.chains = 1;
		} else if (!strcmp(argv[a], "-g")) {
			chain_depth = 16;
			if (a + 1 < argc && argv[a + 1][0] >= '0' && argv[a + 1][0] <= '9') {
				char *end;

				chain_depth = strtoul(argv[++a], &end, 10);
				if (*end || !chain_depth || chain_depth > PMUVIRT_CHAIN_MAX)
					usage();
			}
		} else if (!strcmp(argv[a], "--no-virq")) {
			o.no_virq = 1;
		} else if (!strcmp(argv[a], "--cpu") && a + 1 < argc) {
			o.cpu = (int)strtol(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--pages") && a + 1 < argc && !is_active) {
			o.start.ring_pages = (uint32_t)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--high-water") && a + 1 < argc && !is_active) {
			o.start.high_water_pct = (uint32_t)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--drain-ms") && a + 1 < argc) {
			o.drain_ms = (unsigned int)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--seconds") && a + 1 < argc) {
			o.seconds = strtod(argv[++a], NULL);
		} else {
			usage();
		}
	}
	if (is_active) {
		if (!o.drain_ms)
			usage();
		return active(&o, wait_s);
	}
	if (!domains_given)
		o.start.nr_domains = 1;	/* domain 0 */
	if (pmuvirt_user_parse_events(events, &o.start.ctl) || !period ||
	    o.start.ctl.nr_counters > PMUVIRT_XEN_PROF_MAX_COUNTERS || !o.drain_ms)
		usage();
	if (values && o.start.sample_format)
		o.start.sample_format |= PMUVIRT_SAMPLE_FMT_VALUES;
	/* call chains: the format's bit and the depth, either way asked for */
	if (o.start.sample_format & PMUVIRT_SAMPLE_FMT_CHAIN && !chain_depth)
		chain_depth = 16;
	if (chain_depth) {
		o.start.sample_format = (o.start.sample_format ? o.start.sample_format :
					 PMUVIRT_SAMPLE_FMT_DEFAULT) | PMUVIRT_SAMPLE_FMT_CHAIN;
		o.start.chain_depth = (uint32_t)chain_depth;
	}
	if (o.start.sample_format & PMUVIRT_SAMPLE_FMT_VALUES)
		values = 1;
	for (a = 0; a < (int)o.start.ctl.nr_counters; a++) {
		struct pmuvirt_counter_ctl *c = &o.start.ctl.counter[a];

		c->period = period;
		c->flags |= PMUVIRT_CTR_SAMPLE | (values ? PMUVIRT_CTR_SAMPLE_VALUES : 0);
	}
	return record(&o);
}
