// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Checks of the Linux module's ioctl argument structs
 * (include/pmuvirt/linux.h) and the table of the ioctls, one row each
 * (PMUVIRT_LINUX_IOCTLS).  src/glue/linux/pmuvirt_ioctl.c calls
 * pmuvirt_linux_check_arg() on its copies of the caller's arguments;
 * fuzz_linux_ioctl and test_abi_check call the checks directly.
 */
#include "pmuvirt_defaults.h"
#include "pmuvirt_abi_check.h"
#include <pmuvirt/linux.h>

int pmuvirt_linux_check_hdr(const uint32_t hdr[2], size_t size)
{
	if (hdr[0] != size || hdr[1] != PMUVIRT_LINUX_VERSION)
		return -EINVAL;
	return 0;
}

/* The first two words of an argument struct of @want bytes, as pmuvirt_linux_check_hdr(). */
static int check_size_version(uint32_t size, uint32_t version, size_t want)
{
	const uint32_t hdr[2] = { size, version };

	return pmuvirt_linux_check_hdr(hdr, want);
}

int pmuvirt_linux_check_attach(const struct pmuvirt_attach *a)
{
	if (check_size_version(a->size, a->version, sizeof(*a)))
		return -EINVAL;
	if ((a->flags & ~PMUVIRT_ATTACH_FLAGS) || a->caps)
		return -EINVAL;
	/* the rings go to the file the thread reports to; the thread gets no signal */
	if ((a->flags & PMUVIRT_ATTACH_SAMPLE_FILE) &&
	    (!(a->flags & PMUVIRT_ATTACH_REPORT) || a->signo))
		return -EINVAL;
	if ((a->flags & PMUVIRT_ATTACH_SUM) && !(a->flags & PMUVIRT_ATTACH_INHERIT))
		return -EINVAL;
	if ((a->sample_format & ~PMUVIRT_SAMPLE_FMT_ALL) || a->chain_depth > PMUVIRT_CHAIN_MAX)
		return -EINVAL;
	if (a->signo > PMUVIRT_LINUX_SIGNO_MAX)
		return -EINVAL;
	if (a->sample_pages && (a->sample_pages < 2 || a->sample_pages > PMUVIRT_SAMPLE_PAGES_MAX ||
				(a->sample_pages & (a->sample_pages - 1))))
		return -EINVAL;
	return 0;
}

int pmuvirt_linux_check_sample_pages(const struct pmuvirt_attach *a)
{
	uint32_t n = a->sample_pages, i, nr = a->control.nr_counters;
	bool sampling = false;

	if (nr > PMUVIRT_MAX_COUNTERS)
		nr = PMUVIRT_MAX_COUNTERS;	/* the control's own check refuses it */
	for (i = 0; i < nr; i++)
		if (a->control.counter[i].flags & PMUVIRT_CTR_SAMPLE)
			sampling = true;
	if (!sampling)
		return (n || (a->flags & PMUVIRT_ATTACH_SAMPLE_FILE)) ? -EINVAL : 0;
	if (n < 2 || n > PMUVIRT_SAMPLE_PAGES_MAX || (n & (n - 1)))
		return -EINVAL;
	return 0;
}

int pmuvirt_linux_sample_format(const struct pmuvirt_attach *a, struct pmuvirt_sample_format *fmt)
{
	uint32_t nr = a->control.nr_counters;

	fmt->format = a->sample_format ? a->sample_format : PMUVIRT_SAMPLE_FMT_DEFAULT;
	fmt->nr_values = fmt->format & PMUVIRT_SAMPLE_FMT_VALUES ? nr : 0;
	fmt->chain_depth = a->chain_depth;
	if (!a->sample_pages)
		return a->sample_format || a->chain_depth ? -EINVAL : 0;
	return pmuvirt_sample_record_size(fmt->format, fmt->nr_values, fmt->chain_depth) ?
	       0 : -EINVAL;
}

int pmuvirt_linux_check_sample_tail(const struct pmuvirt_sample_tail *t)
{
	if (check_size_version(t->size, t->version, sizeof(*t)))
		return -EINVAL;
	return t->reserved ? -EINVAL : 0;
}

int pmuvirt_linux_check_sample_open(const struct pmuvirt_sample_open *o)
{
	if (check_size_version(o->size, o->version, sizeof(*o)))
		return -EINVAL;
	return (o->flags || o->reserved[0] || o->reserved[1]) ? -EINVAL : 0;
}

int pmuvirt_linux_check_counts(const struct pmuvirt_counts *c)
{
	if (check_size_version(c->size, c->version, sizeof(*c)))
		return -EINVAL;
	return c->reserved ? -EINVAL : 0;
}

int pmuvirt_linux_check_below(const struct pmuvirt_below *b)
{
	if (check_size_version(b->size, b->version, sizeof(*b)))
		return -EINVAL;
	return (b->flags || b->reserved) ? -EINVAL : 0;
}

/* The check of a row, on an argument of the row's size. */
#define PMUVIRT_LINUX_CHECK(NAME, name, nr, arg, who)				\
	static int check_##name(const void *a)					\
	{									\
		return pmuvirt_linux_check_##arg(a);				\
	}
PMUVIRT_LINUX_IOCTLS(PMUVIRT_LINUX_CHECK)

#define PMUVIRT_LINUX_ROW(NAME, name, nr, arg, who)				\
	[nr] = {								\
		.size = sizeof(struct pmuvirt_##arg),				\
		.caller = PMUVIRT_LINUX_CALLER_##who,				\
		.check = check_##name,						\
	},

static const struct pmuvirt_linux_ioctl ioctls[] = {
	PMUVIRT_LINUX_IOCTLS(PMUVIRT_LINUX_ROW)
};

const struct pmuvirt_linux_ioctl *pmuvirt_linux_ioctl(unsigned int nr)
{
	if (nr >= sizeof(ioctls) / sizeof(ioctls[0]) || !ioctls[nr].size)
		return NULL;
	return &ioctls[nr];
}

int pmuvirt_linux_check_arg(unsigned int nr, const void *arg, size_t len)
{
	const struct pmuvirt_linux_ioctl *row = pmuvirt_linux_ioctl(nr);

	if (!row)
		return -EOPNOTSUPP;
	if (len != row->size)
		return -EINVAL;
	return row->check(arg);
}
