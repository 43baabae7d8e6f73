// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* libpmuvirt-user: attach, map and read pmuvirt.ko contexts. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <pmuvirt/user.h>
#include "libpmuvirt-user.h"

#ifdef __powerpc64__
/* POWER: the time base, and PMC n (1-6) through its user-mode alias UPMCn. */
static inline uint64_t rd_tsc(void)
{
	uint64_t tb;

	__asm__ __volatile__("mftb %0" : "=r"(tb));
	return tb;
}

#define RD_UPMC(n) ({ uint64_t _v; __asm__ __volatile__("mfspr %0, %1" : "=r"(_v) : "i"(770 + (n))); _v; })

static inline uint64_t rd_pmc(uint32_t idx)
{
	switch (idx) {
	case 0: return RD_UPMC(1);
	case 1: return RD_UPMC(2);
	case 2: return RD_UPMC(3);
	case 3: return RD_UPMC(4);
	case 4: return RD_UPMC(5);
	default: return RD_UPMC(6);	/* the kernel gives indexes 0-5 only */
	}
}
#else
static inline uint64_t rd_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rd_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}
#endif

int pmuvirt_user_open(int cloexec)
{
	return open(PMUVIRT_DEVICE, O_RDWR | (cloexec ? O_CLOEXEC : 0));
}

static size_t vcpus_len(const struct pmuvirt_user *u)
{
	return (size_t)u->below.nr_frames * (size_t)sysconf(_SC_PAGESIZE);
}

/* The VCPU records below the thread's record; failure leaves reads to the ioctl. */
static void map_vcpus(struct pmuvirt_user *u)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	memset(&u->below, 0, sizeof(u->below));
	u->below.size = sizeof(u->below);
	u->below.version = PMUVIRT_LINUX_VERSION;
	if (ioctl(u->fd, PMUVIRT_IOC_BELOW, &u->below) ||
	    u->below.kind != PMUVIRT_BELOW_XEN || !u->below.nr_frames || !u->below.per_frame ||
	    u->below.record_size != sizeof(struct pmuvirt_shared_ctx) ||
	    (uint64_t)u->below.per_frame * u->below.record_size > (uint64_t)page)
		return;
	p = mmap(NULL, vcpus_len(u), PROT_READ, MAP_SHARED, u->fd,
		 (off_t)u->below.pgoff * page);
	if (p != MAP_FAILED)
		u->vcpus = p;
}

/* The thread's own record; without it every read takes the ioctl. */
static void map_record(struct pmuvirt_user *u)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, u->fd, 0);

	if (p != MAP_FAILED)
		u->rec = p;
}

int pmuvirt_user_attach(struct pmuvirt_user *u, int fd, const struct pmuvirt_control *ctl,
			uint32_t flags, uint32_t signo)
{
	return pmuvirt_user_attach_ring(u, fd, ctl, flags, signo, 0);
}

int pmuvirt_user_attach_ring(struct pmuvirt_user *u, int fd, const struct pmuvirt_control *ctl,
			     uint32_t flags, uint32_t signo, uint32_t sample_pages)
{
	return pmuvirt_user_attach_records(u, fd, ctl, flags, signo, sample_pages, 0, 0);
}

int pmuvirt_user_attach_records(struct pmuvirt_user *u, int fd, const struct pmuvirt_control *ctl,
				uint32_t flags, uint32_t signo, uint32_t sample_pages,
				uint32_t sample_format, uint32_t chain_depth)
{
	struct pmuvirt_attach a;

	memset(u, 0, sizeof(*u));
	u->fd = fd;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.version = PMUVIRT_LINUX_VERSION;
	a.flags = flags;
	a.signo = signo;
	a.sample_pages = sample_pages;
	a.sample_format = sample_format;
	a.chain_depth = chain_depth;
	a.control = *ctl;
	if (ioctl(fd, PMUVIRT_IOC_ATTACH, &a))
		return -1;
	u->caps = a.caps;
	u->nr_counters = ctl->nr_counters;
	map_record(u);
	if (u->caps & PMUVIRT_UREAD_VCPU)
		map_vcpus(u);
	return 0;
}

int pmuvirt_user_parse_fields(const char *list, uint32_t *format)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} names[] = {
		{ "ip", PMUVIRT_SAMPLE_FMT_IP }, { "time", PMUVIRT_SAMPLE_FMT_TIME },
		{ "mode", PMUVIRT_SAMPLE_FMT_MODE }, { "values", PMUVIRT_SAMPLE_FMT_VALUES },
		{ "chain", PMUVIRT_SAMPLE_FMT_CHAIN },
	};
	const char *p = list;
	uint32_t f = 0;
	unsigned int i;

	while (*p) {
		size_t n = strcspn(p, ",");

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		f |= names[i].bit;
		p += n;
		if (*p == ',' && *++p == 0)
			return -1;
	}
	if (!f)
		return -1;
	*format = f;
	return 0;
}

int pmuvirt_user_ring_open(int fd, struct pmuvirt_user_ring *ring)
{
	struct pmuvirt_sample_open o;
	void *p;

	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.version = PMUVIRT_LINUX_VERSION;
	if (ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o))
		return -1;
	ring->fd = o.fd;
	ring->tid = o.tid;
	ring->pid = o.pid;
	ring->pages = o.pages;
	ring->dropped = o.dropped;
	memcpy(ring->comm, o.comm, sizeof(o.comm));
	ring->len = (size_t)o.pages * (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, ring->len, PROT_READ, MAP_SHARED, o.fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		close(o.fd);
		ring->fd = -1;
		errno = e;
		return -1;
	}
	ring->map = p;
	if (pmuvirt_sample_reader_init(&ring->r, p, ring->len)) {
		pmuvirt_user_ring_close(ring);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int pmuvirt_user_sample_tail(int fd, const struct pmuvirt_sample_reader *r)
{
	struct pmuvirt_sample_tail t;

	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.version = PMUVIRT_LINUX_VERSION;
	t.tail = r->tail;
	return ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) ? -1 : 0;
}

void pmuvirt_user_ring_close(struct pmuvirt_user_ring *ring)
{
	if (ring->map)
		munmap((void *)ring->map, ring->len);
	if (ring->fd >= 0)
		close(ring->fd);
	ring->map = NULL;
	ring->fd = -1;
}

/* One request that answers in a struct pmuvirt_counts. */
static int counts_ioctl(int fd, unsigned long cmd, struct pmuvirt_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->version = PMUVIRT_LINUX_VERSION;
	return ioctl(fd, cmd, c) ? -1 : 0;
}

int pmuvirt_user_adopt(struct pmuvirt_user *u, int fd)
{
	struct pmuvirt_counts c;
	int tsc = PR_TSC_ENABLE;

	memset(u, 0, sizeof(*u));
	u->fd = fd;
	if (counts_ioctl(fd, PMUVIRT_IOC_READ, &c))
		return -1;
	u->nr_counters = c.nr_counters;
	/* the attach's caps are not known here: rdpmc reads take the ioctl */
	if (prctl(PR_GET_TSC, &tsc, 0, 0, 0) || tsc == PR_TSC_ENABLE)
		u->caps = PMUVIRT_UREAD_TSC;
	map_record(u);
	return 0;
}

static int count_ioctl(struct pmuvirt_user *u, unsigned long cmd, uint64_t *vals)
{
	struct pmuvirt_counts c;

	if (counts_ioctl(u->fd, cmd, &c))
		return -1;
	if (vals)
		memcpy(vals, c.value, sizeof(uint64_t) * u->nr_counters);
	return 0;
}

int pmuvirt_user_resume(const struct pmuvirt_user *u, uint64_t *counts, uint32_t *mask)
{
	struct pmuvirt_counts c;

	if (counts_ioctl(u->fd, PMUVIRT_IOC_RESUME, &c))
		return -1;
	if (counts)
		memcpy(counts, c.value, sizeof(uint64_t) * u->nr_counters);
	if (mask)
		*mask = c.ovf_mask;
	return 0;
}

int pmuvirt_user_read_ioctl(struct pmuvirt_user *u, uint64_t *vals)
{
	u->ioctl_reads++;
	return count_ioctl(u, PMUVIRT_IOC_READ, vals);
}

/* What a thread's record sits on: this CPU's TSC or counters. */
static int below_hw(void *arg, uint32_t cpu, uint32_t index, uint64_t *val)
{
	const struct pmuvirt_user *u = arg;

	if (cpu == PMUVIRT_SHARED_NONE)
		return -PMUVIRT_USER_EAGAIN;
	if (index & PMUVIRT_SHARED_TSC) {
		if (!(u->caps & PMUVIRT_UREAD_TSC))
			return -PMUVIRT_USER_EAGAIN;
		*val = rd_tsc();
		return 0;
	}
	if (!(u->caps & PMUVIRT_UREAD_PMC))
		return -PMUVIRT_USER_EAGAIN;
	*val = rd_pmc(index - 1);
	return 0;
}

/* What a thread of a guest sits on: counter index - 1 of VCPU record @vcpu. */
static int below_vcpu(void *arg, uint32_t vcpu, uint32_t index, uint64_t *val)
{
	const struct pmuvirt_user *u = arg;
	const struct pmuvirt_shared_ctx *rec;

	if (vcpu == PMUVIRT_SHARED_NONE)
		return -PMUVIRT_USER_EAGAIN;
	if (vcpu >= u->below.nr_records)
		return -PMUVIRT_USER_ERANGE;
	rec = (const void *)(u->vcpus + (size_t)(vcpu / u->below.per_frame) * sysconf(_SC_PAGESIZE) +
			     (size_t)(vcpu % u->below.per_frame) * u->below.record_size);
	/* the VCPU's counters sit on the hardware of the physical CPU it runs on */
	return pmuvirt_shared_read(rec, index - 1, 1, below_hw, arg, val);
}

int pmuvirt_user_read(struct pmuvirt_user *u, uint64_t *vals)
{
	pmuvirt_below_fn below = below_hw;

	if (u->caps & PMUVIRT_UREAD_VCPU)
		below = u->vcpus ? below_vcpu : NULL;
	if (u->rec && below && !pmuvirt_shared_read(u->rec, 0, u->nr_counters, below, u, vals)) {
		u->direct_reads++;
		return 0;
	}
	return pmuvirt_user_read_ioctl(u, vals);
}

int pmuvirt_user_detach(struct pmuvirt_user *u, uint64_t *final)
{
	int ret = count_ioctl(u, PMUVIRT_IOC_DETACH, final);

	if (u->rec)
		munmap((void *)u->rec, (size_t)sysconf(_SC_PAGESIZE));
	if (u->vcpus)
		munmap((void *)u->vcpus, vcpus_len(u));
	u->rec = NULL;
	u->vcpus = NULL;
	return ret;
}

static const struct {
	const char *name;
	uint32_t event;
} names[] = {
	{ "instructions", PMUVIRT_EV_INSTRUCTIONS },
	{ "cycles", PMUVIRT_EV_CYCLES },
	{ "branches", PMUVIRT_EV_BRANCHES },
	{ "branch-misses", PMUVIRT_EV_BRANCH_MISSES },
	{ "tsc", PMUVIRT_EV_TSC },
};

static int parse_one(const char *s, size_t len, struct pmuvirt_counter_ctl *c)
{
	char buf[64], *mod, *end;
	unsigned int i;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	memset(c, 0, sizeof(*c));
	c->flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	mod = strchr(buf, ':');
	if (mod) {
		*mod++ = 0;
		c->flags = 0;
		for (; *mod; mod++) {
			if (*mod == 'u')
				c->flags |= PMUVIRT_CTR_USER;
			else if (*mod == 'k')
				c->flags |= PMUVIRT_CTR_KERNEL;
			else
				return -1;
		}
	}
	if (buf[0] == 'r' && buf[1]) {
		c->event = strtoull(buf + 1, &end, 16);
		if (*end)
			return -1;
		c->flags |= PMUVIRT_CTR_RAW;
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(buf, names[i].name))
			continue;
		c->event = names[i].event;
		if (c->event == PMUVIRT_EV_TSC)
			c->flags = 0;
		return 0;
	}
	return -1;
}

int pmuvirt_user_parse_events(const char *list, struct pmuvirt_control *ctl)
{
	const char *p = list;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (ctl->nr_counters >= PMUVIRT_MAX_COUNTERS) {
			errno = ENOSPC;
			return -1;
		}
		if (parse_one(p, len, &ctl->counter[ctl->nr_counters])) {
			errno = EINVAL;
			return -1;
		}
		ctl->nr_counters++;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
