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

int sim_output_svg(FILE *f, const struct scenario *sc, const struct sim_result *res,
		   const struct sim_result *truth, const char *title)
{
	unsigned int nser = 0, t, k, i, s, r, n = sc->nr_steps, max_k = 0, height;
	struct svg_style style = { false };
	unsigned int first[SIM_MAX_THREADS + 1];
	struct sim_replay rp;
	struct svg_scale sc_y = { false, 0, n };
	uint64_t *val = NULL, vmax = 0, vmin_pos = UINT64_MAX;
	unsigned char *has = NULL;
	char buf[160], why[200];

	/* One series per (thread, counter index). */
	for (t = 0; t < sc->nr_threads; t++) {
		unsigned int most = sc->threads[t].ctrs.n;

		for (i = 0; i < n; i++)
			if (sc->steps[i].kind == SIM_STEP_CONTROL && sc->steps[i].thread == (int)t &&
			    sc->steps[i].ctrs.n > most)
				most = sc->steps[i].ctrs.n;
		first[t] = nser;
		nser += most;
	}
	first[sc->nr_threads] = nser;
	val = calloc((size_t)nser * (n + 1) + 1, sizeof(*val));
	has = calloc((size_t)nser * (n + 1) + 1, 1);
	if (!val || !has || sim_replay_init(&rp, sc)) {
		free(val);
		free(has);
		return -1;
	}
	for (s = 0; s <= n; s++) {
		if (s > 0 && sim_replay_step(&rp, &sc->steps[s - 1], why, sizeof(why)))
			break;
		for (t = 0; t < sc->nr_threads; t++)
			for (k = 0; k < rp.ctrs[t].n; k++) {
				size_t at = (size_t)(first[t] + k) * (n + 1) + s;

				val[at] = rp.truth[t][k];
				has[at] = 1;
				if (val[at] > vmax)
					vmax = val[at];
				if (val[at] && val[at] < vmin_pos)
					vmin_pos = val[at];
			}
	}
	sim_replay_free(&rp);
	for (r = 0; r < res->nr_reads; r++)
		for (k = 0; k < res->reads[r].nr_counters; k++)
			if (res->reads[r].counts[k] > vmax)
				vmax = res->reads[r].counts[k];
	for (t = 0; t < sc->nr_threads; t++)
		for (k = 0; k < res->threads[t].nr_counters; k++)
			if (res->threads[t].ctr[k].count > vmax)
				vmax = res->threads[t].ctr[k].count;

	/* Log scale when the values span more than three decades. */
	sc_y.log = vmin_pos != UINT64_MAX && (double)vmax / (double)vmin_pos > 1000.0;
	if (sc_y.log) {
		sc_y.max = ceil(log10(1.0 + (double)vmax));
	} else {
		double step = 1;

		while (step * 5 < (double)vmax)
			step *= (step * 2 * 5 >= (double)vmax) ? 2 : 10;
		sc_y.max = vmax ? ceil((double)vmax / step) * step : 1;
	}

	style.grouped = nser > 12;
	for (t = 0; t < sc->nr_threads; t++)
		if (first[t + 1] - first[t] > max_k)
			max_k = first[t + 1] - first[t];
	{
		unsigned int entries = style.grouped ? sc->nr_threads : nser;

		entries = entries > LEGEND_MAX ? LEGEND_MAX + 1 : entries;
		if (style.grouped)
			entries += 2 + (max_k < NDASH ? max_k : NDASH);
		height = PLOT_Y + 40 + 17 * (entries + 5);
		if (height < SVG_H)
			height = SVG_H;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
		SVG_W, height, SVG_W, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"16\" font-weight=\"bold\">", PLOT_X);
	xml_text(f, title);
	fprintf(f, " \xe2\x80\x94 per-thread counts over the steps (pmu %s)</text>\n",
		sc->pmu.name);

	/* Grid and y axis. */
	if (sc_y.log) {
		unsigned int d, every = sc_y.max > 12 ? 2 : 1;

		for (d = 0; d <= (unsigned int)sc_y.max; d += every) {
			double y = PLOT_Y + PLOT_H - PLOT_H * d / sc_y.max;

			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
				PLOT_X, y, PLOT_X + PLOT_W, y);
			short_num(buf, sizeof(buf), pow(10, d));
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				PLOT_X - 6, y + 4, d ? buf : "0");
		}
	} else {
		for (i = 0; i <= 5; i++) {
			double v = sc_y.max * i / 5, y = PLOT_Y + PLOT_H - PLOT_H * i / 5.0;

			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
				PLOT_X, y, PLOT_X + PLOT_W, y);
			short_num(buf, sizeof(buf), v);
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				PLOT_X - 6, y + 4, buf);
		}
	}
	/* x axis ticks: about ten. */
	{
		unsigned int every = 1;

		unsigned int mant = 1;	/* 1, 2, 5, 10, 20, 50, ... */

		while (n / every > 10) {
			mant = mant == 1 ? 2 : mant == 2 ? 5 : 1;
			every = mant == 1 ? every * 2 : mant == 2 ? every * 2 : every * 5 / 2;
		}
		for (i = 0; i <= n; i += every) {
			double x = sx(&sc_y, i);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>\n",
				x, PLOT_Y + PLOT_H, x, PLOT_Y + PLOT_H + 5);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n", x,
				PLOT_Y + PLOT_H + 19, i);
		}
	}
	/* Control steps as dashed verticals. */
	for (i = 0; i < n; i++)
		if (sc->steps[i].kind == SIM_STEP_CONTROL)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"4 3\"/>\n",
				sx(&sc_y, i + 1), PLOT_Y, sx(&sc_y, i + 1), PLOT_Y + PLOT_H);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
		PLOT_X, PLOT_Y, PLOT_W, PLOT_H);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step (after step i; dashed: control)</text>\n",
		PLOT_X + PLOT_W / 2, PLOT_Y + PLOT_H + 40);
	fprintf(f, "<text transform=\"translate(24 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		PLOT_Y + PLOT_H / 2, sc_y.log ? "count (events, log scale)" : "count (events)");

	/* Series: exact counts as lines, pmuvirt's values as markers. */
	for (t = 0; t < sc->nr_threads; t++) {
		for (k = 0; k < first[t + 1] - first[t]; k++) {
			unsigned int ser = first[t] + k;
			const char *col = ser_color(&style, t, ser);
			bool open = false;

			for (s = 0; s <= n; s++) {
				size_t at = (size_t)ser * (n + 1) + s;

				if (!has[at]) {
					if (open)
						fprintf(f, "\"/>\n");
					open = false;
					continue;
				}
				if (!open) {
					fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
						col);
					ser_dash(f, &style, k, ser);
					fprintf(f, " points=\"");
				}
				fprintf(f, "%.1f,%.1f ", sx(&sc_y, s), sy(&sc_y, val[at]));
				open = true;
			}
			if (open)
				fprintf(f, "\"/>\n");
		}
	}
	for (r = 0; r < res->nr_reads; r++) {
		const struct sim_read_result *a = &res->reads[r], *b = &truth->reads[r];
		unsigned int stepno = 0;

		if (!read_step(sc, r, &stepno))
			continue;
		for (k = 0; k < a->nr_counters; k++) {
			unsigned int ser = first[a->thread] + k;
			double x = sx(&sc_y, stepno + 1), y = sy(&sc_y, a->counts[k]);

			if (k < b->nr_counters && a->counts[k] == b->counts[k])
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"%s\" stroke-width=\"2\"/>\n",
					x, y, ser_color(&style, a->thread, ser));
			else
				fprintf(f, "<path d=\"M%.1f %.1f l8 8 m0 -8 l-8 8\" transform=\"translate(-4 -4)\" stroke=\"red\" stroke-width=\"3\"/>\n",
					x, y);
		}
	}
	for (t = 0; t < sc->nr_threads; t++)
		for (k = 0; k < res->threads[t].nr_counters; k++) {
			unsigned int ser = first[t] + k;
			double x = sx(&sc_y, n), y = sy(&sc_y, res->threads[t].ctr[k].count);
			bool ok = res->threads[t].ctr[k].count == truth->threads[t].ctr[k].count;

			fprintf(f, "<path d=\"M%.1f %.1f l6 6 l-6 6 l-6 -6 z\" transform=\"translate(0 -6)\" fill=\"%s\" stroke=\"%s\"/>\n",
				x, y, ok ? ser_color(&style, t, ser) : "red", ok ? "#222" : "red");
		}

	/* Legend. */
	{
		double ly = PLOT_Y + 6;
		unsigned int shown = 0, lx = PLOT_X + PLOT_W + 24;

		fprintf(f, "<text x=\"%u\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", lx, ly,
			style.grouped ? "thread (colour)" : "thread counter");
		ly += 18;
		for (t = 0; t < sc->nr_threads; t++)
			for (k = 0; k < first[t + 1] - first[t]; k++) {
				unsigned int ser = first[t] + k;
				const struct sim_counter_set *set = sim_thread_final_ctrs(sc, t);
				const struct sim_counter *c = k < set->n ? &set->c[k] : &set->c[0];

				if (style.grouped && k)
					continue;
				if (shown++ >= LEGEND_MAX)
					continue;
				sim_thread_label(sc, t, buf, sizeof(buf) / 2);
				fprintf(f, "<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"",
					lx, ly - 4, lx + 24, ly - 4, ser_color(&style, t, ser));
				if (!style.grouped)
					ser_dash(f, &style, k, ser);
				fprintf(f, "/>\n<text x=\"%u\" y=\"%.1f\">", lx + 30, ly);
				xml_text(f, buf);
				if (!style.grouped)
					fprintf(f, " %s%s", sim_event_name(c->event),
						c->period ? " (i)" : "");
				fprintf(f, "</text>\n");
				ly += 17;
			}
		if (shown > LEGEND_MAX) {
			fprintf(f, "<text x=\"%u\" y=\"%.1f\">\xe2\x80\xa6 and %u more</text>\n", lx,
				ly, shown - LEGEND_MAX);
			ly += 17;
		}
		if (style.grouped) {
			ly += 10;
			fprintf(f, "<text x=\"%u\" y=\"%.1f\" font-weight=\"bold\">counter (line style)</text>\n",
				lx, ly);
			ly += 18;
			for (k = 0; k < max_k && k < NDASH; k++) {
				const char *name = counter_column_name(sc, k);

				fprintf(f, "<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"2\"",
					lx, ly - 4, lx + 24, ly - 4);
				ser_dash(f, &style, k, 0);
				fprintf(f, "/>\n<text x=\"%u\" y=\"%.1f\">", lx + 30, ly);
				if (name)
					fprintf(f, "%s", name);
				else
					fprintf(f, "counter %u", k + 1);
				fprintf(f, "%s</text>\n", max_k > NDASH && k + 1 == NDASH ? " (styles repeat)" : "");
				ly += 17;
			}
		}
		ly += 10;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"2\"/>\n",
			PLOT_X + PLOT_W + 24, ly - 4, PLOT_X + PLOT_W + 48, ly - 4);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">exact count (truth)</text>\n",
			PLOT_X + PLOT_W + 54, ly);
		ly += 17;
		fprintf(f, "<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"#333\" stroke-width=\"2\"/>\n",
			PLOT_X + PLOT_W + 36, ly - 4);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">read by the thread</text>\n",
			PLOT_X + PLOT_W + 54, ly);
		ly += 17;
		fprintf(f, "<path d=\"M%d %.1f l6 6 l-6 6 l-6 -6 z\" fill=\"#333\"/>\n",
			PLOT_X + PLOT_W + 36, ly - 10);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">pmuvirt's final count</text>\n",
			PLOT_X + PLOT_W + 54, ly);
		ly += 17;
		fprintf(f, "<path d=\"M%d %.1f l8 8 m0 -8 l-8 8\" stroke=\"red\" stroke-width=\"3\"/>\n",
			PLOT_X + PLOT_W + 32, ly - 9);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">differs from the truth</text>\n",
			PLOT_X + PLOT_W + 54, ly);
	}
	fprintf(f, "</svg>\n");
	free(val);
	free(has);
	return 0;
}
