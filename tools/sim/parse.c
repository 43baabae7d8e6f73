/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: scenario parser and validation (docs/simulator.md). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "truth.h"

#define MAX_TOKENS	64

/* Parser state */

struct parser {
	struct scenario *sc;
	char *err;
	size_t errlen;
	int line;
	bool have_pmu, have_pcpus, have_policy, have_pv_cost;
	bool in_steps;
	unsigned int cap_threads, cap_steps;
	struct sim_replay replay;
	bool replay_ready;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "line %d: ", p->line);

	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static int check_name(struct parser *p, const char *s, const char *what)
{
	if (!is_name(s))
		return fail(p, "bad %s name '%s' (names are [A-Za-z_][A-Za-z0-9_]*)", what, s);
	if (strlen(s) >= SIM_NAME_MAX)
		return fail(p, "%s name '%s' is longer than %d characters", what, s,
			    SIM_NAME_MAX - 1);
	return 0;
}

/* Decimal or 0x hex, at most 2^62.  @what names the number in messages. */
static int parse_num(struct parser *p, const char *s, const char *what, uint64_t *out)
{
	const char *q = s;
	unsigned int base = 10;
	uint64_t v = 0;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		base = 16;
		q += 2;
	}
	if (!*q)
		return fail(p, "bad number '%s' for %s", s, what);
	for (; *q; q++) {
		unsigned int d;

		if (*q >= '0' && *q <= '9')
			d = (unsigned int)(*q - '0');
		else if (base == 16 && isxdigit((unsigned char)*q))
			d = (unsigned int)(tolower((unsigned char)*q) - 'a' + 10);
		else
			return fail(p, "bad number '%s' for %s", s, what);
		if (v > (SIM_NUM_MAX - d) / base)
			return fail(p, "number '%s' for %s is larger than 2^62", s, what);
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static int parse_event(struct parser *p, const char *s, enum sim_event *ev)
{
	unsigned int i;

	*ev = (enum sim_event)0;
	for (i = 0; i < SIM_NR_EVENTS; i++)
		if (!strcmp(s, sim_event_name((enum sim_event)i))) {
			*ev = (enum sim_event)i;
			return 0;
		}
	return fail(p, "unknown event '%s' (instructions, cycles, branches, branch-misses)", s);
}

/* <event> or <event>:i<period> */
static int parse_counter(struct parser *p, const char *tok, struct sim_counter *c)
{
	char buf[64];
	const char *colon = strchr(tok, ':');

	c->period = 0;
	if (!colon)
		return parse_event(p, tok, &c->event);
	if ((size_t)(colon - tok) >= sizeof(buf))
		return fail(p, "bad counter '%s'", tok);
	memcpy(buf, tok, (size_t)(colon - tok));
	buf[colon - tok] = 0;
	if (parse_event(p, buf, &c->event))
		return -1;
	if (colon[1] != 'i')
		return fail(p, "bad counter '%s' (expected <event> or <event>:i<period>)", tok);
	if (parse_num(p, colon + 2, "an i-mode period", &c->period))
		return -1;
	if (!c->period)
		return fail(p, "i-mode period of counter '%s' must be at least 1", tok);
	return 0;
}

static int parse_counters(struct parser *p, char **tok, int n, struct sim_counter_set *set)
{
	int i;

	if (n < 1)
		return fail(p, "no counters given");
	if (n > SIM_MAX_COUNTERS)
		return fail(p, "more than %d counters", SIM_MAX_COUNTERS);
	set->n = (unsigned int)n;
	for (i = 0; i < n; i++)
		if (parse_counter(p, tok[i], &set->c[i]))
			return -1;
	return 0;
}

/* <event>=<n> ... into @ev (zeroed first); at least one, each event once. */
static int parse_events(struct parser *p, char **tok, int n, uint64_t *ev, const char *stmt)
{
	bool seen[SIM_NR_EVENTS] = { false };
	int i;

	memset(ev, 0, sizeof(uint64_t) * SIM_NR_EVENTS);
	if (n < 1)
		return fail(p, "%s needs at least one <event>=<n>", stmt);
	for (i = 0; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		enum sim_event e;

		if (!eq)
			return fail(p, "expected <event>=<n>, got '%s'", tok[i]);
		*eq = 0;
		if (parse_event(p, tok[i], &e))
			return -1;
		if (seen[e])
			return fail(p, "event %s given twice", tok[i]);
		seen[e] = true;
		if (parse_num(p, eq + 1, tok[i], &ev[e]))
			return -1;
	}
	return 0;
}

static int find_domain(const struct scenario *sc, const char *name)
{
	unsigned int d;

	for (d = 0; d < sc->nr_domains; d++)
		if (!strcmp(sc->domains[d].name, name))
			return (int)d;
	return -1;
}

static int find_thread(const struct scenario *sc, unsigned int dom, const char *name)
{
	unsigned int t;

	for (t = 0; t < sc->nr_threads; t++)
		if (sc->threads[t].domain == dom && !strcmp(sc->threads[t].name, name))
			return (int)t;
	return -1;
}

/* Split "<a>.<b>" in place; returns the part after the dot or NULL. */
static char *split_dot(char *s)
{
	char *dot = strchr(s, '.');

	if (!dot)
		return NULL;
	*dot = 0;
	return dot + 1;
}

static int parse_domain_ref(struct parser *p, char *tok, const char *what, unsigned int *dom,
			    char **rest)
{
	char copy[128];
	int d;

	snprintf(copy, sizeof(copy), "%s", tok);
	*rest = split_dot(tok);
	if (!*rest || !**rest)
		return fail(p, "expected <domain>.<%s>, got '%s'", what, copy);
	d = find_domain(p->sc, tok);
	if (d < 0) {
		if (!is_name(tok))
			return fail(p, "bad domain name '%s'", tok);
		return fail(p, "unknown domain '%s'", tok);
	}
	*dom = (unsigned int)d;
	return 0;
}

static int parse_vcpu_ref(struct parser *p, char *tok, unsigned int *dom, unsigned int *vcpu)
{
	char *rest;
	uint64_t v;

	if (parse_domain_ref(p, tok, "vcpu", dom, &rest))
		return -1;
	if (parse_num(p, rest, "a VCPU number", &v))
		return -1;
	if (v >= p->sc->domains[*dom].nr_vcpus)
		return fail(p, "unknown VCPU %s.%s (domain %s has VCPUs 0..%u)", tok, rest, tok,
			    p->sc->domains[*dom].nr_vcpus - 1);
	*vcpu = (unsigned int)v;
	return 0;
}

static int parse_thread_ref(struct parser *p, char *tok, unsigned int *dom, int *thread)
{
	char *rest;

	if (parse_domain_ref(p, tok, "thread", dom, &rest))
		return -1;
	if (check_name(p, rest, "thread"))
		return -1;
	*thread = find_thread(p->sc, *dom, rest);
	if (*thread < 0)
		return fail(p, "unknown thread %s.%s", tok, rest);
	return 0;
}

static int parse_pcpu(struct parser *p, const char *tok, unsigned int *pcpu)
{
	uint64_t v;

	if (parse_num(p, tok, "a PCPU number", &v))
		return -1;
	if (v >= p->sc->nr_pcpus)
		return fail(p, "PCPU %llu out of range (pcpus %u: 0..%u)", (unsigned long long)v,
			    p->sc->nr_pcpus, p->sc->nr_pcpus - 1);
	*pcpu = (unsigned int)v;
	return 0;
}

/* Declarations */

static int decl_pmu(struct parser *p, char **tok, int n)
{
	struct sim_pmu *pmu = &p->sc->pmu;
	bool seen[4] = { false };
	const struct sim_model_info *m;
	int i;

	if (p->have_pmu)
		return fail(p, "duplicate pmu declaration (first at line %d)", pmu->line);
	if (n < 2)
		return fail(p, "pmu needs a model");
	m = sim_model_find(tok[1]);
	if (!m) {
		char names[256];

		sim_model_names(names, sizeof(names), ", ");
		return fail(p, "unknown pmu model '%s' (%s)", tok[1], names);
	}
	memset(pmu, 0, sizeof(*pmu));
	pmu->model = m->model;
	pmu->version = m->version;
	pmu->gp = m->gp;
	pmu->fixed = m->fixed;
	pmu->width = m->width;
	pmu->fw_write = pmu->model == SIM_MODEL_INTEL;
	snprintf(pmu->name, sizeof(pmu->name), "%s", m->name);
	pmu->line = p->line;

	for (i = 2; i < n; i++) {
		static const char *const keys[4] = { "gp", "fixed", "width", "fw-write" };
		char *eq = strchr(tok[i], '=');
		unsigned int k;
		uint64_t v;

		if (!eq)
			return fail(p, "expected <key>=<value>, got '%s'", tok[i]);
		*eq = 0;
		for (k = 0; k < 4; k++)
			if (!strcmp(tok[i], keys[k]))
				break;
		if (k == 4 || (pmu->model == SIM_MODEL_AMD_PERFMONV2 && k != 0) ||
		    (pmu->model != SIM_MODEL_INTEL && pmu->model != SIM_MODEL_AMD_PERFMONV2))
			return fail(p, "model %s has no key '%s'", pmu->name, tok[i]);
		if (seen[k])
			return fail(p, "key %s given twice", keys[k]);
		seen[k] = true;
		if (parse_num(p, eq + 1, keys[k], &v))
			return -1;
		switch (k) {
		case 0:
			if (pmu->model == SIM_MODEL_INTEL && (v < 1 || v > 8))
				return fail(p, "gp=%llu out of range (1..8)", (unsigned long long)v);
			if (pmu->model == SIM_MODEL_AMD_PERFMONV2 && (v < 1 || v > 6))
				return fail(p, "gp=%llu out of range (1..6)", (unsigned long long)v);
			pmu->gp = (unsigned int)v;
			break;
		case 1:
			if (pmu->version == 1 && v)
				return fail(p, "intel-v1 has no fixed counters (fixed=0)");
			if (v > 7)
				return fail(p, "fixed=%llu out of range (0..7)", (unsigned long long)v);
			pmu->fixed = (unsigned int)v;
			break;
		case 2:
			if (v < 32 || v > 48)
				return fail(p, "width=%llu out of range (32..48)", (unsigned long long)v);
			pmu->width = (unsigned int)v;
			break;
		case 3:
			if (v > 1)
				return fail(p, "fw-write must be 0 or 1");
			pmu->fw_write = v;
			break;
		}
	}
	p->have_pmu = true;
	return 0;
}

static int decl_pcpus(struct parser *p, char **tok, int n)
{
	uint64_t v;

	if (p->have_pcpus)
		return fail(p, "duplicate pcpus declaration");
	if (n != 2)
		return fail(p, "usage: pcpus <n>");
	if (parse_num(p, tok[1], "pcpus", &v))
		return -1;
	if (v < 1 || v > SIM_MAX_PCPUS)
		return fail(p, "pcpus %llu out of range (1..%d)", (unsigned long long)v,
			    SIM_MAX_PCPUS);
	p->sc->nr_pcpus = (unsigned int)v;
	p->have_pcpus = true;
	return 0;
}

static int decl_vcpus(struct parser *p, char **tok, int n)
{
	struct scenario *sc = p->sc;
	struct sim_domain *d;
	uint64_t v;
	int old;

	if (n != 3)
		return fail(p, "usage: vcpus <domain> <n>");
	if (check_name(p, tok[1], "domain"))
		return -1;
	old = find_domain(sc, tok[1]);
	if (old >= 0)
		return fail(p, "duplicate declaration of domain %s (first at line %d)", tok[1],
			    sc->domains[old].line);
	if (parse_num(p, tok[2], "vcpus", &v))
		return -1;
	if (v < 1 || v > SIM_MAX_VCPUS)
		return fail(p, "vcpus %llu out of range (1..%d)", (unsigned long long)v,
			    SIM_MAX_VCPUS);
	if (sc->nr_domains >= SIM_MAX_DOMAINS)
		return fail(p, "more than %d domains", SIM_MAX_DOMAINS);
	d = &sc->domains[sc->nr_domains++];
	snprintf(d->name, sizeof(d->name), "%s", tok[1]);
	d->nr_vcpus = (unsigned int)v;
	d->line = p->line;
	return 0;
}

static int decl_thread(struct parser *p, char **tok, int n)
{
	struct scenario *sc = p->sc;
	struct sim_thread *t;
	unsigned int dom;
	char *rest;
	int old;

	if (n < 3)
		return fail(p, "usage: thread <domain>.<thread> <counter> [<counter> ...]");
	if (parse_domain_ref(p, tok[1], "thread", &dom, &rest))
		return -1;
	if (check_name(p, rest, "thread"))
		return -1;
	old = find_thread(sc, dom, rest);
	if (old >= 0)
		return fail(p, "duplicate declaration of thread %s.%s (first at line %d)", tok[1],
			    rest, sc->threads[old].line);
	if (sc->nr_threads >= SIM_MAX_THREADS)
		return fail(p, "more than %d threads", SIM_MAX_THREADS);
	if (sc->nr_threads == p->cap_threads) {
		unsigned int cap = p->cap_threads ? 2 * p->cap_threads : 16;
		void *nt = realloc(sc->threads, cap * sizeof(*sc->threads));

		if (!nt)
			return fail(p, "out of memory");
		sc->threads = nt;
		p->cap_threads = cap;
	}
	t = &sc->threads[sc->nr_threads];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", rest);
	t->domain = dom;
	t->line = p->line;
	if (parse_counters(p, tok + 2, n - 2, &t->ctrs))
		return -1;
	sc->nr_threads++;
	return 0;
}

static int decl_policy(struct parser *p, char **tok, int n)
{
	if (p->have_policy)
		return fail(p, "duplicate policy declaration");
	if (n != 2)
		return fail(p, "usage: policy hypervisor-events=<exclude|include>");
	if (!strcmp(tok[1], "hypervisor-events=exclude"))
		p->sc->policy = SIM_POLICY_EXCLUDE;
	else if (!strcmp(tok[1], "hypervisor-events=include"))
		p->sc->policy = SIM_POLICY_INCLUDE;
	else
		return fail(p, "bad policy '%s' (hypervisor-events=exclude or include)", tok[1]);
	p->have_policy = true;
	return 0;
}

static int decl_pv_cost(struct parser *p, char **tok, int n)
{
	if (p->have_pv_cost)
		return fail(p, "duplicate pv-cost declaration");
	p->have_pv_cost = true;
	return parse_events(p, tok + 1, n - 1, p->sc->pv_cost, "pv-cost");
}

/* The declarations are complete: check what needs all of them. */
static int end_declarations(struct parser *p)
{
	struct scenario *sc = p->sc;
	char why[200];
	unsigned int t;

	if (!p->have_pmu)
		return fail(p, "no pmu declared before the first step");
	if (!p->have_pcpus)
		return fail(p, "no pcpus declared before the first step");
	for (t = 0; t < sc->nr_threads; t++)
		if (sim_counters_fit(&sc->pmu, &sc->threads[t].ctrs, why, sizeof(why))) {
			char label[SIM_LABEL_MAX];

			p->line = sc->threads[t].line;
			sim_thread_label(sc, t, label, sizeof(label));
			return fail(p, "thread %s: %s", label, why);
		}
	if (sim_replay_init(&p->replay, sc))
		return fail(p, "out of memory");
	p->replay_ready = true;
	p->in_steps = true;
	return 0;
}

/* Steps */

/* Each step's keyword and how many words (its own included) it takes; max 0: no limit. */
static const struct step_syntax {
	const char *name;
	enum sim_step_kind kind;
	int min, max;
	const char *usage;
} step_syntax[] = {
	{ "schedule", SIM_STEP_SCHEDULE, 3, 3, "schedule <pcpu> <domain>.<vcpu>" },
	{ "deschedule", SIM_STEP_DESCHEDULE, 2, 2, "deschedule <pcpu>" },
	{ "switch", SIM_STEP_SWITCH, 3, 3, "switch <domain>.<vcpu> <thread>|-" },
	{ "exec", SIM_STEP_EXEC, 2, 0, "exec <domain>.<vcpu> <event>=<n> ..." },
	{ "hyper", SIM_STEP_HYPER, 2, 0, "hyper <pcpu> <event>=<n> ..." },
	{ "control", SIM_STEP_CONTROL, 3, 0, "control <domain>.<thread> <counter> [<counter> ...]" },
	{ "read", SIM_STEP_READ, 2, 2, "read <domain>.<thread>" },
};

static const struct step_syntax *find_step(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(step_syntax) / sizeof(step_syntax[0]); i++)
		if (!strcmp(s, step_syntax[i].name))
			return &step_syntax[i];
	return NULL;
}

static int parse_step(struct parser *p, char **tok, int n, struct sim_step *st)
{
	const struct step_syntax *syn = find_step(tok[0]);
	char why[200];

	memset(st, 0, sizeof(*st));
	st->line = p->line;
	st->thread = -1;
	if (!syn)
		return fail(p, "unknown statement '%s'", tok[0]);
	st->kind = syn->kind;
	if (n < syn->min || (syn->max && n > syn->max))
		return fail(p, "usage: %s", syn->usage);
	switch (st->kind) {
	case SIM_STEP_SCHEDULE:
		if (parse_pcpu(p, tok[1], &st->pcpu))
			return -1;
		return parse_vcpu_ref(p, tok[2], &st->domain, &st->vcpu);
	case SIM_STEP_DESCHEDULE:
		return parse_pcpu(p, tok[1], &st->pcpu);
	case SIM_STEP_SWITCH:
		if (parse_vcpu_ref(p, tok[1], &st->domain, &st->vcpu))
			return -1;
		if (!strcmp(tok[2], "-"))
			return 0;
		if (check_name(p, tok[2], "thread"))
			return -1;
		st->thread = find_thread(p->sc, st->domain, tok[2]);
		if (st->thread < 0)
			return fail(p, "unknown thread %s.%s", p->sc->domains[st->domain].name,
				    tok[2]);
		return 0;
	case SIM_STEP_EXEC:
		if (parse_vcpu_ref(p, tok[1], &st->domain, &st->vcpu))
			return -1;
		return parse_events(p, tok + 2, n - 2, st->events, "exec");
	case SIM_STEP_HYPER:
		if (parse_pcpu(p, tok[1], &st->pcpu))
			return -1;
		return parse_events(p, tok + 2, n - 2, st->events, "hyper");
	case SIM_STEP_CONTROL:
		if (parse_thread_ref(p, tok[1], &st->domain, &st->thread))
			return -1;
		if (parse_counters(p, tok + 2, n - 2, &st->ctrs))
			return -1;
		if (sim_counters_fit(&p->sc->pmu, &st->ctrs, why, sizeof(why)))
			return fail(p, "control of %s.%s: %s", p->sc->domains[st->domain].name,
				    p->sc->threads[st->thread].name, why);
		return 0;
	default:
		if (parse_thread_ref(p, tok[1], &st->domain, &st->thread))
			return -1;
		st->read_index = p->sc->nr_reads;
		return 0;
	}
}

static bool is_step(const char *s)
{
	return find_step(s) != NULL;
}

static int add_step(struct parser *p, char **tok, int n)
{
	struct scenario *sc = p->sc;
	struct sim_step st;
	char why[200];

	if (!p->in_steps && end_declarations(p))
		return -1;
	if (parse_step(p, tok, n, &st))
		return -1;
	if (sim_replay_step(&p->replay, &st, why, sizeof(why)))
		return fail(p, "%s", why);
	if (sc->nr_steps == p->cap_steps) {
		unsigned int cap = p->cap_steps ? 2 * p->cap_steps : 64;
		void *ns;

		if (cap > 100000000u)
			return fail(p, "too many steps");
		ns = realloc(sc->steps, cap * sizeof(*sc->steps));
		if (!ns)
			return fail(p, "out of memory");
		sc->steps = ns;
		p->cap_steps = cap;
	}
	sc->steps[sc->nr_steps++] = st;
	if (st.kind == SIM_STEP_READ)
		sc->nr_reads++;
	return 0;
}

static const struct {
	const char *name;
	int (*parse)(struct parser *p, char **tok, int n);
} decls[] = {
	{ "pmu", decl_pmu },
	{ "pcpus", decl_pcpus },
	{ "vcpus", decl_vcpus },
	{ "thread", decl_thread },
	{ "policy", decl_policy },
	{ "pv-cost", decl_pv_cost },
};

static int parse_line(struct parser *p, char *line)
{
	char *tok[MAX_TOKENS];
	unsigned int i;
	int n = 0;
	char *s;

	for (s = line; *s; s++) {
		if (*s == '#') {
			*s = 0;
			break;
		}
		if (*s == '\t' || *s == '\r')
			*s = ' ';
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return fail(p, "unexpected character 0x%02x", (unsigned char)*s);
	}
	for (s = strtok(line, " "); s; s = strtok(NULL, " ")) {
		if (n == MAX_TOKENS)
			return fail(p, "more than %d words on one line", MAX_TOKENS);
		tok[n++] = s;
	}
	if (!n)
		return 0;
	if (is_step(tok[0]))
		return add_step(p, tok, n);
	for (i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
		if (strcmp(tok[0], decls[i].name))
			continue;
		if (p->in_steps)
			return fail(p, "declaration '%s' after the first step", tok[0]);
		return decls[i].parse(p, tok, n);
	}
	return fail(p, "unknown statement '%s'", tok[0]);
}

int sim_parse(const char *text, struct scenario *sc, char *err, size_t errlen)
{
	struct parser p;
	const char *s = text;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	memset(sc, 0, sizeof(*sc));
	memset(&p, 0, sizeof(p));
	p.sc = sc;
	p.err = err;
	p.errlen = errlen;
	if (errlen)
		err[0] = 0;
	sc->domains = calloc(SIM_MAX_DOMAINS, sizeof(*sc->domains));
	if (!sc->domains) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		p.line++;
		if (len + 1 > cap) {
			char *nb = realloc(line, len + 1);

			if (!nb) {
				ret = fail(&p, "out of memory");
				break;
			}
			line = nb;
			cap = len + 1;
		}
		memcpy(line, s, len);
		line[len] = 0;
		if (memchr(s, 0, len)) {
			ret = fail(&p, "unexpected character 0x00");
			break;
		}
		ret = parse_line(&p, line);
		if (ret)
			break;
		s += len;
		if (*s == '\n')
			s++;
	}
	if (!ret && !p.in_steps) {
		if (p.line == 0)
			p.line = 1;
		if (!p.have_pmu)
			ret = fail(&p, "end of file: no pmu declaration");
		else if (!p.have_pcpus)
			ret = fail(&p, "end of file: no pcpus declaration");
		else
			ret = end_declarations(&p);
	}
	free(line);
	if (p.replay_ready)
		sim_replay_free(&p.replay);
	if (ret)
		sim_scenario_free(sc);
	return ret;
}

int sim_parse_file(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int ret;

	memset(sc, 0, sizeof(*sc));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? 2 * cap : 65536);

			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				ret = -1;
				goto out;
			}
			buf = nb;
			cap = cap ? 2 * cap : 65536;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		ret = -1;
		goto out;
	}
	buf[len] = 0;
	if (strlen(buf) != len) {
		/* A NUL byte: report its line. */
		int line = 1;
		size_t i;

		for (i = 0; buf[i]; i++)
			line += buf[i] == '\n';
		snprintf(err, errlen, "line %d: unexpected character 0x00", line);
		ret = -1;
		goto out;
	}
	ret = sim_parse(buf, sc, err, errlen);
out:
	free(buf);
	if (f != stdin)
		fclose(f);
	return ret;
}
