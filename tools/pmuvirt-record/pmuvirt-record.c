// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-record: run a command and record where its threads' events
 * happen, like "perf record", from pmuvirt.ko's per-thread sample rings.
 *
 * The command's main thread attaches before exec with inheritance and
 * PMUVIRT_ATTACH_SAMPLE_FILE, so every thread and process the command
 * creates gets a ring of its own, queued on our file.  Every interval the
 * recorder takes the new rings, drains them all into the output file, and
 * snapshots the memory maps of the processes that had samples (when they
 * changed), so user IPs resolve after the processes are gone.  When the
 * command has exited and every thread has reported, the rings are drained
 * a last time and each thread's totals and the summary are written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "libpmuvirt-user.h"
#include "profile-file.h"

#define INTERVAL_MS	20
#define DEFAULT_PERIOD	100000
#define DEFAULT_PAGES	128
#define READ_BATCH	256
#define DEFAULT_DEPTH	32
#define REPORT_WAIT_S	5

struct proc {
	uint32_t pid;
	char *maps;		/* the last snapshot written */
	size_t maps_len;
	int want;		/* had samples this round */
	uint32_t tid;		/* a thread of it that had them (0: none yet) */
};

struct ring {
	struct pmuvirt_user_ring u;
	struct pmuvirt_prof_thread t;
	unsigned int proc;	/* index in procs */
	int fresh;		/* samples this round */
};

static struct ring *rings;
static unsigned int nr_rings, cap_rings;
static struct proc *procs;
static unsigned int nr_procs, cap_procs;
static struct pmuvirt_report *reports;
static unsigned int nr_reports, cap_reports;
static struct pmuvirt_prof_writer out;
static uint64_t total_records, total_weight;
static uint32_t rings_dropped;
static volatile sig_atomic_t stop_signal;
static const char *outname = "pmuvirt.data";
static uint32_t rec_format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_TIME | PMUVIRT_SAMPLE_FMT_MODE;
static uint32_t rec_depth;

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuvirt-record [-e event[,event...]] [-c period] [-m pages] [-o file]\n"
		"                      [--values] [-g | --call-graph DEPTH] [--fields LIST] [-q]\n"
		"                      -- command [args]\n"
		"  -e    events (instructions cycles branches branch-misses rHEX, :u or :k);\n"
		"        the first samples, the others are counted along (default instructions)\n"
		"  -c    sample every PERIOD events of the first (default %d)\n"
		"  -m    ring pages per thread, a power of two from 2 to %d (default %d)\n"
		"  -o    output file (default pmuvirt.data)\n"
		"  --values  each sample carries the values of every counter\n"
		"  -g    each sample carries its call chain, up to %d frames\n"
		"  --call-graph DEPTH  the same, up to DEPTH frames (1 to %d)\n"
		"  --fields LIST  what a sample holds: ip,time,mode,values,chain\n"
		"        (default ip,time,mode; --values and -g add theirs)\n"
		"  -q    no progress lines\n",
		DEFAULT_PERIOD, PMUVIRT_SAMPLE_PAGES_MAX, DEFAULT_PAGES, DEFAULT_DEPTH,
		PMUVIRT_CHAIN_MAX);
	exit(2);
}

static void *grow(void *arr, unsigned int nr, unsigned int *cap, size_t size)
{
	void *p;

	if (nr < *cap)
		return arr;
	*cap = *cap ? 2 * *cap : 16;
	p = realloc(arr, (size_t)*cap * size);
	if (!p) {
		perror("pmuvirt-record");
		exit(1);
	}
	return p;
}

static void write_failed(void)
{
	fprintf(stderr, "pmuvirt-record: writing %s: %s\n", outname, strerror(out.err));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Read a whole /proc file into *buf (grown as needed, at most @max bytes). */
static ssize_t read_proc(const char *path, char **buf, size_t *cap, size_t max)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n;

		if (len == *cap) {
			char *p;

			if (*cap >= max) {
				close(fd);
				return -1;
			}
			*cap = *cap ? 2 * *cap : 16384;
			p = realloc(*buf, *cap);
			if (!p) {
				close(fd);
				return -1;
			}
			*buf = p;
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return n < 0 ? -1 : (ssize_t)len;
		}
		len += (size_t)n;
	}
}

static unsigned int proc_index(uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < nr_procs; i++)
		if (procs[i].pid == pid)
			return i;
	procs = grow(procs, nr_procs, &cap_procs, sizeof(*procs));
	memset(&procs[nr_procs], 0, sizeof(*procs));
	procs[nr_procs].pid = pid;
	procs[nr_procs].want = 1;
	return nr_procs++;
}

/* Take every ring queued on the file. */
static void open_rings(int fd)
{
	for (;;) {
		struct ring *r;

		rings = grow(rings, nr_rings, &cap_rings, sizeof(*rings));
		r = &rings[nr_rings];
		memset(r, 0, sizeof(*r));
		if (pmuvirt_user_ring_open(fd, &r->u)) {
			if (errno != EAGAIN)
				fprintf(stderr, "pmuvirt-record: taking a sample ring: %s\n",
					strerror(errno));
			return;
		}
		r->t.tid = r->u.tid;
		r->t.pid = r->u.pid;
		memcpy(r->t.comm, r->u.comm, sizeof(r->t.comm));
		r->proc = proc_index(r->u.pid);
		rings_dropped = r->u.dropped;
		nr_rings++;
	}
}

/* Copy a ring's new records into the file and give the room back. */
static void drain(struct ring *r, uint32_t tick)
{
	static struct pmuvirt_sample buf[READ_BATCH];
	static struct pmuvirt_sample_chain chains[READ_BATCH];
	struct pmuvirt_prof_chunk c = { r->t.pid, r->t.tid, tick };
	int n, i, any = 0;

	for (;;) {
		n = pmuvirt_sample_read_chain(&r->u.r, buf, chains, READ_BATCH);
		if (n < 0) {
			/* a head that makes no sense: skip to it */
			r->t.skipped += pmuvirt_sample_resync(&r->u.r);
			continue;
		}
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			r->t.weight += buf[i].weight;
			total_weight += buf[i].weight;
			if (buf[i].tid != r->t.tid)
				r->t.foreign++;
		}
		r->t.records += (uint64_t)n;
		total_records += (uint64_t)n;
		if (pmuvirt_prof_write_samples(&out, &c, buf, chains, (unsigned int)n))
			write_failed();
		any = 1;
	}
	if (any) {
		r->fresh = 1;
		procs[r->proc].want = 1;
		procs[r->proc].tid = r->t.tid;
		if (pmuvirt_user_sample_tail(r->u.fd, &r->u.r))
			fprintf(stderr, "pmuvirt-record: thread %u: giving records back: %s\n",
				r->t.tid, strerror(errno));
	}
	r->t.lost = pmuvirt_sample_lost(&r->u.r);
}

/*
 * The maps of each process that had samples, when they changed.  They are
 * read through a thread that had samples: a process whose main thread has
 * exited shows no maps under its pid.  No maps at all means the process is
 * going away: the snapshot before stays the valid one.
 */
static void snapshot_maps(uint32_t tick)
{
	static char *buf;
	static size_t cap;
	unsigned int i;

	for (i = 0; i < nr_procs; i++) {
		struct proc *p = &procs[i];
		char path[64];
		ssize_t n;

		if (!p->want)
			continue;
		p->want = 0;
		if (p->tid)
			snprintf(path, sizeof(path), "/proc/%u/task/%u/maps", p->pid, p->tid);
		else
			snprintf(path, sizeof(path), "/proc/%u/maps", p->pid);
		n = read_proc(path, &buf, &cap, PMUVIRT_PROF_MAPS_MAX);
		if (n <= 0 || (p->maps && (size_t)n == p->maps_len && !memcmp(buf, p->maps, n)))
			continue;
		free(p->maps);
		p->maps = malloc((size_t)n);
		if (!p->maps) {
			perror("pmuvirt-record");
			exit(1);
		}
		memcpy(p->maps, buf, n);
		p->maps_len = (size_t)n;
		if (pmuvirt_prof_write_maps(&out, p->pid, tick, buf, (size_t)n))
			write_failed();
	}
}

/* The current name of threads that had samples this round. */
static void refresh_names(void)
{
	unsigned int i;

	for (i = 0; i < nr_rings; i++) {
		struct ring *r = &rings[i];
		char path[64], name[17];
		ssize_t n;
		int fd;

		if (!r->fresh)
			continue;
		r->fresh = 0;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", r->t.pid, r->t.tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, name, sizeof(name) - 1);
		close(fd);
		if (n <= 0)
			continue;
		name[n] = 0;
		name[strcspn(name, "\n")] = 0;
		memcpy(r->t.comm, name, sizeof(r->t.comm));
	}
}

/* Reports of threads that ended; 1 at end of file (every thread has reported). */
static int read_reports(int fd)
{
	for (;;) {
		ssize_t got;

		reports = grow(reports, nr_reports, &cap_reports, sizeof(*reports));
		got = read(fd, &reports[nr_reports], sizeof(*reports));
		if (got == 0)
			return 1;
		if (got != (ssize_t)sizeof(*reports))
			return 0;
		nr_reports++;
	}
}

static uint64_t lost_total(void)
{
	uint64_t lost = 0;
	unsigned int i;

	for (i = 0; i < nr_rings; i++)
		lost += rings[i].t.lost + rings[i].t.skipped;
	return lost;
}

static void progress(int tty, int last)
{
	fprintf(stderr, "%spmuvirt-record: %llu samples, %u threads, %llu lost%s",
		tty ? "\r" : "", (unsigned long long)total_records, nr_rings,
		(unsigned long long)lost_total(), tty && !last ? "   " : "\n");
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* The first counter samples; -1 with a message when the kernel refuses. */
static int probe(int fd, struct pmuvirt_control *ctl, uint32_t pages, int default_modes)
{
	struct pmuvirt_user u;
	struct sigaction ign, old;
	int rc;

	/*
	 * The probe's context samples: where its attach and detach cost more
	 * than a period (a Xen guest's hypercalls count on its VCPU), the
	 * overflow signal (SIGIO) must not end the recorder.
	 */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGIO, &ign, &old);
	rc = pmuvirt_user_attach_records(&u, fd, ctl, 0, 0, pages, rec_format, rec_depth);
	if (!rc)
		pmuvirt_user_detach(&u, NULL);
	sigaction(SIGIO, &old, NULL);
	if (!rc)
		return 0;
	if (errno == EACCES && default_modes) {
		unsigned int i;

		fprintf(stderr, "pmuvirt-record: kernel-mode counting not permitted "
			"(perf_event_paranoid): user mode only\n");
		for (i = 0; i < ctl->nr_counters; i++)
			if (ctl->counter[i].event != PMUVIRT_EV_TSC)
				ctl->counter[i].flags &= ~PMUVIRT_CTR_KERNEL;
		return probe(fd, ctl, pages, 0);
	}
	fprintf(stderr, "pmuvirt-record: attach: %s%s (see dmesg)\n", strerror(errno),
		errno == ENODEV || errno == EOPNOTSUPP ? ": the PMU cannot count an event" :
		errno == EBUSY ? ": the counters are held by perf or the NMI watchdog" :
		errno == ERANGE ? ": the period is below min_period" : "");
	return -1;
}

static void write_info(const char *events, const struct pmuvirt_control *ctl, uint32_t pages,
		       char **argv)
{
	static struct pmuvirt_prof_info info;
	struct utsname un;
	struct timespec ts;
	size_t len = 0;

	memset(&info, 0, sizeof(info));
	info.period = ctl->counter[0].period;
	info.event = ctl->counter[0].event;
	info.ctr_flags = ctl->counter[0].flags;
	info.nr_counters = ctl->nr_counters;
	info.sample_pages = pages;
	info.sample_format = rec_format;
	info.chain_depth = rec_depth;
	info.interval_ms = INTERVAL_MS;
	clock_gettime(CLOCK_REALTIME, &ts);
	info.start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(info.events, sizeof(info.events), "%s", events);
	for (; *argv && len < PMUVIRT_PROF_STRING_MAX; argv++)
		len += (size_t)snprintf(info.command + len, sizeof(info.command) - len, "%s%s",
					len ? " " : "", *argv);
	if (!uname(&un))
		snprintf(info.release, sizeof(info.release), "%s", un.release);
	if (pmuvirt_prof_write_info(&out, &info))
		write_failed();
}

/* Final names, and how each thread ended, from the reports. */
static void apply_reports(void)
{
	unsigned int i, k;

	for (i = 0; i < nr_rings; i++) {
		struct ring *r = &rings[i];

		r->t.flags |= PMUVIRT_PROF_THREAD_LIVE;
		for (k = 0; k < nr_reports; k++) {
			if (reports[k].tid != r->t.tid || reports[k].pid != r->t.pid)
				continue;
			r->t.flags &= ~PMUVIRT_PROF_THREAD_LIVE;
			r->t.flags |= PMUVIRT_PROF_THREAD_REPORTED;
			if (reports[k].how == PMUVIRT_REPORT_EXEC)
				r->t.flags |= PMUVIRT_PROF_THREAD_EXEC;
			memset(r->t.comm, 0, sizeof(r->t.comm));
			memcpy(r->t.comm, reports[k].comm,
			       strnlen(reports[k].comm, sizeof(reports[k].comm)));
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "values", no_argument, NULL, 'V' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "fields", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *events = "instructions";
	unsigned long long period = DEFAULT_PERIOD;
	unsigned long pages = DEFAULT_PAGES;
	int opt, fd, values = 0, quiet = 0, tty, status = 0, child_done = 0, eof = 0;
	unsigned long depth = 0;
	struct pmuvirt_control ctl;
	struct pmuvirt_prof_end end;
	struct sigaction sa;
	double start, done_at = 0, last_progress;
	uint32_t tick = 0;
	unsigned int i;
	FILE *f;
	pid_t child;
	char *e;

	while ((opt = getopt_long(argc, argv, "+e:c:m:o:gqh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e': events = optarg; break;
		case 'c':
			errno = 0;
			period = strtoull(optarg, &e, 0);
			if (errno || *e || !period || period > PMUVIRT_PERIOD_MAX) {
				fprintf(stderr, "pmuvirt-record: bad period '%s'\n", optarg);
				return 2;
			}
			break;
		case 'm':
			pages = strtoul(optarg, &e, 0);
			if (*e || pages < 2 || pages > PMUVIRT_SAMPLE_PAGES_MAX || (pages & (pages - 1))) {
				fprintf(stderr, "pmuvirt-record: -m takes a power of two from 2 to %d\n",
					PMUVIRT_SAMPLE_PAGES_MAX);
				return 2;
			}
			break;
		case 'o': outname = optarg; break;
		case 'V': values = 1; break;
		case 'g': depth = DEFAULT_DEPTH; break;
		case 'G':
			depth = strtoul(optarg, &e, 0);
			if (*e || !depth || depth > PMUVIRT_CHAIN_MAX) {
				fprintf(stderr, "pmuvirt-record: --call-graph takes a depth from 1 to %d\n",
					PMUVIRT_CHAIN_MAX);
				return 2;
			}
			break;
		case 'F':
			if (pmuvirt_user_parse_fields(optarg, &rec_format)) {
				fprintf(stderr, "pmuvirt-record: bad --fields '%s' (ip,time,mode,values,chain)\n",
					optarg);
				return 2;
			}
			break;
		case 'q': quiet = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (pmuvirt_user_parse_events(events, &ctl) || !ctl.nr_counters) {
		fprintf(stderr, "pmuvirt-record: bad event list '%s'\n", events);
		return 2;
	}
	if (ctl.counter[0].event == PMUVIRT_EV_TSC && !(ctl.counter[0].flags & PMUVIRT_CTR_RAW)) {
		fprintf(stderr, "pmuvirt-record: the TSC cannot sample: name another event first\n");
		return 2;
	}
	/* pmuvirt-report names a record's function from its IP and mode */
	if ((rec_format & (PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE)) !=
	    (PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE)) {
		fprintf(stderr, "pmuvirt-record: --fields needs ip and mode\n");
		return 2;
	}
	if (values)
		rec_format |= PMUVIRT_SAMPLE_FMT_VALUES;
	if (depth)
		rec_format |= PMUVIRT_SAMPLE_FMT_CHAIN;
	if (rec_format & PMUVIRT_SAMPLE_FMT_CHAIN)
		rec_depth = depth ? (uint32_t)depth : DEFAULT_DEPTH;
	ctl.counter[0].period = period;
	ctl.counter[0].flags |= PMUVIRT_CTR_SAMPLE;
	if (rec_format & PMUVIRT_SAMPLE_FMT_VALUES)
		ctl.counter[0].flags |= PMUVIRT_CTR_SAMPLE_VALUES;

	fd = pmuvirt_user_open(1);
	if (fd < 0) {
		perror("pmuvirt-record: " PMUVIRT_DEVICE);
		return 1;
	}
	if (probe(fd, &ctl, (uint32_t)pages, !strchr(events, ':')))
		return 1;
	f = fopen(outname, "wb");
	if (!f) {
		fprintf(stderr, "pmuvirt-record: %s: %s\n", outname, strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	if (pmuvirt_prof_write_header(&out, f))
		write_failed();
	write_info(events, &ctl, (uint32_t)pages, argv + optind);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	child = fork();
	if (child < 0) {
		perror("pmuvirt-record: fork");
		return 1;
	}
	if (!child) {
		struct pmuvirt_user u;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (pmuvirt_user_attach_records(&u, fd, &ctl, PMUVIRT_ATTACH_REPORT |
						PMUVIRT_ATTACH_INHERIT | PMUVIRT_ATTACH_SAMPLE_FILE,
						0, (uint32_t)pages, rec_format, rec_depth)) {
			perror("pmuvirt-record: attach");
			_exit(127);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "pmuvirt-record: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}

	tty = isatty(2);
	start = last_progress = now_s();
	for (;;) {
		double now;

		poll(NULL, 0, INTERVAL_MS);
		tick++;
		open_rings(fd);
		for (i = 0; i < nr_rings; i++)
			drain(&rings[i], tick);
		snapshot_maps(tick);
		refresh_names();
		eof = read_reports(fd);
		now = now_s();
		if (stop_signal && !child_done) {
			kill(child, stop_signal);	/* the command ends; we record to its end */
			stop_signal = 0;
		}
		if (!child_done && waitpid(child, &status, WNOHANG) == child) {
			child_done = 1;
			done_at = now;
		}
		if (child_done && (eof || now - done_at > REPORT_WAIT_S))
			break;
		if (!quiet && now - last_progress >= 1.0) {
			progress(tty, 0);
			last_progress = now;
		}
	}
	/* the last records: no thread writes any more (or the rest still run) */
	open_rings(fd);
	for (i = 0; i < nr_rings; i++)
		drain(&rings[i], tick + 1);
	snapshot_maps(tick + 1);	/* of the processes still there */
	eof = read_reports(fd) || eof;
	apply_reports();
	for (i = 0; i < nr_rings; i++)
		if (pmuvirt_prof_write_thread(&out, &rings[i].t))
			write_failed();
	memset(&end, 0, sizeof(end));
	end.samples = total_records;
	end.weight = total_weight;
	end.lost = lost_total();
	end.threads = nr_rings;
	end.status = status;
	end.rings_dropped = rings_dropped;
	if (!eof)
		end.flags |= PMUVIRT_PROF_END_INCOMPLETE;
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM))
		end.flags |= PMUVIRT_PROF_END_INTERRUPTED;
	if (pmuvirt_prof_write_end(&out, &end) || fclose(f)) {
		out.err = out.err ? out.err : errno;
		write_failed();
	}
	if (!quiet && tty)
		progress(tty, 1);
	fprintf(stderr, "pmuvirt-record: %s: %llu samples (weight %llu) from %u threads, %llu lost, "
		"%.1f KiB, %.1f s\n", outname, (unsigned long long)total_records,
		(unsigned long long)total_weight, nr_rings, (unsigned long long)end.lost,
		out.bytes / 1024.0, now_s() - start);
	if (!eof)
		fprintf(stderr, "pmuvirt-record: threads of the command still ran after %d s; "
			"their later samples are not in the file\n", REPORT_WAIT_S);
	if (rings_dropped)
		fprintf(stderr, "pmuvirt-record: %u threads' rings could not be handed over: "
			"their samples are missing\n", rings_dropped);
	close(fd);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
