// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-report's parts: the maps parser, the kernel symbol table, the
 * ELF lookup through libdwfl on the test ELF (a PIE and a
 * position-dependent build, each with a shared library, resolved after
 * the process has exited from the maps it printed), and the report's
 * output for a profile with known samples: the per-thread shares, the
 * folded lines, the maps snapshot valid at each drain round.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "report.h"

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
	assert_int_equal(pmuvirt_prof_write_samples(&w, &ca, s, 8), 0);
	/* thread b: one of weight 3 in prof_lib_y, one in the kernel, one outside every mapping */
	sample_at(&s[0], addr_of(&pie, "prof_lib_y"), 202, 1, 3);
	sample_at(&s[1], 0xffffffff81000123ull, 202, 0, 1);
	sample_at(&s[2], 0x10, 202, 1, 1);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &cb, s, 3), 0);
	/* thread a after the exec: the other build's addresses, named by the later snapshot */
	sample_at(&s[0], addr_of(&nopie, "prof_exe_static_b"), 201, 1, 2);
	assert_int_equal(pmuvirt_prof_write_samples(&w, &ca5, s, 1), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_parse),
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_elf_pie),
		cmocka_unit_test(test_elf_nopie),
		cmocka_unit_test(test_elf_bad),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
