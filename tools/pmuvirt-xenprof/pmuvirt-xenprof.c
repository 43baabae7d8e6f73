// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-xenprof: system-wide profiling of a Xen machine from its control
 * domain, on pmuvirt's profiling session (include/pmuvirt/xen.h, commands
 * PROF_START .. PROF_RELEASE).
 *
 *   record   start a session, drain its rings into a profile file (at
 *            the VIRQ or every --drain-ms) while a command runs or for
 *            --seconds, stop, drain the rest, free the session
 *   active   in a domain a session names active: drain its own VCPUs'
 *            rings into a file, as record does
 *   stop     stop and free a session this domain left running
 *
 * The file is pmuvirt-record's format (profile-file.h) with the session's
 * domains and rings; pmuvirt-report reads it.  Every record the rings had
 * no room for is counted (each ring's "lost"), and so is every record the
 * reader had to skip: the report prints both.
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
#include <sys/utsname.h>
#include <sys/wait.h>

#include "drain.h"
#include "libpmuvirt-user.h"
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
		"       pmuvirt-xenprof stop\n"
		"  events: instructions cycles branches branch-misses rHEX, each :k (Xen only)\n"
		"  or :u (guests only); default -e cycles -c 1000000 -d 0, file pmuvirt-xenprof.data\n"
		"  -a: a domain that reads its own records (active; it runs \"pmuvirt-xenprof active\")\n"
		"  --fields: what a record holds, of ip,time,mode,values,chain (default the\n"
		"  first four, 16 value slots; --values fills them)\n"
		"  -g: call chains of 64-bit PV guests, depth frames (1 to 127, default 16);\n"
		"  active -g: the session must record them\n"
		"  the file is read by pmuvirt-report (--xen-syms, --map, --exe: docs/xen.md)\n");
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
	const char *events;	/* as given (-e) */
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

/* INFO of the file: the session's counters (none for an active domain), the drain, the command. */
static void file_info(struct pmuvirt_prof_info *info, const struct rec_opts *o,
		      const struct pmuvirt_control *ctl, uint32_t flags)
{
	struct timespec ts;
	struct utsname un;
	size_t len = 0;
	char **a;

	memset(info, 0, sizeof(*info));
	info->flags = flags;
	if (ctl->nr_counters) {
		info->period = ctl->counter[0].period;
		info->event = (uint32_t)ctl->counter[0].event;
		info->ctr_flags = ctl->counter[0].flags;
		info->nr_counters = ctl->nr_counters;
	}
	info->sample_pages = o->start.ring_pages;
	info->interval_ms = o->drain_ms;
	clock_gettime(CLOCK_REALTIME, &ts);
	info->start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(info->events, sizeof(info->events), "%s", o->events ? o->events : "");
	for (a = o->cmd; a && *a && len < sizeof(info->command) - 1; a++)
		len += (size_t)snprintf(info->command + len, sizeof(info->command) - len, "%s%s",
					a == o->cmd ? "" : " ", *a);
	if (!uname(&un))
		snprintf(info->release, sizeof(info->release), "%s", un.release);
}

/* The last drain, the file's end, the counts on stderr. */
static void finish_file(struct xp_drain *d, const struct rec_opts *o, const struct drain_stats *st,
			pid_t child, FILE *out)
{
	uint64_t lost = 0, skipped = 0;
	uint32_t flags = 0;
	unsigned int i;

	if (xp_drain_all(d) < 0)
		die(o->out, errno);
	if (child > 0 && !st->reaped)
		flags |= PMUVIRT_PROF_END_INCOMPLETE;
	if (stop_now)
		flags |= PMUVIRT_PROF_END_INTERRUPTED;
	if (xp_file_end(d, st->reaped ? st->status : 0, flags))
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
	struct pmuvirt_prof_domain dom[PMUVIRT_XEN_PROF_MAX_DOMAINS];
	struct pmuvirt_prof_info info;
	struct drain_stats ds = { 0 };
	struct xp_drain d;
	unsigned int i;
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
	if (xp_drain_init(&d, mem, desc, map.nr_rings, map.ring_pages, map.nr_records)) {
		rc = -errno;
		goto fail_stop;
	}
	for (i = 0; i < st->nr_domains && i < PMUVIRT_XEN_PROF_MAX_DOMAINS; i++) {
		dom[i].domain = st->domains[i];
		dom[i].flags = (st->active >> i) & 1 ? PMUVIRT_PROF_DOMAIN_ACTIVE : 0;
	}
	file_info(&info, o, &st->ctl, 0);
	if (xp_file_begin(&d, out, &info, dom, i)) {
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
	finish_file(&d, o, &ds, child, out);
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
	struct pmuvirt_prof_domain self;
	struct pmuvirt_prof_info info;
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
	if (xp_drain_init(&d, mem, desc, map.nr_rings, map.ring_pages, map.nr_records))
		die("the rings", errno);
	if (o->chains && !d.chain_depth) {
		fprintf(stderr, "pmuvirt-xenprof: the session records no call chains "
			"(its controller's \"record -g\" does)\n");
		exit(1);
	}
	/* the controller chose the counters: this domain does not see them */
	memset(&none, 0, sizeof(none));
	o->start.ring_pages = map.ring_pages;
	file_info(&info, o, &none, PMUVIRT_PROF_INFO_ACTIVE);
	self.domain = desc[0].domain;
	self.flags = PMUVIRT_PROF_DOMAIN_ACTIVE;
	if (xp_file_begin(&d, out, &info, &self, 1))
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
	finish_file(&d, o, &ds, child, out);
	munmap(mem, (size_t)map.nr_frames * 4096);
	/* the device takes the rings out of this domain's physical map */
	if (dev >= 0)
		close(dev);
	xp_drain_free(&d);
	free(desc);
	return child_status(child, &ds);
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
	if (!strcmp(argv[1], "report")) {
		fprintf(stderr, "pmuvirt-xenprof: pmuvirt-report reads the files (docs/xen.md)\n");
		return 2;
	}
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
	o.events = is_active ? "" : events;
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
