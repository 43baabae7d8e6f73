// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-report's parts: the maps parser, the kernel symbol table, the
 * ELF lookup through libdwfl on the test ELF (a PIE and a
 * position-dependent build, each with a shared library, resolved after
 * the process has exited from the maps it printed), and the report's
 * output for a profile with known samples: the per-thread shares, the
 * folded lines, the maps snapshot valid at each drain round; for one with
 * call chains, the frames' functions, the folded stacks and the dump.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "report.h"
#ifdef PMUVIRT_HAVE_PPROF
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "pprof.h"
#endif

static void test_maps_parse(void **state)
{
	static const char text[] =
		"7f0000002000-7f0000003000 r-xp 00002000 fd:01 77 /lib/with space/libz.so.1 (deleted)\n"
		"not a line\n"
		"55d0c0a01000-55d0c0a02000 r-xp 00001000 fd:01 1234 /usr/bin/prog\n"
		"55d0c0a00000-55d0c0a01000 r--p 00000000 fd:01 1234 /usr/bin/prog\n"
		"55d0c0a00800-55d0c0a00900 r--p 00000000 fd:01 1234 /usr/bin/overlap\n"
		"7ffd00000000-7ffd00001000 r-xp 00000000 00:00 0                  [vdso]\n"
		"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
		"7f0000005000-7f0000004000 r-xp 00000000 00:00 0 backwards\n"
		"7f0000006000-7f0000007000 r-xp 00000000 fd:01 5 /no/newline";
	struct pmuvirt_maps m;
	const struct pmuvirt_map *x;

	(void)state;
	assert_int_equal(pmuvirt_maps_parse(text, sizeof(text) - 1, &m), 0);
	assert_int_equal(m.nr, 6);
	assert_int_equal(m.bad_lines, 3);	/* garbage, backwards, the overlap */
	x = pmuvirt_maps_find(&m, 0x55d0c0a01000ull);
	assert_non_null(x);
	assert_string_equal(x->path, "/usr/bin/prog");
	assert_true(x->exec && x->pgoff == 0x1000);
	x = pmuvirt_maps_find(&m, 0x55d0c0a00fffull);
	assert_non_null(x);
	assert_false(x->exec);
	assert_null(pmuvirt_maps_find(&m, 0x55d0c0a02000ull));
	assert_null(pmuvirt_maps_find(&m, 0x1000));
	x = pmuvirt_maps_find(&m, 0x7f0000002abcull);
	assert_non_null(x);
	assert_string_equal(x->path, "/lib/with space/libz.so.1");
	assert_string_equal(pmuvirt_maps_find(&m, 0x7ffd00000010ull)->path, "[vdso]");
	assert_string_equal(pmuvirt_maps_find(&m, 0x7f0000000010ull)->path, "");
	assert_string_equal(pmuvirt_maps_find(&m, 0x7f0000006ff0ull)->path, "/no/newline");
	pmuvirt_maps_free(&m);
}

static void test_ksyms(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t helper\n"
		"ffffffff82000000 D some_data\n"
		"ffffffffc0200000 t mod_fn\t[pmuvirt]\n"
		"ffffffff81000080 W weak_fn\n"
		"junk\n"
		"1ffffffff81000000 T seventeen_digits\n"
		"ffffffff81000000  T two_spaces\n"
		"ffffffffc0300000 t bad_mod\t[unterminated\n";
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t helper\n";
	struct pmuvirt_ksyms k;
	const struct pmuvirt_ksym *s;

	(void)state;
	assert_int_equal(pmuvirt_ksyms_parse(text, sizeof(text) - 1, &k), 0);
	assert_int_equal(k.nr, 4);
	assert_int_equal(k.bad_lines, 4);
	assert_null(pmuvirt_ksyms_find(&k, 0xffffffff80ffffffull));
	assert_string_equal(pmuvirt_ksyms_find(&k, 0xffffffff81000000ull)->name, "_stext");
	assert_string_equal(pmuvirt_ksyms_find(&k, 0xffffffff8100007full)->name, "_stext");
	assert_string_equal(pmuvirt_ksyms_find(&k, 0xffffffff81000080ull)->name, "weak_fn");
	s = pmuvirt_ksyms_find(&k, 0xffffffff810001ffull);
	assert_string_equal(s->name, "helper");
	assert_null(s->module);
	s = pmuvirt_ksyms_find(&k, 0xffffffffc0200010ull);
	assert_string_equal(s->name, "mod_fn");
	assert_string_equal(s->module, "pmuvirt");
	pmuvirt_ksyms_free(&k);
	assert_int_equal(pmuvirt_ksyms_parse(hidden, sizeof(hidden) - 1, &k), -EACCES);
	assert_int_equal(k.nr, 0);
}

/* What the test ELF printed: its functions' addresses and its maps. */
struct run {
	unsigned int nr;
	unsigned long long addr[16];
	char name[16][32];
	char *maps;
	size_t maps_len;
};

static void run_testelf(const char *path, struct run *r)
{
	char line[4096];
	FILE *p = popen(path, "r");
	FILE *m;

	memset(r, 0, sizeof(*r));
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) && strcmp(line, "maps\n")) {
		assert_true(r->nr < 16);
		assert_int_equal(sscanf(line, "%llx %31s", &r->addr[r->nr], r->name[r->nr]), 2);
		r->nr++;
	}
	m = open_memstream(&r->maps, &r->maps_len);
	assert_non_null(m);
	while (fgets(line, sizeof(line), p))
		fputs(line, m);
	fclose(m);
	assert_int_equal(pclose(p), 0);
	assert_int_equal(r->nr, 8);
}

/* Every address the process printed resolves to its function, after the process is gone. */
static void resolve_run(const char *path)
{
	struct pmuvirt_syms *s = pmuvirt_syms_new();
	struct pmuvirt_maps m;
	struct run r;
	unsigned int i;

	run_testelf(path, &r);
	assert_non_null(s);
	assert_int_equal(pmuvirt_maps_parse(r.maps, r.maps_len, &m), 0);
	assert_int_equal(m.bad_lines, 0);
	for (i = 0; i < r.nr; i++) {
		struct pmuvirt_map *map = (struct pmuvirt_map *)pmuvirt_maps_find(&m, r.addr[i]);
		const char *name = NULL;
		uint64_t off = 99;

		assert_non_null(map);
		assert_true(map->exec);
		assert_int_equal(pmuvirt_syms_user(s, map, r.addr[i], &name, &off), 0);
		assert_string_equal(name, r.name[i]);
		assert_int_equal(off, i & 1);	/* the function, then one byte into it */
		if (!strncmp(r.name[i], "prof_lib", 8))
			assert_non_null(strstr(map->path, "libprofile_testlib.so"));
		else
			assert_string_equal(map->path, path);
	}
	pmuvirt_maps_free(&m);
	pmuvirt_syms_free(s);
	free(r.maps);
}

static void test_elf_pie(void **state)
{
	(void)state;
	resolve_run(TESTELF_PIE);
}

static void test_elf_nopie(void **state)
{
	(void)state;
	resolve_run(TESTELF_NOPIE);
}

/* A file that is no ELF, or gone: no name, and the reason. */
static void test_elf_bad(void **state)
{
	struct pmuvirt_syms *s = pmuvirt_syms_new();
	struct pmuvirt_map map = { 0x1000, 0x2000, 0, 1, NULL, NULL };
	const char *name;
	uint64_t off;

	(void)state;
	map.path = "/proc/self/status";
	assert_int_equal(pmuvirt_syms_user(s, &map, 0x1000, &name, &off), -ENOEXEC);
	map.dso = NULL;
	map.path = "/nonexistent/lib.so";
	assert_int_equal(pmuvirt_syms_user(s, &map, 0x1000, &name, &off), -ENOENT);
	map.dso = NULL;
	map.path = "/dev/null";
	assert_int_equal(pmuvirt_syms_user(s, &map, 0x1000, &name, &off), -ENOEXEC);
	map.dso = NULL;
	map.path = "[vdso]";
	assert_int_equal(pmuvirt_syms_user(s, &map, 0x1000, &name, &off), -ENOENT);
	pmuvirt_syms_free(s);
}

/* ---- the report of a profile with known samples ---- */

static void sample_at(struct pmuvirt_sample *s, uint64_t ip, uint32_t tid, int user,
		      uint32_t weight)
{
	memset(s, 0, sizeof(*s));
	s->ip = ip;
	s->tid = tid;
	s->flags = user ? PMUVIRT_SAMPLE_USER : 0;
	s->weight = weight;
}

static char *report_text(const void *buf, size_t len, const struct pmuvirt_ksyms *k,
			 void (*print)(const struct pmuvirt_profile *, FILE *))
{
	struct pmuvirt_prof_error err;
	struct pmuvirt_profile *p;
	char *out = NULL;
	size_t n = 0;
	FILE *f;
	int ret;

	p = pmuvirt_profile_load(buf, len, 0, &err, &ret);
	assert_non_null(p);
	assert_int_equal(pmuvirt_profile_resolve(p, k, 0), 0);
	f = open_memstream(&out, &n);
	assert_non_null(f);
	print(p, f);
	fclose(f);
	pmuvirt_profile_free(p);
	return out;
}

static uint64_t addr_of(const struct run *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->name[i], name))
			return r->addr[i];
	fail_msg("no %s", name);
	return 0;
}

static void test_report(void **state)
{
	static const char kallsyms[] =
		"ffffffff81000000 T _stext\nffffffff81000100 t do_syscall_64\n";
	struct pmuvirt_prof_chunk ca = { 200, 201, 1 }, cb = { 200, 202, 1 }, ca5 = { 200, 201, 5 };
	struct pmuvirt_prof_thread ta = { .tid = 201, .pid = 200, .flags = 1, .comm = "worker;a" };
	struct pmuvirt_prof_thread tb = { .tid = 202, .pid = 200, .flags = 1, .comm = "worker-b" };
	struct pmuvirt_prof_end end = { .samples = 13, .threads = 2 };
	struct pmuvirt_prof_info info;
	struct pmuvirt_sample s[16];
	struct pmuvirt_ksyms k;
	struct run pie, nopie;
	char *buf = NULL, *out;
	size_t len = 0;
	unsigned int i;
	struct pmuvirt_prof_writer w;
	FILE *f;

	(void)state;
	run_testelf(TESTELF_PIE, &pie);
	run_testelf(TESTELF_NOPIE, &nopie);
	assert_int_equal(pmuvirt_ksyms_parse(kallsyms, sizeof(kallsyms) - 1, &k), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pmuvirt_prof_write_header(&w, f), 0);
	memset(&info, 0, sizeof(info));
	info.period = 1000;
	strcpy(info.events, "instructions");
	strcpy(info.command, "testelf");
	assert_int_equal(pmuvirt_prof_write_info(&w, &info), 0);
	/* round 1: the PIE's maps; round 5: the position-dependent build's (an exec) */
	assert_int_equal(pmuvirt_prof_write_maps(&w, 200, 1, pie.maps, pie.maps_len), 0);
	assert_int_equal(pmuvirt_prof_write_maps(&w, 200, 5, nopie.maps, nopie.maps_len), 0);
	/* thread a: 6 in prof_exe_a, 2 in prof_lib_x, weight 1 each: 75% and 25% */
	for (i = 0; i < 6; i++)
		sample_at(&s[i], addr_of(&pie, "prof_exe_a") + (i & 1), 201, 1, 1);
	sample_at(&s[6], addr_of(&pie, "prof_lib_x"), 201, 1, 1);
	sample_at(&s[7], addr_of(&pie, "prof_lib_x") + 1, 201, 1, 1);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &ca, s, NULL, 8), 0);
	/* thread b: one of weight 3 in prof_lib_y, one in the kernel, one outside every mapping */
	sample_at(&s[0], addr_of(&pie, "prof_lib_y"), 202, 1, 3);
	sample_at(&s[1], 0xffffffff81000123ull, 202, 0, 1);
	sample_at(&s[2], 0x10, 202, 1, 1);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &cb, s, NULL, 3), 0);
	/* thread a after the exec: the other build's addresses, named by the later snapshot */
	sample_at(&s[0], addr_of(&nopie, "prof_exe_static_b"), 201, 1, 2);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &ca5, s, NULL, 1), 0);
	assert_int_equal(pmuvirt_prof_write_thread(&w, &ta), 0);
	assert_int_equal(pmuvirt_prof_write_thread(&w, &tb), 0);
	assert_int_equal(pmuvirt_prof_write_end(&w, &end), 0);
	fclose(f);

	out = report_text(buf, len, &k, pmuvirt_profile_print_flat);
	assert_non_null(strstr(out, "# 12 samples (weight 15), 2 threads, 0 lost\n"));
	assert_non_null(strstr(out, "# thread worker;a tid 201 pid 200: 9 samples (weight 10), 0 lost\n"));
	assert_non_null(strstr(out, "    60.00%         6  [.] prof_exe_a "));
	assert_non_null(strstr(out, "    20.00%         2  [.] prof_lib_x "));
	assert_non_null(strstr(out, "    20.00%         1  [.] prof_exe_static_b "));
	assert_non_null(strstr(out, "# thread worker-b tid 202 pid 200: 3 samples (weight 5), 0 lost\n"));
	assert_non_null(strstr(out, "    60.00%         1  [.] prof_lib_y "));
	assert_non_null(strstr(out, "    20.00%         1  [k] do_syscall_64 "));
	assert_non_null(strstr(out, "    20.00%         1  [.] [unknown] "));
	assert_non_null(strstr(out, " libprofile_testlib.so\n"));
	assert_non_null(strstr(out, " [kernel.kallsyms]\n"));
	/* thread a's functions only in thread a's part */
	assert_true(strstr(out, "prof_lib_y") > strstr(out, "# thread worker-b"));
	assert_true(strstr(out, "prof_exe_a") < strstr(out, "# thread worker-b"));
	free(out);

	out = report_text(buf, len, &k, pmuvirt_profile_print_folded);
	assert_string_equal(out,
			    "worker-b;[unknown] 1\n"
			    "worker-b;do_syscall_64_[k] 1\n"
			    "worker-b;prof_lib_y 3\n"
			    "worker:a;prof_exe_a 6\n"
			    "worker:a;prof_exe_static_b 2\n"
			    "worker:a;prof_lib_x 2\n");
	free(out);

	out = report_text(buf, len, NULL, pmuvirt_profile_print_dump);
	assert_non_null(strstr(out, "worker-b 202/200 cpu 0 time 0 ip 0xffffffff81000123 [k] [unknown] [kernel] weight 1 counter 0\n"));
	free(out);
	pmuvirt_ksyms_free(&k);
	free(buf);
	free(pie.maps);
	free(nopie.maps);
}

/* ---- call chains ---- */

static const char chain_kallsyms[] =
	"ffffffff81000000 T _stext\nffffffff81000100 t do_syscall_64\n";

/*
 * A profile with call chains in the test ELF's PIE, two threads named
 * "chain": prof_lib_x called from prof_exe_a (3 records, over both
 * threads) and from prof_exe_static_b (1), both called from prof_lib_y;
 * prof_lib_x from prof_exe_a from an address outside every mapping (1);
 * a kernel record (do_syscall_64 called from _stext, entered from
 * prof_lib_y's first byte, called from prof_exe_a); prof_exe_a without
 * frames (2, weight 1 each).  Frames are return addresses: a function's
 * address plus 1 names it.
 */
static void write_chain_fixture(const struct run *pie, char **buf, size_t *len)
{
	struct pmuvirt_prof_chunk ca = { 500, 501, 1 }, cb = { 500, 502, 1 };
	struct pmuvirt_prof_thread ta = { .tid = 501, .pid = 500, .flags = 1, .comm = "chain" };
	struct pmuvirt_prof_thread tb = { .tid = 502, .pid = 500, .flags = 1, .comm = "chain" };
	struct pmuvirt_prof_end end = { .samples = 9, .threads = 2 };
	uint64_t x = addr_of(pie, "prof_lib_x"), y = addr_of(pie, "prof_lib_y");
	uint64_t a = addr_of(pie, "prof_exe_a"), b = addr_of(pie, "prof_exe_static_b");
	struct pmuvirt_sample_chain ch[8];
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_writer w;
	struct pmuvirt_sample s[8];
	FILE *f = open_memstream(buf, len);

	assert_non_null(f);
	memset(ch, 0, sizeof(ch));
	assert_int_equal(pmuvirt_prof_write_header(&w, f), 0);
	memset(&info, 0, sizeof(info));
	info.period = 1000;
	info.sample_format = PMUVIRT_SAMPLE_FMT_DEFAULT | PMUVIRT_SAMPLE_FMT_CHAIN;
	info.chain_depth = 8;
	strcpy(info.events, "cycles");
	strcpy(info.command, "testelf");
	assert_int_equal(pmuvirt_prof_write_info(&w, &info), 0);
	assert_int_equal(pmuvirt_prof_write_maps(&w, 500, 1, pie->maps, pie->maps_len), 0);
	/* thread 501 */
	sample_at(&s[0], x, 501, 1, 1);
	s[0].nr_user = 2;
	ch[0].frame[0] = a + 1;
	ch[0].frame[1] = y + 1;
	sample_at(&s[1], x + 1, 501, 1, 1);
	s[1].nr_user = 2;
	ch[1] = ch[0];
	sample_at(&s[2], x, 501, 1, 1);
	s[2].nr_user = 2;
	ch[2].frame[0] = b + 1;
	ch[2].frame[1] = y + 1;
	sample_at(&s[3], x, 501, 1, 1);
	s[3].nr_user = 2;
	ch[3].frame[0] = a + 1;
	ch[3].frame[1] = 0x10;
	sample_at(&s[4], 0xffffffff81000123ull, 501, 0, 1);
	s[4].nr_kernel = 1;
	s[4].nr_user = 2;
	ch[4].frame[0] = 0xffffffff81000100ull;	/* returns to do_syscall_64's start: _stext called */
	ch[4].frame[1] = y;			/* entered the kernel at prof_lib_y's first byte */
	ch[4].frame[2] = a + 1;
	sample_at(&s[5], a, 501, 1, 1);
	sample_at(&s[6], a + 1, 501, 1, 1);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &ca, s, ch, 7), 0);
	/* thread 502: one more of prof_lib_x from prof_exe_a */
	assert_int_equal(pmuvirt_prof_write_samples(&w, &cb, s, ch, 1), 0);
	assert_int_equal(pmuvirt_prof_write_thread(&w, &ta), 0);
	assert_int_equal(pmuvirt_prof_write_thread(&w, &tb), 0);
	assert_int_equal(pmuvirt_prof_write_end(&w, &end), 0);
	fclose(f);
}

static const char *frame_name(const struct pmuvirt_profile *p, uint64_t i, unsigned int k,
			      struct pmuvirt_profile_sample *fr)
{
	const char *dso;
	int kernel;

	pmuvirt_profile_frame(p, i, k, fr);
	return pmuvirt_profile_function(p, fr->function, &dso, &kernel);
}

/* One user record in prof_lib_x whose one frame is @ret, loaded and resolved. */
static struct pmuvirt_profile *one_frame_profile(const struct run *pie, uint64_t ret)
{
	struct pmuvirt_prof_chunk c = { 600, 601, 1 };
	struct pmuvirt_prof_end end = { .samples = 1 };
	struct pmuvirt_sample_chain ch = { { ret } };
	struct pmuvirt_prof_error err;
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_writer w;
	struct pmuvirt_profile *p;
	struct pmuvirt_sample s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	assert_non_null(f);
	memset(&info, 0, sizeof(info));
	info.sample_format = PMUVIRT_SAMPLE_FMT_CHAIN;
	info.chain_depth = 1;
	sample_at(&s, addr_of(pie, "prof_lib_x"), 601, 1, 1);
	s.nr_user = 1;
	assert_int_equal(pmuvirt_prof_write_header(&w, f), 0);
	assert_int_equal(pmuvirt_prof_write_info(&w, &info), 0);
	assert_int_equal(pmuvirt_prof_write_maps(&w, 600, 1, pie->maps, pie->maps_len), 0);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &c, &s, &ch, 1), 0);
	assert_int_equal(pmuvirt_prof_write_end(&w, &end), 0);
	fclose(f);
	p = pmuvirt_profile_load(buf, len, 0, &err, &r);
	assert_non_null(p);
	free(buf);
	assert_int_equal(pmuvirt_profile_resolve(p, NULL, 0), 0);
	return p;
}

static void test_chain_report(void **state)
{
	struct pmuvirt_profile_sample s, fr;
	struct pmuvirt_prof_error err;
	struct pmuvirt_profile *p;
	struct pmuvirt_ksyms k;
	char *buf = NULL, *out;
	size_t len = 0;
	uint64_t weight;
	struct run pie;
	int ret;

	(void)state;
	run_testelf(TESTELF_PIE, &pie);
	assert_int_equal(pmuvirt_ksyms_parse(chain_kallsyms, sizeof(chain_kallsyms) - 1, &k), 0);
	write_chain_fixture(&pie, &buf, &len);

	/* each frame: its return address, its function, its mode and mapping */
	p = pmuvirt_profile_load(buf, len, 0, &err, &ret);
	assert_non_null(p);
	assert_int_equal(pmuvirt_profile_resolve(p, &k, 0), 0);
	assert_int_equal(pmuvirt_profile_samples(p, &weight), 8);
	pmuvirt_profile_sample(p, 0, &s);
	assert_int_equal(s.nr_frames, 2);
	assert_string_equal(frame_name(p, 0, 0, &fr), "prof_exe_a");
	assert_true(fr.ip == addr_of(&pie, "prof_exe_a") + 1);
	assert_false(fr.kernel);
	assert_int_equal(fr.thread, s.thread);
	assert_int_equal(fr.weight, 1);
	assert_int_equal(fr.nr_frames, 0);
	assert_non_null(fr.map);
	assert_string_equal(fr.map->path, TESTELF_PIE);
	assert_string_equal(frame_name(p, 0, 1, &fr), "prof_lib_y");
	assert_non_null(strstr(fr.map->path, "libprofile_testlib.so"));
	assert_string_equal(frame_name(p, 3, 1, &fr), "[unknown]");
	assert_null(fr.map);
	pmuvirt_profile_sample(p, 4, &s);
	assert_true(s.kernel);
	assert_int_equal(s.nr_frames, 3);
	assert_string_equal(frame_name(p, 4, 0, &fr), "_stext");
	assert_true(fr.kernel);
	assert_null(fr.map);
	assert_string_equal(frame_name(p, 4, 1, &fr), "prof_lib_y");
	assert_false(fr.kernel);
	assert_true(fr.ip == addr_of(&pie, "prof_lib_y"));
	assert_string_equal(frame_name(p, 4, 2, &fr), "prof_exe_a");
	pmuvirt_profile_sample(p, 5, &s);
	assert_int_equal(s.nr_frames, 0);
	pmuvirt_profile_free(p);

	/* a return address at a function's first byte: the call was before it */
	p = one_frame_profile(&pie, addr_of(&pie, "prof_exe_static_b"));
	assert_string_not_equal(frame_name(p, 0, 0, &fr), "prof_exe_static_b");
	assert_true(fr.ip == addr_of(&pie, "prof_exe_static_b"));
	pmuvirt_profile_free(p);
	p = one_frame_profile(&pie, addr_of(&pie, "prof_exe_static_b") + 1);
	assert_string_equal(frame_name(p, 0, 0, &fr), "prof_exe_static_b");
	pmuvirt_profile_free(p);

	/* root first, leaf last; the two callers of prof_lib_x at 3:1 */
	out = report_text(buf, len, &k, pmuvirt_profile_print_folded);
	assert_string_equal(out,
			    "chain;[unknown];prof_exe_a;prof_lib_x 1\n"
			    "chain;prof_exe_a 2\n"
			    "chain;prof_exe_a;prof_lib_y;_stext_[k];do_syscall_64_[k] 1\n"
			    "chain;prof_lib_y;prof_exe_a;prof_lib_x 3\n"
			    "chain;prof_lib_y;prof_exe_static_b;prof_lib_x 1\n");
	free(out);

	/* the flat profile stays the samples' own functions */
	out = report_text(buf, len, &k, pmuvirt_profile_print_flat);
	assert_non_null(strstr(out, "    57.14%         4  [.] prof_lib_x "));
	assert_non_null(strstr(out, "    28.57%         2  [.] prof_exe_a "));
	assert_non_null(strstr(out, "    14.29%         1  [k] do_syscall_64 "));
	assert_null(strstr(out, "prof_lib_y"));
	free(out);

	/* the dump: the chain, innermost first, after the fields of a record without one */
	out = report_text(buf, len, &k, pmuvirt_profile_print_dump);
	assert_non_null(strstr(out, " ip 0xffffffff81000123 [k] do_syscall_64 [kernel.kallsyms] "
			       "weight 1 counter 0 chain _stext_[k] prof_lib_y prof_exe_a\n"));
	assert_non_null(strstr(out, " weight 1 counter 0 chain prof_exe_a [unknown]\n"));
	assert_non_null(strstr(out, " weight 1 counter 0 chain prof_exe_static_b prof_lib_y\n"));
	assert_non_null(strstr(out, "\nchain 501/500 cpu 0 time 0 ip 0x"));
	{
		/* a record without frames: its 15 fields and nothing after them */
		const char *line = strstr(out, " [.] prof_exe_a ");
		unsigned int fields = 1;

		assert_non_null(line);
		while (line > out && line[-1] != '\n')
			line--;
		for (; *line != '\n'; line++)
			fields += *line == ' ';
		assert_int_equal(fields, 15);
	}
	free(out);
	pmuvirt_ksyms_free(&k);
	free(buf);
	free(pie.maps);
}

#ifdef PMUVIRT_HAVE_PPROF
/* ---- --pprof, read back by protoc (profile.proto as installed) ---- */

#define PB_MAX	64

/* A Profile as protoc --decode prints it, the parts the test checks. */
struct pb {
	char *str[PB_MAX];
	unsigned int nr_str;
	int64_t max_str_ref;		/* the largest string index used anywhere */
	unsigned int str_refs;
	struct { uint64_t loc[8]; unsigned int nr_loc; int64_t value[2]; unsigned int nr_value;
		 int64_t thread; int64_t tid; } sample[PB_MAX];
	unsigned int nr_sample;
	struct { uint64_t id, mapping_id, address, function_id; unsigned int nr_line; } loc[PB_MAX];
	unsigned int nr_loc;
	struct { uint64_t id; int64_t name, system_name; } fn[PB_MAX];
	unsigned int nr_fn;
	struct { uint64_t id, start, limit, offset; int64_t filename; int has_functions; } map[PB_MAX];
	unsigned int nr_map;
	int64_t sample_type[2][2];
	unsigned int nr_sample_type;
	int64_t period_type[2], period, time_nanos, default_sample_type;
	unsigned int nr_comment;
};

/* protoc's quoted string, its escapes undone. */
static char *unquote(const char *q)
{
	char *out = malloc(strlen(q) + 1), *o = out;

	assert_non_null(out);
	assert_int_equal(*q++, '"');
	while (*q && *q != '"') {
		if (*q != '\\') {
			*o++ = *q++;
			continue;
		}
		q++;
		if (*q >= '0' && *q <= '7') {
			unsigned int c = 0, k;

			for (k = 0; k < 3 && *q >= '0' && *q <= '7'; k++)
				c = c * 8 + (unsigned int)(*q++ - '0');
			*o++ = (char)c;
			continue;
		}
		*o++ = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
		q++;
	}
	assert_int_equal(*q, '"');
	*o = 0;
	return out;
}

/* One "field: value" line at @path (the enclosing messages' names, dot-separated). */
static void pb_field(struct pb *pb, const char *path, const char *value)
{
	static const char *const string_refs[] = {
		"sample_type.type", "sample_type.unit", "sample.label.key", "sample.label.str",
		"sample.label.num_unit", "mapping.filename", "mapping.build_id", "function.name",
		"function.system_name", "function.filename", "period_type.type",
		"period_type.unit", "comment", "default_sample_type", "drop_frames",
		"keep_frames",
	};
	long long v = 0;
	unsigned long long u = 0;
	unsigned int i;

	if (!strcmp(path, "string_table")) {
		assert_true(pb->nr_str < PB_MAX);
		pb->str[pb->nr_str++] = unquote(value);
		return;
	}
	if (value[0] == '-')
		v = strtoll(value, NULL, 10);
	else if (strcmp(value, "true") && strcmp(value, "false"))
		u = strtoull(value, NULL, 10), v = (long long)u;
	else
		u = v = !strcmp(value, "true");
	for (i = 0; i < sizeof(string_refs) / sizeof(string_refs[0]); i++) {
		if (!strcmp(path, string_refs[i])) {
			assert_true(v >= 0);
			if (v > pb->max_str_ref)
				pb->max_str_ref = v;
			pb->str_refs++;
		}
	}
#define LAST(arr) (&pb->arr[pb->nr_##arr - 1])
	if (!strcmp(path, "sample.location_id")) {
		assert_true(LAST(sample)->nr_loc < 8);
		LAST(sample)->loc[LAST(sample)->nr_loc++] = u;
	} else if (!strcmp(path, "sample.value")) {
		assert_true(LAST(sample)->nr_value < 2);
		LAST(sample)->value[LAST(sample)->nr_value++] = v;
	} else if (!strcmp(path, "sample.label.str")) {
		LAST(sample)->thread = v;
	} else if (!strcmp(path, "sample.label.num")) {
		if (!LAST(sample)->tid)
			LAST(sample)->tid = v;
	} else if (!strcmp(path, "location.id")) {
		LAST(loc)->id = u;
	} else if (!strcmp(path, "location.mapping_id")) {
		LAST(loc)->mapping_id = u;
	} else if (!strcmp(path, "location.address")) {
		LAST(loc)->address = u;
	} else if (!strcmp(path, "location.line.function_id")) {
		LAST(loc)->function_id = u;
	} else if (!strcmp(path, "function.id")) {
		LAST(fn)->id = u;
	} else if (!strcmp(path, "function.name")) {
		LAST(fn)->name = v;
	} else if (!strcmp(path, "function.system_name")) {
		LAST(fn)->system_name = v;
	} else if (!strcmp(path, "mapping.id")) {
		LAST(map)->id = u;
	} else if (!strcmp(path, "mapping.memory_start")) {
		LAST(map)->start = u;
	} else if (!strcmp(path, "mapping.memory_limit")) {
		LAST(map)->limit = u;
	} else if (!strcmp(path, "mapping.file_offset")) {
		LAST(map)->offset = u;
	} else if (!strcmp(path, "mapping.filename")) {
		LAST(map)->filename = v;
	} else if (!strcmp(path, "mapping.has_functions")) {
		LAST(map)->has_functions = (int)v;
	} else if (!strcmp(path, "sample_type.type")) {
		pb->sample_type[pb->nr_sample_type - 1][0] = v;
	} else if (!strcmp(path, "sample_type.unit")) {
		pb->sample_type[pb->nr_sample_type - 1][1] = v;
	} else if (!strcmp(path, "period_type.type")) {
		pb->period_type[0] = v;
	} else if (!strcmp(path, "period_type.unit")) {
		pb->period_type[1] = v;
	} else if (!strcmp(path, "period")) {
		pb->period = v;
	} else if (!strcmp(path, "time_nanos")) {
		pb->time_nanos = v;
	} else if (!strcmp(path, "default_sample_type")) {
		pb->default_sample_type = v;
	} else if (!strcmp(path, "comment")) {
		pb->nr_comment++;
	}
#undef LAST
}

/* A message opens at @path: a new element of the list it belongs to. */
static void pb_open(struct pb *pb, const char *path)
{
	if (!strcmp(path, "sample")) {
		assert_true(pb->nr_sample < PB_MAX);
		memset(&pb->sample[pb->nr_sample++], 0, sizeof(pb->sample[0]));
	} else if (!strcmp(path, "location")) {
		assert_true(pb->nr_loc < PB_MAX);
		memset(&pb->loc[pb->nr_loc++], 0, sizeof(pb->loc[0]));
	} else if (!strcmp(path, "location.line")) {
		pb->loc[pb->nr_loc - 1].nr_line++;
	} else if (!strcmp(path, "function")) {
		assert_true(pb->nr_fn < PB_MAX);
		memset(&pb->fn[pb->nr_fn++], 0, sizeof(pb->fn[0]));
	} else if (!strcmp(path, "mapping")) {
		assert_true(pb->nr_map < PB_MAX);
		memset(&pb->map[pb->nr_map++], 0, sizeof(pb->map[0]));
	} else if (!strcmp(path, "sample_type")) {
		assert_true(pb->nr_sample_type < 2);
		pb->nr_sample_type++;
	}
}

/* @file (gzip) through gzip -d and protoc --decode into @pb. */
static void pb_decode(const char *file, struct pb *pb)
{
	char cmd[4096], line[8192], path[256];
	FILE *p;

	memset(pb, 0, sizeof(*pb));
	pb->max_str_ref = -1;
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s' | '%s' --decode=perftools.profiles.Profile "
		 "--proto_path='%s' profile.proto", file, PROTOC, PPROF_PROTO_DIR);
	p = popen(cmd, "r");
	assert_non_null(p);
	path[0] = 0;
	while (fgets(line, sizeof(line), p)) {
		char *s = line, *colon;
		size_t n;

		while (*s == ' ')
			s++;
		s[strcspn(s, "\n")] = 0;
		n = strlen(s);
		if (!strcmp(s, "}")) {
			char *dot = strrchr(path, '.');

			assert_true(path[0] != 0);
			*(dot ? dot : path) = 0;
			continue;
		}
		if (n > 2 && !strcmp(s + n - 2, " {")) {
			s[n - 2] = 0;
			assert_true(strlen(path) + n + 2 < sizeof(path));
			if (path[0])
				strcat(path, ".");
			strcat(path, s);
			pb_open(pb, path);
			continue;
		}
		colon = strstr(s, ": ");
		assert_non_null(colon);
		*colon = 0;
		{
			char full[512];

			snprintf(full, sizeof(full), "%s%s%s", path, path[0] ? "." : "", s);
			pb_field(pb, full, colon + 2);
		}
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(path[0], 0);
}

static void pb_free(struct pb *pb)
{
	unsigned int i;

	for (i = 0; i < pb->nr_str; i++)
		free(pb->str[i]);
}

/* What every Profile written must hold: "" first, every index and id in range. */
static void pb_check_refs(const struct pb *pb)
{
	unsigned int i, j, k;

	assert_true(pb->nr_str > 0);
	assert_string_equal(pb->str[0], "");
	assert_true(pb->str_refs > 0);
	assert_true(pb->max_str_ref < (int64_t)pb->nr_str);
	for (i = 0; i < pb->nr_sample; i++) {
		assert_int_equal(pb->sample[i].nr_value, 2);
		assert_true(pb->sample[i].nr_loc >= 1);
		for (k = 0; k < pb->sample[i].nr_loc; k++) {
			for (j = 0; j < pb->nr_loc && pb->loc[j].id != pb->sample[i].loc[k]; j++)
				;
			assert_true(j < pb->nr_loc);
		}
	}
	for (i = 0; i < pb->nr_loc; i++) {
		assert_int_equal(pb->loc[i].nr_line, 1);
		for (j = 0; j < pb->nr_fn && pb->fn[j].id != pb->loc[i].function_id; j++)
			;
		assert_true(j < pb->nr_fn);
		if (!pb->loc[i].mapping_id)
			continue;
		for (j = 0; j < pb->nr_map && pb->map[j].id != pb->loc[i].mapping_id; j++)
			;
		assert_true(j < pb->nr_map);
		assert_true(pb->map[j].start <= pb->loc[i].address &&
			    pb->loc[i].address < pb->map[j].limit);
	}
	for (i = 0; i < pb->nr_map; i++)
		assert_true(pb->map[i].id != 0 && pb->map[i].has_functions);
}

/* The index of Location @id. */
static unsigned int pb_loc(const struct pb *pb, uint64_t id)
{
	unsigned int j;

	for (j = 0; j < pb->nr_loc && pb->loc[j].id != id; j++)
		;
	assert_true(j < pb->nr_loc);
	return j;
}

/* The name of Location @id's function. */
static const char *pb_loc_fn(const struct pb *pb, uint64_t id)
{
	unsigned int j = pb_loc(pb, id), k;

	for (k = 0; k < pb->nr_fn && pb->fn[k].id != pb->loc[j].function_id; k++)
		;
	assert_true(k < pb->nr_fn);
	return pb->str[pb->fn[k].name];
}

/* The Function and Mapping (NULL: none) of @sample's leaf. */
static const char *pb_leaf(const struct pb *pb, unsigned int sample, const char **map_file)
{
	unsigned int j, k;

	for (j = 0; pb->loc[j].id != pb->sample[sample].loc[0]; j++)
		;
	for (k = 0; pb->fn[k].id != pb->loc[j].function_id; k++)
		;
	*map_file = NULL;
	if (pb->loc[j].mapping_id) {
		unsigned int m;

		for (m = 0; pb->map[m].id != pb->loc[j].mapping_id; m++)
			;
		*map_file = pb->str[pb->map[m].filename];
	}
	assert_int_equal(pb->fn[k].name, pb->fn[k].system_name);
	return pb->str[pb->fn[k].name];
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, 65535, f) < 65535);
	fclose(f);
	return buf;
}

/*
 * The fixture: the test ELF's PIE, two threads; prof_exe_a and prof_lib_x
 * at 3:1 (9 and 3 records of weight 1, at two addresses each), one kernel
 * record of weight 2, one outside every mapping.  Sampling every 1000
 * cycles.
 */
static void write_fixture(const char *path, const struct run *pie)
{
	struct pmuvirt_prof_chunk ca = { 300, 301, 1 }, cb = { 300, 302, 2 };
	struct pmuvirt_prof_thread ta = { .tid = 301, .pid = 300, .flags = 1, .comm = "spin-\xff" };
	struct pmuvirt_prof_thread tb = { .tid = 302, .pid = 300, .flags = 1, .comm = "worker-b" };
	struct pmuvirt_prof_end end = { .samples = 14, .threads = 2 };
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_writer w;
	struct pmuvirt_sample s[8];
	char *buf = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmuvirt_prof_write_header(&w, f), 0);
	memset(&info, 0, sizeof(info));
	info.period = 1000;
	info.start_ns = 1700000000123456789ull;
	strcpy(info.events, "cycles,instructions");
	strcpy(info.command, "testelf");
	strcpy(info.release, "6.1.0-test");
	assert_int_equal(pmuvirt_prof_write_info(&w, &info), 0);
	assert_int_equal(pmuvirt_prof_write_maps(&w, 300, 1, pie->maps, pie->maps_len), 0);
	/* thread a: 6 prof_exe_a, 2 prof_lib_x */
	for (i = 0; i < 6; i++)
		sample_at(&s[i], addr_of(pie, "prof_exe_a") + (i & 1), 301, 1, 1);
	sample_at(&s[6], addr_of(pie, "prof_lib_x"), 301, 1, 1);
	sample_at(&s[7], addr_of(pie, "prof_lib_x") + 1, 301, 1, 1);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &ca, s, NULL, 8), 0);
	/* thread b: 3 prof_exe_a, 1 prof_lib_x, the kernel, nowhere */
	for (i = 0; i < 3; i++)
		sample_at(&s[i], addr_of(pie, "prof_exe_a"), 302, 1, 1);
	sample_at(&s[3], addr_of(pie, "prof_lib_x"), 302, 1, 1);
	sample_at(&s[4], 0xffffffff81000123ull, 302, 0, 2);
	sample_at(&s[5], 0x10, 302, 1, 1);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &cb, s, NULL, 6), 0);
	assert_int_equal(pmuvirt_prof_write_thread(&w, &ta), 0);
	assert_int_equal(pmuvirt_prof_write_thread(&w, &tb), 0);
	assert_int_equal(pmuvirt_prof_write_end(&w, &end), 0);
	fclose(f);
	write_file(path, buf, len);
	free(buf);
}

static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Only @nr files in @dir (no temporary file left). */
static void assert_files(const char *dir, unsigned int nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, nr);
}

/*
 * pmuvirt-report --pprof on the fixture, decoded by protoc: the records
 * and the events sum 3:1 per function name, every string index and id
 * in range, the header's types, period and time, the threads' labels,
 * the mappings; refused outputs fail with a message and leave no file.
 */
static void test_pprof(void **state)
{
	static const char kallsyms[] = "ffffffff81000000 T _stext\nffffffff81000100 t do_syscall_64\n";
	char dir[] = "/tmp/pmuvirt-pprof-XXXXXX", data[64], ksyms[64], out[64], err[64];
	int64_t sum[2][2] = { { 0, 0 }, { 0, 0 } };
	unsigned int i, kernel = 0, unknown = 0, spin = 0;
	const char *map_file;
	struct run pie;
	struct pb pb;
	char *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/fixture.data", dir);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", dir);
	snprintf(out, sizeof(out), "%s/fixture.pb.gz", dir);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	run_testelf(TESTELF_PIE, &pie);
	write_fixture(data, &pie);
	write_file(ksyms, kallsyms, sizeof(kallsyms) - 1);
	assert_int_equal(run("'%s' -i %s --kallsyms %s --pprof %s 2>%s", PMUVIRT_REPORT, data, ksyms,
			     out, err), 0);
	text = read_text(err);
	assert_non_null(strstr(text, "fixture.pb.gz: 8 samples, 6 locations, 4 functions, 2 mappings, "));
	free(text);

	pb_decode(out, &pb);
	pb_check_refs(&pb);
	for (i = 0; i < pb.nr_sample; i++) {
		const char *name = pb_leaf(&pb, i, &map_file);

		assert_int_equal(pb.sample[i].nr_loc, 1);	/* records without frames */
		int k = !strcmp(name, "prof_exe_a") ? 0 : !strcmp(name, "prof_lib_x") ? 1 : -1;

		if (k >= 0) {
			sum[k][0] += pb.sample[i].value[0];
			sum[k][1] += pb.sample[i].value[1];
			assert_non_null(map_file);
			if (!k)
				assert_string_equal(map_file, TESTELF_PIE);
			else
				assert_non_null(strstr(map_file, "libprofile_testlib.so"));
		} else if (!strcmp(name, "do_syscall_64")) {
			kernel++;
			assert_null(map_file);
			assert_int_equal(pb.sample[i].value[0], 1);
			assert_int_equal(pb.sample[i].value[1], 2000);
		} else {
			unknown++;
			assert_string_equal(name, "[unknown]");
			assert_null(map_file);
		}
		if (pb.sample[i].tid == 301) {
			assert_string_equal(pb.str[pb.sample[i].thread], "spin-?");
			spin++;
		} else {
			assert_int_equal(pb.sample[i].tid, 302);
			assert_string_equal(pb.str[pb.sample[i].thread], "worker-b");
		}
	}
	assert_int_equal(sum[0][0], 9);
	assert_int_equal(sum[1][0], 3);
	assert_int_equal(sum[0][1], 9000);
	assert_int_equal(sum[1][1], 3000);
	assert_int_equal(kernel, 1);
	assert_int_equal(unknown, 1);
	assert_int_equal(spin, 4);
	assert_int_equal(pb.nr_sample_type, 2);
	assert_string_equal(pb.str[pb.sample_type[0][0]], "samples");
	assert_string_equal(pb.str[pb.sample_type[0][1]], "count");
	assert_string_equal(pb.str[pb.sample_type[1][0]], "cycles");
	assert_string_equal(pb.str[pb.sample_type[1][1]], "count");
	assert_string_equal(pb.str[pb.period_type[0]], "cycles");
	assert_string_equal(pb.str[pb.default_sample_type], "cycles");
	assert_int_equal(pb.period, 1000);
	assert_int_equal(pb.time_nanos, 1700000000123456789ll);
	assert_int_equal(pb.nr_comment, 3);
	pb_free(&pb);

	/* go tool pprof, where Go is installed (the test does not need it) */
	if (!run("command -v go >/dev/null 2>&1")) {
		assert_int_equal(run("go tool pprof -top %s >%s 2>&1", out, err), 0);
		text = read_text(err);
		assert_non_null(strstr(text, "prof_exe_a"));
		free(text);
	}

	/* a full disk, a missing directory: a message, exit 1, no file */
	assert_int_equal(run("'%s' -i %s --kallsyms %s --pprof /dev/full 2>%s", PMUVIRT_REPORT,
			     data, ksyms, err), 1);
	text = read_text(err);
	assert_non_null(strstr(text, "/dev/full: No space left on device: no profile written"));
	free(text);
	assert_int_equal(run("'%s' -i %s --kallsyms %s --pprof %s/none/x.pb.gz 2>%s",
			     PMUVIRT_REPORT, data, ksyms, dir, err), 1);
	text = read_text(err);
	assert_non_null(strstr(text, "none/x.pb.gz: No such file or directory: no profile written"));
	free(text);
	/* the folded stacks to a full disk: a message too, exit 1 */
	assert_int_equal(run("'%s' -i %s --kallsyms %s --folded >/dev/full 2>%s", PMUVIRT_REPORT,
			     data, ksyms, err), 1);
	text = read_text(err);
	assert_non_null(strstr(text, "pmuvirt-report: writing the report: No space left on device"));
	free(text);
	assert_files(dir, 4);

	unlink(data);
	unlink(ksyms);
	unlink(out);
	unlink(err);
	assert_int_equal(rmdir(dir), 0);
	free(pie.maps);
}

/*
 * pmuvirt-report --pprof on the fixture with call chains: each Sample's
 * stack is the leaf's location then one per frame, as deep as the chain;
 * the two stacks into prof_lib_x sum 3:1; a frame's location is at its
 * return address, in its mapping.
 */
static void test_pprof_chain(void **state)
{
	char dir[] = "/tmp/pmuvirt-pprof-XXXXXX", data[64], ksyms[64], out[64], err[64];
	struct { const char *stack; unsigned int depth; int64_t records, events; } want[] = {
		{ "prof_lib_x;prof_exe_a;prof_lib_y", 3, 3, 3000 },
		{ "prof_lib_x;prof_exe_static_b;prof_lib_y", 3, 1, 1000 },
		{ "prof_lib_x;prof_exe_a;[unknown]", 3, 1, 1000 },
		{ "do_syscall_64;_stext;prof_lib_y;prof_exe_a", 4, 1, 1000 },
		{ "prof_exe_a", 1, 2, 2000 },
	};
	int64_t got[5][2];
	unsigned int i, j, k, n = sizeof(want) / sizeof(want[0]);
	char *buf = NULL, *text;
	size_t len = 0;
	struct run pie;
	struct pb pb;

	(void)state;
	memset(got, 0, sizeof(got));
	assert_non_null(mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/chain.data", dir);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", dir);
	snprintf(out, sizeof(out), "%s/chain.pb.gz", dir);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	run_testelf(TESTELF_PIE, &pie);
	write_chain_fixture(&pie, &buf, &len);
	write_file(data, buf, len);
	free(buf);
	write_file(ksyms, chain_kallsyms, sizeof(chain_kallsyms) - 1);
	assert_int_equal(run("'%s' -i %s --kallsyms %s --pprof %s 2>%s", PMUVIRT_REPORT, data,
			     ksyms, out, err), 0);
	text = read_text(err);
	assert_non_null(strstr(text, "chain.pb.gz: 8 samples, 10 locations, 7 functions, "
				     "2 mappings, "));
	free(text);

	pb_decode(out, &pb);
	pb_check_refs(&pb);
	assert_int_equal(pb.nr_sample, 8);
	for (i = 0; i < pb.nr_sample; i++) {
		char stack[256] = "";

		for (k = 0; k < pb.sample[i].nr_loc; k++) {
			if (k)
				strcat(stack, ";");
			strcat(stack, pb_loc_fn(&pb, pb.sample[i].loc[k]));
		}
		for (j = 0; j < n && strcmp(want[j].stack, stack); j++)
			;
		if (j == n)
			fail_msg("unexpected stack %s", stack);
		assert_int_equal(pb.sample[i].nr_loc, want[j].depth);
		got[j][0] += pb.sample[i].value[0];
		got[j][1] += pb.sample[i].value[1];
		if (j == 0) {
			/* the frames: their return addresses, in the PIE and the library */
			const unsigned int a = pb_loc(&pb, pb.sample[i].loc[1]);
			const unsigned int y = pb_loc(&pb, pb.sample[i].loc[2]);

			assert_true(pb.loc[a].address == addr_of(&pie, "prof_exe_a") + 1);
			assert_true(pb.loc[y].address == addr_of(&pie, "prof_lib_y") + 1);
			assert_true(pb.loc[a].mapping_id && pb.loc[y].mapping_id &&
				    pb.loc[a].mapping_id != pb.loc[y].mapping_id);
		}
	}
	for (j = 0; j < n; j++) {
		assert_int_equal(got[j][0], want[j].records);
		assert_int_equal(got[j][1], want[j].events);
	}
	pb_free(&pb);
	unlink(data);
	unlink(ksyms);
	unlink(out);
	unlink(err);
	assert_int_equal(rmdir(dir), 0);
	free(pie.maps);
}

/* A write cut short (the file size limit): the old file stays, no temporary file. */
static void test_pprof_save_fails(void **state)
{
	char dir[] = "/tmp/pmuvirt-pprof-XXXXXX", path[64];
	static char buf[65536];
	struct rlimit old, lim;
	char *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.pb.gz", dir);
	write_file(path, "old\n", 4);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(pmuvirt_pprof_save(path, buf, sizeof(buf)), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	text = read_text(path);
	assert_string_equal(text, "old\n");
	free(text);
	assert_files(dir, 1);
	assert_int_equal(pmuvirt_pprof_save(path, buf, sizeof(buf)), 0);
	assert_files(dir, 1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Values over INT64_MAX (a huge period, records of the largest weight) are clamped, not wrapped. */
static void test_pprof_clamp(void **state)
{
	struct pmuvirt_prof_chunk c = { 400, 401, 1 };
	struct pmuvirt_prof_end end = { .samples = 3, .threads = 0 };
	char dir[] = "/tmp/pmuvirt-pprof-XXXXXX", path[64];
	struct pmuvirt_pprof_stats st;
	struct pmuvirt_prof_info info;
	struct pmuvirt_prof_writer w;
	struct pmuvirt_prof_error perr;
	struct pmuvirt_profile *p;
	struct pmuvirt_sample s[3];
	char *file = NULL;
	size_t len = 0, gz_len;
	void *gz;
	unsigned int i;
	int ret;
	struct pb pb;
	FILE *f = open_memstream(&file, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(pmuvirt_prof_write_header(&w, f), 0);
	memset(&info, 0, sizeof(info));
	info.period = 1ull << 62;
	info.start_ns = UINT64_MAX;
	assert_int_equal(pmuvirt_prof_write_info(&w, &info), 0);
	for (i = 0; i < 3; i++)
		sample_at(&s[i], 0xffffffff81000000ull, 401, 0, UINT32_MAX);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &c, s, NULL, 3), 0);
	assert_int_equal(pmuvirt_prof_write_end(&w, &end), 0);
	fclose(f);
	p = pmuvirt_profile_load(file, len, 0, &perr, &ret);
	assert_non_null(p);
	assert_int_equal(pmuvirt_profile_resolve(p, NULL, PMUVIRT_PROFILE_NO_ELF), 0);
	assert_int_equal(pmuvirt_pprof_encode(p, &gz, &gz_len, &st), 0);
	pmuvirt_profile_free(p);
	free(file);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.clamped, 2);	/* the events and the start time */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/clamp.pb.gz", dir);
	assert_int_equal(pmuvirt_pprof_save(path, gz, gz_len), 0);
	free(gz);
	pb_decode(path, &pb);
	pb_check_refs(&pb);
	assert_int_equal(pb.nr_sample, 1);
	assert_int_equal(pb.sample[0].value[0], 3);
	assert_int_equal(pb.sample[0].value[1], INT64_MAX);
	assert_int_equal(pb.period, 1ll << 62);
	assert_int_equal(pb.time_nanos, INT64_MAX);
	assert_string_equal(pb.str[pb.sample_type[1][0]], "events");
	pb_free(&pb);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}
#endif /* PMUVIRT_HAVE_PPROF */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_parse),
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_elf_pie),
		cmocka_unit_test(test_elf_nopie),
		cmocka_unit_test(test_elf_bad),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_chain_report),
#ifdef PMUVIRT_HAVE_PPROF
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_chain),
		cmocka_unit_test(test_pprof_save_fails),
		cmocka_unit_test(test_pprof_clamp),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
