// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-xenprof's files without Xen.  The symbols pmuvirt-report names
 * a session's addresses with (struct pmuvirt_symfile): this program's own
 * ELF file names its functions at their addresses (libdwfl); a System.map
 * gives text symbols only; damaged files are refused.  The drain: rings
 * filled by the library's writer (src/core/sample.c), some past full, come
 * out whole and in order as a profile file of a Xen session, every record
 * read or counted lost.  pmuvirt-report (argv[2]) on such a file with a
 * known profile gives the shares, domains, modes, symbols and lost count
 * it must; one with call chains the folded stacks, dump and pprof profile
 * (decoded here with protobuf-c, where --pprof is built) it must.
 * pmuvirt-xenprof (argv[1]) refuses a bad call-chain depth.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "pmuvirt_arch.h"
#include "drain.h"
#include "symbols.h"
#ifdef PMUVIRT_HAVE_PPROF
#include <zlib.h>
#include "profile.pb-c.h"
#endif

static const char *tool, *report_tool;

/* Functions whose addresses records name; their bodies only give them a size. */
__attribute__((noinline)) int hot_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int hot_b(int x)
{
	return x * 5 + 2;
}

__attribute__((noinline)) int xen_fn(int x)
{
	return x ^ 0x55;
}

static void test_symfile_elf(void **state)
{
	struct pmuvirt_syms *syms = pmuvirt_syms_new();
	struct pmuvirt_symfile *t;
	const char *s;

	(void)state;
	assert_int_equal(pmuvirt_symfile_open(syms, "/proc/self/exe", &t), 0);
	s = pmuvirt_symfile_find(t, (uint64_t)(uintptr_t)hot_a);
	assert_non_null(s);
	assert_string_equal(s, "hot_a");
	s = pmuvirt_symfile_find(t, (uint64_t)(uintptr_t)hot_b + 1);
	assert_non_null(s);
	assert_string_equal(s, "hot_b");
	assert_null(pmuvirt_symfile_find(t, 0x10));
	pmuvirt_symfile_free(t);
	pmuvirt_syms_free(syms);
}

static char *write_tmp(const char *text, size_t len)
{
	char *path = strdup("/tmp/pmuvirt-xenprof-test-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static const char map_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t kernel_fn\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 W weak_fn\n"
	"garbage line\n"
	"ffffffff81000400 T _etext\n";

static void test_symfile_map(void **state)
{
	struct pmuvirt_syms *syms = pmuvirt_syms_new();
	struct pmuvirt_symfile *t;
	char *path = write_tmp(map_text, sizeof(map_text) - 1);
	FILE *self;
	char buf[100], *cpath;

	(void)state;
	assert_int_equal(pmuvirt_symfile_open(syms, path, &t), 0);
	assert_string_equal(pmuvirt_symfile_find(t, 0xffffffff81000150ull), "kernel_fn");
	/* data symbols do not end a text symbol */
	assert_string_equal(pmuvirt_symfile_find(t, 0xffffffff81000250ull), "kernel_fn");
	assert_string_equal(pmuvirt_symfile_find(t, 0xffffffff81000300ull), "weak_fn");
	assert_null(pmuvirt_symfile_find(t, 0xffffffff80ffffffull));
	pmuvirt_symfile_free(t);
	unlink(path);
	free(path);

	/* no symbol line at all; hidden addresses; a missing file; an ELF file cut short */
	path = write_tmp("just text\n", 10);
	assert_int_equal(pmuvirt_symfile_open(syms, path, &t), -ENOEXEC);
	unlink(path);
	free(path);
	path = write_tmp("0000000000000000 T _stext\n", 26);
	assert_int_equal(pmuvirt_symfile_open(syms, path, &t), -EACCES);
	unlink(path);
	free(path);
	assert_int_equal(pmuvirt_symfile_open(syms, "/nonexistent/xen-syms", &t), -ENOENT);
	self = fopen("/proc/self/exe", "rb");
	assert_int_equal(fread(buf, 1, sizeof(buf), self), sizeof(buf));
	fclose(self);
	cpath = write_tmp(buf, sizeof(buf));
	assert_int_equal(pmuvirt_symfile_open(syms, cpath, &t), -ENOEXEC);
	unlink(cpath);
	free(cpath);
	/* a text file over the 64 MiB a symbol file may have */
	cpath = write_tmp("", 0);
	assert_int_equal(truncate(cpath, (64 << 20) + 1), 0);
	assert_int_equal(pmuvirt_symfile_open(syms, cpath, &t), -EFBIG);
	unlink(cpath);
	free(cpath);
	pmuvirt_syms_free(syms);
}

/* pmuvirt_read_fd(): a pipe to its end, an empty one, one over the bound */
static void test_read_fd(void **state)
{
	char *p;
	size_t len;
	int fd[2];

	(void)state;
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(write(fd[1], "0123456789", 10), 10);
	close(fd[1]);
	assert_int_equal(pmuvirt_read_fd(fd[0], 10, &p, &len), 0);
	assert_int_equal(len, 10);
	assert_memory_equal(p, "0123456789", 10);
	free(p);
	close(fd[0]);

	assert_int_equal(pipe(fd), 0);
	close(fd[1]);
	assert_int_equal(pmuvirt_read_fd(fd[0], 10, &p, &len), 0);
	assert_int_equal(len, 0);
	assert_non_null(p);
	free(p);
	close(fd[0]);

	assert_int_equal(pipe(fd), 0);
	assert_int_equal(write(fd[1], "0123456789x", 11), 11);
	close(fd[1]);
	assert_int_equal(pmuvirt_read_fd(fd[0], 10, &p, &len), -EFBIG);
	assert_null(p);
	assert_int_equal(len, 0);
	close(fd[0]);

	assert_int_equal(pmuvirt_read_fd(-1, 10, &p, &len), -EBADF);
	assert_null(p);
	assert_int_equal(len, 0);
}

/* Start @d's file on @f: a session of domains 0 and 1 (1 active). */
static void begin(struct xp_drain *d, FILE *f, uint32_t nr_counters)
{
	static const struct pmuvirt_prof_domain dom[2] = { { 0, 0 },
							   { 1, PMUVIRT_PROF_DOMAIN_ACTIVE } };
	struct pmuvirt_prof_info info;

	memset(&info, 0, sizeof(info));
	info.nr_counters = nr_counters;
	info.period = 1000;
	assert_int_equal(xp_file_begin(d, f, &info, dom, 2), 0);
}

/* What the parser hands over of a drained file. */
struct parsed {
	struct pmuvirt_prof_info info;
	struct pmuvirt_sample s[128];
	struct pmuvirt_prof_chunk c[128];
	unsigned int n, nr_dom, nr_ring;
	struct pmuvirt_prof_domain dom[4];
	struct pmuvirt_prof_ring ring[4];
	struct pmuvirt_prof_end end;
};

static int p_info(void *arg, const struct pmuvirt_prof_info *info)
{
	((struct parsed *)arg)->info = *info;
	return 0;
}

static int p_sample(void *arg, const struct pmuvirt_prof_chunk *c, const struct pmuvirt_sample *s,
		    const uint64_t *frames)
{
	struct parsed *p = arg;

	(void)frames;
	assert_true(p->n < 128);
	p->c[p->n] = *c;
	p->s[p->n++] = *s;
	return 0;
}

static int p_domain(void *arg, const struct pmuvirt_prof_domain *d)
{
	struct parsed *p = arg;

	assert_true(p->nr_dom < 4);
	p->dom[p->nr_dom++] = *d;
	return 0;
}

static int p_ring(void *arg, const struct pmuvirt_prof_ring *r)
{
	struct parsed *p = arg;

	assert_true(p->nr_ring < 4);
	p->ring[p->nr_ring++] = *r;
	return 0;
}

static int p_end(void *arg, const struct pmuvirt_prof_end *e)
{
	((struct parsed *)arg)->end = *e;
	return 0;
}

/* Parse the whole of @f into *@p. */
static void parse_file(FILE *f, struct parsed *p)
{
	static const struct pmuvirt_prof_ops ops = { .info = p_info, .sample = p_sample,
		.domain = p_domain, .ring = p_ring, .end = p_end };
	static char buf[1 << 16];
	struct pmuvirt_prof_error err;
	size_t len;

	memset(p, 0, sizeof(*p));
	fflush(f);
	rewind(f);
	len = fread(buf, 1, sizeof(buf), f);
	assert_true(len > 0 && len < sizeof(buf));
	assert_int_equal(pmuvirt_prof_parse(buf, len, 0, &ops, p, &err), 0);
}

#define PAGES	2
#define NR	32	/* records in a ring of 2 pages after its 128-byte header */

struct rings {
	char *mem;
	struct pmuvirt_sample_writer w[3];
	struct pmuvirt_xen_prof_ring desc[3];
};

static void rings_new_format(struct rings *g, uint32_t nr, const struct pmuvirt_sample_format *fmt)
{
	unsigned int i;

	g->mem = aligned_alloc(4096, 3 * PAGES * 4096);
	assert_non_null(g->mem);
	memset(g->mem, 0, 3 * PAGES * 4096);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pmuvirt_sample_init(&g->w[i], g->mem + i * PAGES * 4096,
						     PAGES * 4096, nr, 128, fmt), 0);
		g->desc[i] = (struct pmuvirt_xen_prof_ring){ .domain = i, .id = 0,
							     .frame = i * PAGES };
	}
}

static void rings_new(struct rings *g)
{
	rings_new_format(g, NR, NULL);
}

static void put(struct rings *g, unsigned int ring, uint32_t domain, uint16_t flags, uint64_t ip,
		uint32_t weight)
{
	struct pmuvirt_sample s;

	memset(&s, 0, sizeof(s));
	s.ip = ip;
	s.domain = domain;
	s.flags = flags;
	s.weight = weight;
	s.tid = ring;	/* a named domain's VCPU, an idle PCPU */
	s.time = g->w[ring].head;
	pmuvirt_sample_write(&g->w[ring], &s, NULL);
}

/* PROF_TAIL's part: the reader's tails go back to the rings. */
static void give_back(struct rings *g, const struct xp_drain *d)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		g->w[i].ring->tail = d->tails[i];
}

static void test_drain(void **state)
{
	static struct parsed p;
	struct xp_drain d;
	struct rings g;
	FILE *f = tmpfile();
	uint64_t i, n;
	long got;

	(void)state;
	rings_new(&g);
	assert_int_equal(xp_drain_init(&d, g.mem, g.desc, 3, PAGES, NR), 0);
	begin(&d, f, 1);
	/* ring 0: 20 records; ring 1: 50, 18 of them dropped; ring 2: none */
	for (i = 0; i < 20; i++)
		put(&g, 0, 0, 0, 0x1000 + i, 1);
	for (i = 0; i < 50; i++)
		put(&g, 1, 1, 0, 0x2000 + i, 1);
	got = xp_drain_all(&d);
	assert_int_equal(got, 20 + NR);
	assert_int_equal(d.tails[0], 20);
	assert_int_equal(d.tails[1], NR);
	assert_int_equal(d.tails[2], 0);
	give_back(&g, &d);
	/* room again: 10 more in ring 1 */
	for (i = 0; i < 10; i++)
		put(&g, 1, 1, 0, 0x3000 + i, 1);
	assert_int_equal(xp_drain_all(&d), 10);
	/* a reader-visible head past the ring: skipped, counted */
	g.w[2].ring->head = 5 * NR;
	assert_int_equal(xp_drain_all(&d), 0);
	assert_int_equal(d.ring[2].end.skipped, 5 * NR);
	assert_int_equal(xp_file_end(&d, 0, 0), 0);
	assert_int_equal(d.ring[1].end.lost, 18);
	assert_int_equal(d.ring[0].end.read + d.ring[1].end.read + d.ring[1].end.lost, 20 + 60);

	/*
	 * the file: INFO of a Xen session, its domains, the records in the
	 * order read (each chunk naming its ring and drain round), each
	 * ring's totals, END
	 */
	parse_file(f, &p);
	assert_int_equal(p.info.flags, PMUVIRT_PROF_INFO_XEN);
	assert_int_equal(p.info.sample_format, PMUVIRT_SAMPLE_FMT_DEFAULT);
	assert_int_equal(p.nr_dom, 2);
	assert_int_equal(p.dom[1].domain, 1);
	assert_int_equal(p.dom[1].flags, PMUVIRT_PROF_DOMAIN_ACTIVE);
	assert_int_equal(p.n, 20 + NR + 10);
	for (n = 0; n < 20 + NR + 10; n++) {
		if (n < 20)
			assert_int_equal(p.s[n].ip, 0x1000 + n);
		else if (n < 20 + NR)
			assert_int_equal(p.s[n].ip, 0x2000 + n - 20);
		else
			assert_int_equal(p.s[n].ip, 0x3000 + n - 20 - NR);
		assert_int_equal(p.c[n].tid, n < 20 ? 0 : 1);
		assert_int_equal(p.c[n].tick, n < 20 + NR ? 0 : 1);
		assert_int_equal(p.s[n].domain, n < 20 ? 0 : 1);
	}
	assert_int_equal(p.nr_ring, 3);
	assert_int_equal(p.ring[1].index, 1);
	assert_int_equal(p.ring[1].domain, 1);
	assert_int_equal(p.ring[1].nr_records, NR);
	assert_int_equal(p.ring[1].read, NR + 10);
	assert_int_equal(p.ring[1].lost, 18);
	assert_int_equal(p.ring[2].skipped, 5 * NR);
	assert_int_equal(p.end.samples, 20 + NR + 10);
	assert_int_equal(p.end.lost, 18);
	assert_int_equal(p.end.threads, 3);
	fclose(f);
	xp_drain_free(&d);

	/* a ring whose header does not check is refused */
	g.w[1].ring->record_size = 160;
	assert_int_equal(xp_drain_init(&d, g.mem, g.desc, 3, PAGES, NR), -1);
	free(g.mem);
}

/* A session of 32-byte records (--fields ip,mode): 128 to a ring, drained whole. */
static void test_drain_format(void **state)
{
	const struct pmuvirt_sample_format fmt = {
		PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_MODE, 0, 0 };
	static struct parsed p;
	struct xp_drain d;
	struct rings g;
	FILE *f = tmpfile();
	uint64_t i;

	(void)state;
	rings_new_format(&g, 128, &fmt);
	assert_int_equal(xp_drain_init(&d, g.mem, g.desc, 3, PAGES, 128), 0);
	begin(&d, f, 1);
	for (i = 0; i < 100; i++)
		put(&g, 1, 7, PMUVIRT_SAMPLE_USER, 0x5000 + i, 1);
	assert_int_equal(xp_drain_all(&d), 100);
	assert_int_equal(xp_file_end(&d, 0, 0), 0);
	parse_file(f, &p);
	assert_int_equal(p.info.sample_format, fmt.format);
	assert_int_equal(p.n, 100);
	for (i = 0; i < 100; i++) {
		assert_int_equal(p.s[i].ip, 0x5000 + i);
		assert_int_equal(p.s[i].domain, 7);
		assert_int_equal(p.s[i].flags, PMUVIRT_SAMPLE_USER);
		assert_int_equal(p.s[i].time, 0);	/* not in the format */
	}
	fclose(f);
	xp_drain_free(&d);
	free(g.mem);
}

/* Runs @cmd, which must succeed and print every line of @want. */
static void report_has(const char *cmd, const char *const *want, unsigned int n)
{
	char line[512];
	unsigned int i, found = 0;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(line, want[i]))
				found |= 1u << i;
		print_message("%s\n", line);
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(found, (1u << n) - 1);
}

/* Runs @cmd, which must succeed and print exactly the lines of @want, in order. */
static void report_lines(const char *cmd, const char *const *want, unsigned int n)
{
	char line[512];
	unsigned int i = 0;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		print_message("%s\n", line);
		if (i >= n || strcmp(line, want[i]))
			fail_msg("line %u: \"%s\", expected \"%s\"", i, line, i < n ? want[i] : "");
		i++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(i, n);
}

/*
 * A known profile: domain 0 user code 300 in hot_a, 100 in hot_b; domain 1
 * kernel 200 in kernel_fn (System.map); Xen 100 in xen_fn for domain 1 and
 * 200 for the idle PCPU; domain 5 unprofiled 100; 18 records lost.
 */
static void test_report(void **state)
{
	char cmd[1024], *map = write_tmp(map_text, sizeof(map_text) - 1);
	char data[] = "/tmp/pmuvirt-xenprof-data-XXXXXX";
	uint64_t a = (uint64_t)(uintptr_t)hot_a, b = (uint64_t)(uintptr_t)hot_b;
	uint64_t x = (uint64_t)(uintptr_t)xen_fn;
	int fd = mkstemp(data);
	struct xp_drain d;
	struct rings g;
	unsigned int i;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w+b");
	rings_new(&g);
	g.desc[2] = (struct pmuvirt_xen_prof_ring){ .domain = PMUVIRT_XEN_DOMID_IDLE, .id = 0,
						    .frame = 2 * PAGES,
						    .flags = PMUVIRT_XEN_PROF_RING_PCPU };
	assert_int_equal(xp_drain_init(&d, g.mem, g.desc, 3, PAGES, NR), 0);
	begin(&d, f, 1);
	for (i = 0; i < 4; i++) {
		/* weights add up: a record may stand for several periods */
		put(&g, 0, 0, PMUVIRT_SAMPLE_USER, a + 1, 25);
		put(&g, 0, 0, PMUVIRT_SAMPLE_USER, a + 2, 50);
		put(&g, 0, 0, PMUVIRT_SAMPLE_USER, b, 25);
		put(&g, 1, 1, 0, 0xffffffff81000180ull, 50);
		put(&g, 1, 1, PMUVIRT_SAMPLE_HYPERVISOR, x, 25);
		put(&g, 2, PMUVIRT_XEN_DOMID_IDLE, PMUVIRT_SAMPLE_HYPERVISOR, x + 1, 50);
		put(&g, 2, 5, PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP, 0, 25);
		assert_true(xp_drain_all(&d) > 0);
		give_back(&g, &d);
	}
	for (i = 0; i < NR + 18; i++)
		put(&g, 1, 1, 0, 0xffffffff81000180ull, 0);	/* weight 0: only the count */
	assert_int_equal(xp_drain_all(&d), NR);
	assert_int_equal(xp_file_end(&d, 0, 0), 0);
	fclose(f);
	xp_drain_free(&d);
	free(g.mem);

	snprintf(cmd, sizeof(cmd), "%s -i %s --xen-syms /proc/%d/exe --map 1=%s "
		 "--exe 0=/proc/%d/exe", report_tool, data, (int)getpid(), map, (int)getpid());
	{
		static const char *const want[] = {
			"# pmuvirt-report: Xen session, 60 records (weight 1000) from 3 rings of 32, 18 lost, 0 skipped",
			"# 100 without an IP (domains not profiled), 0 not resolved",
			"  d0              400   40.00%          0          0        400",
			"  d1              300   30.00%        100        200          0",
			"  d5              100   10.00%          0          0        100",
			"  idle            200   20.00%        200          0          0",
			"    30.00%        300 d0       user    hot_a",
			"    20.00%        200 d1       kernel  kernel_fn",
			"    20.00%        200 idle     xen     xen_fn",
			"    10.00%        100 d0       user    hot_b",
			"    10.00%        100 d1       xen     xen_fn",
			"    10.00%        100 d5       user    [not profiled]",
		};

		report_has(cmd, want, sizeof(want) / sizeof(want[0]));
	}
	/* per VCPU: a named domain's records by the VCPU they name; others as they were */
	strcat(cmd, " --vcpu");
	{
		static const char *const want[] = {
			"  d0v0            400   40.00%          0          0        400",
			"  d1v1            300   30.00%        100        200          0",
			"  d5              100   10.00%          0          0        100",
			"  idle            200   20.00%        200          0          0",
			"    20.00%        200 d1v1     kernel  kernel_fn",
			"    10.00%        100 d5       user    [not profiled]",
		};

		report_has(cmd, want, sizeof(want) / sizeof(want[0]));
	}

	/* a damaged file is refused; --force reads it up to the damage */
	assert_int_equal(truncate(data, 600), 0);
	snprintf(cmd, sizeof(cmd), "%s -i %s >/dev/null 2>&1", report_tool, data);
	assert_int_not_equal(system(cmd), 0);
	/* the options of a Xen session are refused for a per-thread recording */
	snprintf(cmd, sizeof(cmd), "%s -i %s --vcpu >/dev/null 2>&1", report_tool, data);
	assert_int_not_equal(system(cmd), 0);
	unlink(data);
	unlink(map);
	free(map);
}

/* A record with call chain @frames (@nk kernel frames, then @nu user frames). */
static void put_chain(struct rings *g, unsigned int ring, uint32_t domain, uint16_t flags,
		      uint64_t ip, uint32_t weight, unsigned int nk, unsigned int nu,
		      const uint64_t *frames)
{
	struct pmuvirt_sample_chain c;
	struct pmuvirt_sample s;

	memset(&s, 0, sizeof(s));
	s.ip = ip;
	s.domain = domain;
	s.flags = flags;
	s.weight = weight;
	s.tid = ring;
	s.nr_kernel = (uint16_t)nk;
	s.nr_user = (uint16_t)nu;
	if (nk + nu)
		memcpy(c.frame, frames, (nk + nu) * sizeof(frames[0]));
	assert_int_equal(pmuvirt_sample_write(&g->w[ring], &s, &c), 0);
}

#ifdef PMUVIRT_HAVE_PPROF
/* The gzipped Profile at @path, unpacked. */
static Perftools__Profiles__Profile *pprof_read(const char *path)
{
	static unsigned char gz[1 << 16], raw[1 << 18];
	Perftools__Profiles__Profile *prof;
	FILE *f = fopen(path, "rb");
	z_stream z;
	size_t n;

	assert_non_null(f);
	n = fread(gz, 1, sizeof(gz), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(gz));
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)n;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	n = sizeof(raw) - z.avail_out;
	inflateEnd(&z);
	prof = perftools__profiles__profile__unpack(NULL, n, raw);
	assert_non_null(prof);
	return prof;
}

static const char *pb_str(const Perftools__Profiles__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "?";
}

/* The function of location @id. */
static const char *pb_function(const Perftools__Profiles__Profile *p, uint64_t id)
{
	size_t i, k;

	for (i = 0; i < p->n_location; i++) {
		if (p->location[i]->id != id || !p->location[i]->n_line)
			continue;
		for (k = 0; k < p->n_function; k++)
			if (p->function[k]->id == p->location[i]->line[0]->function_id)
				return pb_str(p, p->function[k]->name);
	}
	return "?";
}

/* Sample @s's label "thread". */
static const char *pb_thread(const Perftools__Profiles__Profile *p,
			     const Perftools__Profiles__Sample *s)
{
	size_t i;

	for (i = 0; i < s->n_label; i++)
		if (!strcmp(pb_str(p, s->label[i]->key), "thread"))
			return pb_str(p, s->label[i]->str);
	return "?";
}

/*
 * The session of test_report_chains() as pprof reads it: records and
 * events (weight times the period, 1000) per domain and VCPU (labels
 * "thread"), and the kernel records' stack, leaf first.
 */
static void check_pprof(const char *path)
{
	Perftools__Profiles__Profile *p = pprof_read(path);
	int64_t rec[5] = { 0 }, ev[5] = { 0 };
	static const char *const who[5] = { "d0v0", "d1v1", "d1v2", "d5", "?" };
	unsigned int i, k, stacks = 0;
	int64_t kev = 0;

	assert_int_equal(p->n_sample_type, 2);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		for (k = 0; k < 4 && strcmp(pb_thread(p, s), who[k]); k++)
			;
		assert_int_equal(s->n_value, 2);
		rec[k] += s->value[0];
		ev[k] += s->value[1];
		if (!strcmp(pb_function(p, s->location_id[0]), "kernel_fn")) {
			assert_int_equal(s->n_location_id, 3);
			assert_string_equal(pb_function(p, s->location_id[1]), "weak_fn");
			assert_string_equal(pb_function(p, s->location_id[2]), "_stext");
			kev += s->value[1];
			stacks++;
		}
	}
	/* the two kernel records: two IPs in one function, one caller chain */
	assert_int_equal(stacks, 2);
	assert_int_equal(kev, 7000);
	assert_int_equal(rec[0], 2);
	assert_int_equal(ev[0], 11000);
	assert_int_equal(rec[1], 2);
	assert_int_equal(ev[1], 7000);
	assert_int_equal(rec[2], 1);	/* Xen's, on VCPU 2 */
	assert_int_equal(ev[2], 7000);
	assert_int_equal(rec[3], 1);	/* a domain not profiled: its VCPU unknown */
	assert_int_equal(ev[3], 8000);
	assert_int_equal(rec[4], 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
}
#endif

/*
 * Rings with call chains (8 frame slots): the file is version 2, each
 * record followed by its frames; the folded stacks and the dump name the
 * frames with the flat report's symbols, outermost first and innermost
 * first; the flat report reads the file as before; a file of a version the
 * tool does not know is refused.
 */
static void test_report_chains(void **state)
{
	const struct pmuvirt_sample_format fmt = {
		PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_TIME | PMUVIRT_SAMPLE_FMT_MODE |
		PMUVIRT_SAMPLE_FMT_CHAIN, 0, 8 };
	char cmd[1024], *map = write_tmp(map_text, sizeof(map_text) - 1);
	char data[] = "/tmp/pmuvirt-xenprof-data-XXXXXX";
	uint64_t a = (uint64_t)(uintptr_t)hot_a, b = (uint64_t)(uintptr_t)hot_b;
	uint64_t x = (uint64_t)(uintptr_t)xen_fn;
	const uint64_t kframes[] = { 0xffffffff81000310ull, 0xffffffff81000010ull };
	const uint64_t uframes[] = { a + 5, 0x10 };
	int fd = mkstemp(data);
	static struct parsed p;
	struct xp_drain d;
	struct rings g;
	uint8_t word[4];
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w+b");
	rings_new_format(&g, 16, &fmt);
	assert_int_equal(xp_drain_init(&d, g.mem, g.desc, 3, PAGES, 16), 0);
	assert_int_equal(d.chain_depth, 8);
	begin(&d, f, 1);
	/* domain 1's kernel: kernel_fn called from weak_fn called from _stext, twice */
	put_chain(&g, 1, 1, 0, 0xffffffff81000180ull, 3, 2, 0, kframes);
	put_chain(&g, 1, 1, 0, 0xffffffff81000190ull, 4, 2, 0, kframes);
	/* domain 0's user code: hot_b called from hot_a; hot_a from an unknown caller */
	put_chain(&g, 0, 0, PMUVIRT_SAMPLE_USER, b, 5, 0, 1, uframes);
	put_chain(&g, 0, 0, PMUVIRT_SAMPLE_USER, a, 6, 0, 1, uframes + 1);
	/* no frames: Xen's, and a domain not named */
	put_chain(&g, 2, 1, PMUVIRT_SAMPLE_HYPERVISOR, x, 7, 0, 0, NULL);
	put_chain(&g, 2, 5, PMUVIRT_SAMPLE_USER | PMUVIRT_SAMPLE_NO_IP, 0, 8, 0, 0, NULL);
	assert_int_equal(xp_drain_all(&d), 6);
	assert_int_equal(xp_file_end(&d, 0, 0), 0);
	/* INFO says how deep the chains are; the records carry their frame counts */
	parse_file(f, &p);
	assert_int_equal(p.info.chain_depth, 8);
	assert_true(p.info.sample_format & PMUVIRT_SAMPLE_FMT_CHAIN);
	assert_int_equal(p.s[0].ip, b);
	assert_int_equal(p.s[0].nr_user, 1);
	fclose(f);
	xp_drain_free(&d);
	free(g.mem);

	snprintf(cmd, sizeof(cmd), "%s -i %s --xen-syms /proc/%d/exe --map 1=%s "
		 "--exe 0=/proc/%d/exe --folded", report_tool, data, (int)getpid(), map, (int)getpid());
	{
		static const char *const want[] = {
			"d0;[unknown];hot_a 6",
			"d0;hot_a;hot_b 5",
			"d1;_stext_[k];weak_fn_[k];kernel_fn_[k] 7",
			"d1;xen_fn_[k] 7",
			"d5;[not profiled] 8",
		};

		report_lines(cmd, want, sizeof(want) / sizeof(want[0]));
	}
	snprintf(cmd, sizeof(cmd), "%s -i %s --map 1=%s --dump", report_tool, data, map);
	{
		static const char *const want[] = {
			"d1 vcpu 1 cpu 0 time 0 ip 0xffffffff81000180 [k] kernel_fn_[k] weight 3 "
			"counter 0 chain 0xffffffff81000310 weak_fn_[k] 0xffffffff81000010 _stext_[k]",
		};

		report_has(cmd, want, 1);
	}
	/* the flat profile of the same file */
	snprintf(cmd, sizeof(cmd), "%s -i %s --map 1=%s", report_tool, data, map);
	{
		static const char *const want[] = {
			"# pmuvirt-report: Xen session, 6 records (weight 33) from 3 rings of 16, 0 lost, 0 skipped",
			"  d1               14   42.42%          7          7          0",
		};

		report_has(cmd, want, 2);
	}
#ifdef PMUVIRT_HAVE_PPROF
	/* pprof's profile of the same file: threads are domains and VCPUs */
	snprintf(cmd, sizeof(cmd), "%s -i %s --xen-syms /proc/%d/exe --map 1=%s --exe 0=/proc/%d/exe "
		 "--pprof %s.pb.gz 2>/dev/null", report_tool, data, (int)getpid(), map,
		 (int)getpid(), data);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s.pb.gz", data);
	check_pprof(cmd);
	unlink(cmd);
#endif
	/*
	 * a version the reader does not know (4), and a chain longer than the
	 * file's depth (INFO's chain depth, at byte 76, made 1)
	 */
	f = fopen(data, "r+b");
	assert_non_null(f);
	word[0] = 4;
	word[1] = word[2] = word[3] = 0;
	assert_int_equal(fseek(f, 8, SEEK_SET), 0);
	assert_int_equal(fwrite(word, 1, 4, f), 4);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -i %s 2>&1 | grep -q 'version not 2 to 3'", report_tool,
		 data);
	assert_int_equal(system(cmd), 0);
	f = fopen(data, "r+b");
	word[0] = 3;
	assert_int_equal(fseek(f, 8, SEEK_SET), 0);
	assert_int_equal(fwrite(word, 1, 4, f), 4);
	word[0] = 1;
	assert_int_equal(fseek(f, 76, SEEK_SET), 0);
	assert_int_equal(fwrite(word, 1, 4, f), 4);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -i %s 2>&1 | grep -q \"more frames than INFO's chain depth\"",
		 report_tool, data);
	assert_int_equal(system(cmd), 0);
	unlink(data);
	unlink(map);
	free(map);
}


/* A call-chain depth out of range is refused before anything is asked of Xen. */
static void test_record_depth(void **state)
{
	static const char *const bad[] = { "-g 0", "-g 128", "-g 12x" };
	char cmd[512];
	unsigned int i;
	int st;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s record %s -- true >/dev/null 2>&1", tool, bad[i]);
		st = system(cmd);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 2);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symfile_elf),
		cmocka_unit_test(test_symfile_map),
		cmocka_unit_test(test_read_fd),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_drain_format),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_chains),
		cmocka_unit_test(test_record_depth),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_xenprof_tool PATH-OF-pmuvirt-xenprof PATH-OF-pmuvirt-report\n");
		return 2;
	}
	tool = argv[1];
	report_tool = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
