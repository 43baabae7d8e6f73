/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: the counts over the steps as an SVG picture (docs/simulator.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "truth.h"

static const struct sim_step *read_step(const struct scenario *sc, unsigned int idx,
					unsigned int *step_no)
{
	unsigned int i;

	for (i = 0; i < sc->nr_steps; i++)
		if (sc->steps[i].kind == SIM_STEP_READ && sc->steps[i].read_index == idx) {
			*step_no = i;
			return &sc->steps[i];
		}
	return NULL;
}

#define SVG_W		1000
#define SVG_H		560
#define PLOT_X		90
#define PLOT_Y		50
#define PLOT_W		640
#define PLOT_H		430

#define LEGEND_MAX	30

/* The event all threads have as counter @k at the end, or NULL if they differ. */
static const char *counter_column_name(const struct scenario *sc, unsigned int k)
{
	const char *name = NULL;
	unsigned int t;

	for (t = 0; t < sc->nr_threads; t++) {
		const struct sim_counter_set *set = sim_thread_final_ctrs(sc, t);
		const char *n;

		if (k >= set->n)
			continue;
		n = sim_event_name(set->c[k].event);
		if (name && strcmp(name, n))
			return NULL;
		name = n;
	}
	return name;
}

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
	"#393b79", "#637939",
};
#define NPAL	(sizeof(palette) / sizeof(palette[0]))

static const char *const dashes[] = { "", "7 4", "2 3", "9 3 2 3", "14 4", "2 3 2 3 8 3" };
#define NDASH	(sizeof(dashes) / sizeof(dashes[0]))

/* Many series: one colour per thread, one line style per counter. */
struct svg_style {
	bool grouped;
};

static const char *ser_color(const struct svg_style *st, unsigned int t, unsigned int ser)
{
	return palette[(st->grouped ? t : ser) % NPAL];
}

static void ser_dash(FILE *f, const struct svg_style *st, unsigned int k, unsigned int ser)
{
	const char *d = st->grouped ? dashes[k % NDASH] : (ser / NPAL) % 2 ? "6 3" : "";

	if (*d)
		fprintf(f, " stroke-dasharray=\"%s\"", d);
}

struct svg_scale {
	bool log;
	double max;		/* linear: top of the axis; log: decades */
	unsigned int nsteps;
};

static double sx(const struct svg_scale *s, double step)
{
	return PLOT_X + PLOT_W * (s->nsteps ? step / s->nsteps : 0.0);
}

static double sy(const struct svg_scale *s, uint64_t v)
{
	double y = s->log ? log10(1.0 + (double)v) : (double)v;

	return PLOT_Y + PLOT_H - PLOT_H * (s->max > 0 ? y / s->max : 0.0);
}

/* 1234567 -> "1.23M" */
static void short_num(char *buf, size_t len, double v)
{
	static const char *const suf[] = { "", "k", "M", "G", "T", "P", "E", "Z" };
	unsigned int i = 0;

	while (v >= 1000.0 && i < 7) {
		v /= 1000.0;
		i++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f%s", v, suf[i]);
	else
		snprintf(buf, len, "%.3g%s", v, suf[i]);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* One picture being drawn: the series (thread, counter index) and their scale. */
struct svg_plot {
	FILE *f;
	const struct scenario *sc;
	const struct sim_result *res, *truth;
	unsigned int n;				/* steps */
	unsigned int nser;			/* series */
	unsigned int first[SIM_MAX_THREADS + 1];	/* a thread's first series */
	unsigned int max_k;			/* most series of one thread */
	uint64_t *val;				/* exact count of a series after each step */
	unsigned char *has;			/* ... when the series exists then */
	uint64_t vmax, vmin_pos;
	struct svg_scale y;
	struct svg_style style;
};

static size_t at(const struct svg_plot *p, unsigned int ser, unsigned int step)
{
	return (size_t)ser * (p->n + 1) + step;
}

/* The series: one per (thread, counter index) the thread ever has. */
static void plot_series_layout(struct svg_plot *p)
{
	const struct scenario *sc = p->sc;
	unsigned int t, i;

	for (t = 0; t < sc->nr_threads; t++) {
		unsigned int most = sc->threads[t].ctrs.n;

		for (i = 0; i < p->n; i++)
			if (sc->steps[i].kind == SIM_STEP_CONTROL && sc->steps[i].thread == (int)t &&
			    sc->steps[i].ctrs.n > most)
				most = sc->steps[i].ctrs.n;
		p->first[t] = p->nser;
		p->nser += most;
		if (most > p->max_k)
			p->max_k = most;
	}
	p->first[sc->nr_threads] = p->nser;
}

/* The exact counts after each step (a replay of the truth), and their range. */
static int plot_collect(struct svg_plot *p)
{
	const struct scenario *sc = p->sc;
	unsigned int t, k, s, r;
	struct sim_replay rp;
	char why[200];

	p->val = calloc((size_t)p->nser * (p->n + 1) + 1, sizeof(*p->val));
	p->has = calloc((size_t)p->nser * (p->n + 1) + 1, 1);
	if (!p->val || !p->has || sim_replay_init(&rp, sc))
		return -1;
	p->vmin_pos = UINT64_MAX;
	for (s = 0; s <= p->n; s++) {
		if (s > 0 && sim_replay_step(&rp, &sc->steps[s - 1], why, sizeof(why)))
			break;
		for (t = 0; t < sc->nr_threads; t++)
			for (k = 0; k < rp.ctrs[t].n; k++) {
				size_t i = at(p, p->first[t] + k, s);

				p->val[i] = rp.truth[t][k];
				p->has[i] = 1;
				if (p->val[i] > p->vmax)
					p->vmax = p->val[i];
				if (p->val[i] && p->val[i] < p->vmin_pos)
					p->vmin_pos = p->val[i];
			}
	}
	sim_replay_free(&rp);
	for (r = 0; r < p->res->nr_reads; r++)
		for (k = 0; k < p->res->reads[r].nr_counters; k++)
			if (p->res->reads[r].counts[k] > p->vmax)
				p->vmax = p->res->reads[r].counts[k];
	for (t = 0; t < sc->nr_threads; t++)
		for (k = 0; k < p->res->threads[t].nr_counters; k++)
			if (p->res->threads[t].ctr[k].count > p->vmax)
				p->vmax = p->res->threads[t].ctr[k].count;
	return 0;
}

/* Log scale when the values span more than three decades; else round steps. */
static void plot_scale(struct svg_plot *p)
{
	p->y.nsteps = p->n;
	p->y.log = p->vmin_pos != UINT64_MAX && (double)p->vmax / (double)p->vmin_pos > 1000.0;
	if (p->y.log) {
		p->y.max = ceil(log10(1.0 + (double)p->vmax));
	} else {
		double step = 1;

		while (step * 5 < (double)p->vmax)
			step *= (step * 2 * 5 >= (double)p->vmax) ? 2 : 10;
		p->y.max = p->vmax ? ceil((double)p->vmax / step) * step : 1;
	}
	p->style.grouped = p->nser > 12;
}

/* The document, tall enough for the legend, and its title. */
static void plot_header(const struct svg_plot *p, const char *title)
{
	unsigned int entries = p->style.grouped ? p->sc->nr_threads : p->nser, height;
	FILE *f = p->f;

	entries = entries > LEGEND_MAX ? LEGEND_MAX + 1 : entries;
	if (p->style.grouped)
		entries += 2 + (p->max_k < NDASH ? p->max_k : NDASH);
	height = PLOT_Y + 40 + 17 * (entries + 5);
	if (height < SVG_H)
		height = SVG_H;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
		SVG_W, height, SVG_W, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"16\" font-weight=\"bold\">", PLOT_X);
	xml_text(f, title);
	fprintf(f, " \xe2\x80\x94 per-thread counts over the steps (pmu %s)</text>\n",
		p->sc->pmu.name);
}

/* One horizontal grid line at @y with its label. */
static void grid_line(FILE *f, double y, const char *label)
{
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
		PLOT_X, y, PLOT_X + PLOT_W, y);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PLOT_X - 6, y + 4,
		label);
}

/* Grid, both axes with their ticks, the control steps, the frame. */
static void plot_axes(const struct svg_plot *p)
{
	unsigned int i, every = 1, mant = 1;	/* x ticks every 1, 2, 5, 10, 20, 50, ... */
	FILE *f = p->f;
	char buf[32];

	if (p->y.log) {
		unsigned int d, skip = p->y.max > 12 ? 2 : 1;

		for (d = 0; d <= (unsigned int)p->y.max; d += skip) {
			short_num(buf, sizeof(buf), pow(10, d));
			grid_line(f, PLOT_Y + PLOT_H - PLOT_H * d / p->y.max, d ? buf : "0");
		}
	} else {
		for (i = 0; i <= 5; i++) {
			short_num(buf, sizeof(buf), p->y.max * i / 5);
			grid_line(f, PLOT_Y + PLOT_H - PLOT_H * i / 5.0, buf);
		}
	}
	while (p->n / every > 10) {
		mant = mant == 1 ? 2 : mant == 2 ? 5 : 1;
		every = mant == 1 ? every * 2 : mant == 2 ? every * 2 : every * 5 / 2;
	}
	for (i = 0; i <= p->n; i += every) {
		double x = sx(&p->y, i);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>\n",
			x, PLOT_Y + PLOT_H, x, PLOT_Y + PLOT_H + 5);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n", x,
			PLOT_Y + PLOT_H + 19, i);
	}
	for (i = 0; i < p->n; i++)
		if (p->sc->steps[i].kind == SIM_STEP_CONTROL)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"4 3\"/>\n",
				sx(&p->y, i + 1), PLOT_Y, sx(&p->y, i + 1), PLOT_Y + PLOT_H);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
		PLOT_X, PLOT_Y, PLOT_W, PLOT_H);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step (after step i; dashed: control)</text>\n",
		PLOT_X + PLOT_W / 2, PLOT_Y + PLOT_H + 40);
	fprintf(f, "<text transform=\"translate(24 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		PLOT_Y + PLOT_H / 2, p->y.log ? "count (events, log scale)" : "count (events)");
}

/* The exact counts as lines, broken where a series does not exist. */
static void plot_lines(const struct svg_plot *p)
{
	unsigned int t, k, s;
	FILE *f = p->f;

	for (t = 0; t < p->sc->nr_threads; t++) {
		for (k = 0; k < p->first[t + 1] - p->first[t]; k++) {
			unsigned int ser = p->first[t] + k;
			bool open = false;

			for (s = 0; s <= p->n; s++) {
				size_t i = at(p, ser, s);

				if (!p->has[i]) {
					if (open)
						fprintf(f, "\"/>\n");
					open = false;
					continue;
				}
				if (!open) {
					fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
						ser_color(&p->style, t, ser));
					ser_dash(f, &p->style, k, ser);
					fprintf(f, " points=\"");
				}
				fprintf(f, "%.1f,%.1f ", sx(&p->y, s), sy(&p->y, p->val[i]));
				open = true;
			}
			if (open)
				fprintf(f, "\"/>\n");
		}
	}
}

/* pmuvirt's values as markers: the threads' reads, then the final counts. */
static void plot_marks(const struct svg_plot *p)
{
	const struct sim_result *res = p->res, *truth = p->truth;
	unsigned int t, k, r;
	FILE *f = p->f;

	for (r = 0; r < res->nr_reads; r++) {
		const struct sim_read_result *a = &res->reads[r], *b = &truth->reads[r];
		unsigned int stepno = 0;

		if (!read_step(p->sc, r, &stepno))
			continue;
		for (k = 0; k < a->nr_counters; k++) {
			unsigned int ser = p->first[a->thread] + k;
			double x = sx(&p->y, stepno + 1), y = sy(&p->y, a->counts[k]);

			if (k < b->nr_counters && a->counts[k] == b->counts[k])
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"%s\" stroke-width=\"2\"/>\n",
					x, y, ser_color(&p->style, a->thread, ser));
			else
				fprintf(f, "<path d=\"M%.1f %.1f l8 8 m0 -8 l-8 8\" transform=\"translate(-4 -4)\" stroke=\"red\" stroke-width=\"3\"/>\n",
					x, y);
		}
	}
	for (t = 0; t < p->sc->nr_threads; t++)
		for (k = 0; k < res->threads[t].nr_counters; k++) {
			unsigned int ser = p->first[t] + k;
			double x = sx(&p->y, p->n), y = sy(&p->y, res->threads[t].ctr[k].count);
			bool ok = res->threads[t].ctr[k].count == truth->threads[t].ctr[k].count;

			fprintf(f, "<path d=\"M%.1f %.1f l6 6 l-6 6 l-6 -6 z\" transform=\"translate(0 -6)\" fill=\"%s\" stroke=\"%s\"/>\n",
				x, y, ok ? ser_color(&p->style, t, ser) : "red", ok ? "#222" : "red");
		}
}

/* Legend rows of the threads (and counters when not grouped); returns the next row's y. */
static double legend_series(const struct svg_plot *p, double ly, unsigned int lx)
{
	const struct scenario *sc = p->sc;
	unsigned int t, k, shown = 0;
	FILE *f = p->f;
	char buf[160];

	for (t = 0; t < sc->nr_threads; t++)
		for (k = 0; k < p->first[t + 1] - p->first[t]; k++) {
			unsigned int ser = p->first[t] + k;
			const struct sim_counter_set *set = sim_thread_final_ctrs(sc, t);
			const struct sim_counter *c = k < set->n ? &set->c[k] : &set->c[0];

			if (p->style.grouped && k)
				continue;
			if (shown++ >= LEGEND_MAX)
				continue;
			sim_thread_label(sc, t, buf, sizeof(buf) / 2);
			fprintf(f, "<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"",
				lx, ly - 4, lx + 24, ly - 4, ser_color(&p->style, t, ser));
			if (!p->style.grouped)
				ser_dash(f, &p->style, k, ser);
			fprintf(f, "/>\n<text x=\"%u\" y=\"%.1f\">", lx + 30, ly);
			xml_text(f, buf);
			if (!p->style.grouped)
				fprintf(f, " %s%s", sim_event_name(c->event), c->period ? " (i)" : "");
			fprintf(f, "</text>\n");
			ly += 17;
		}
	if (shown > LEGEND_MAX) {
		fprintf(f, "<text x=\"%u\" y=\"%.1f\">\xe2\x80\xa6 and %u more</text>\n", lx, ly,
			shown - LEGEND_MAX);
		ly += 17;
	}
	return ly;
}

/* Grouped legend: the line style of each counter index. */
static double legend_styles(const struct svg_plot *p, double ly, unsigned int lx)
{
	unsigned int k;
	FILE *f = p->f;

	ly += 10;
	fprintf(f, "<text x=\"%u\" y=\"%.1f\" font-weight=\"bold\">counter (line style)</text>\n",
		lx, ly);
	ly += 18;
	for (k = 0; k < p->max_k && k < NDASH; k++) {
		const char *name = counter_column_name(p->sc, k);

		fprintf(f, "<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"2\"",
			lx, ly - 4, lx + 24, ly - 4);
		ser_dash(f, &p->style, k, 0);
		fprintf(f, "/>\n<text x=\"%u\" y=\"%.1f\">", lx + 30, ly);
		if (name)
			fprintf(f, "%s", name);
		else
			fprintf(f, "counter %u", k + 1);
		fprintf(f, "%s</text>\n", p->max_k > NDASH && k + 1 == NDASH ? " (styles repeat)" : "");
		ly += 17;
	}
	return ly;
}

/* What the line and the three markers mean. */
static void legend_keys(FILE *f, double ly)
{
	static const struct {
		const char *fmt;	/* the symbol at (x, y) */
		int dx, dy;
		const char *text;
	} keys[] = {
		{ "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"2\"/>\n",
		  0, -4, "exact count (truth)" },
		{ "<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"#333\" stroke-width=\"2\"/>\n",
		  12, -4, "read by the thread" },
		{ "<path d=\"M%d %.1f l6 6 l-6 6 l-6 -6 z\" fill=\"#333\"/>\n", 12, -10,
		  "pmuvirt's final count" },
		{ "<path d=\"M%d %.1f l8 8 m0 -8 l-8 8\" stroke=\"red\" stroke-width=\"3\"/>\n", 8, -9,
		  "differs from the truth" },
	};
	unsigned int i;
	int x = PLOT_X + PLOT_W + 24;

	ly += 10;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (i)
			ly += 17;
		if (!i)
			fprintf(f, keys[i].fmt, x, ly - 4, x + 24, ly - 4);
		else
			fprintf(f, keys[i].fmt, x + keys[i].dx, ly + keys[i].dy);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text>\n", x + 30, ly, keys[i].text);
	}
}

static void plot_legend(const struct svg_plot *p)
{
	double ly = PLOT_Y + 6;
	unsigned int lx = PLOT_X + PLOT_W + 24;

	fprintf(p->f, "<text x=\"%u\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", lx, ly,
		p->style.grouped ? "thread (colour)" : "thread counter");
	ly = legend_series(p, ly + 18, lx);
	if (p->style.grouped)
		ly = legend_styles(p, ly, lx);
	legend_keys(p->f, ly);
}

int sim_output_svg(FILE *f, const struct scenario *sc, const struct sim_result *res,
		   const struct sim_result *truth, const char *title)
{
	struct svg_plot p = { .f = f, .sc = sc, .res = res, .truth = truth, .n = sc->nr_steps };
	int ret = -1;

	plot_series_layout(&p);
	if (!plot_collect(&p)) {
		plot_scale(&p);
		plot_header(&p, title);
		plot_axes(&p);
		plot_lines(&p);
		plot_marks(&p);
		plot_legend(&p);
		fprintf(f, "</svg>\n");
		ret = 0;
	}
	free(p.val);
	free(p.has);
	return ret;
}
