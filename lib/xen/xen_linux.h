/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * What a dom0 program needs of Linux's Xen devices: the privcmd hypercall
 * and foreign-frame mapping ABI (include/uapi/xen/privcmd.h) and the event
 * channel device's VIRQ binding (include/uapi/xen/evtchn.h).  Shared by
 * pmuvirt-xenprof and the vm-xen test programs; header-only.
 */
#ifndef PMUVIRT_XEN_LINUX_H
#define PMUVIRT_XEN_LINUX_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

struct privcmd_hypercall {
	uint64_t op;
	uint64_t arg[5];
};

#define IOCTL_PRIVCMD_HYPERCALL	_IOC(_IOC_NONE, 'P', 0, sizeof(struct privcmd_hypercall))

struct privcmd_mmapbatch_v2 {
	unsigned int num;
	uint16_t dom;
	uint64_t addr;
	const unsigned long *arr;
	int *err;
};

#define IOCTL_PRIVCMD_MMAPBATCH_V2	_IOC(_IOC_NONE, 'P', 4, sizeof(struct privcmd_mmapbatch_v2))

struct ioctl_evtchn_bind_virq {
	unsigned int virq;
};

#define IOCTL_EVTCHN_BIND_VIRQ	_IOC(_IOC_NONE, 'E', 0, sizeof(struct ioctl_evtchn_bind_virq))

#define XEN_DOMID_SELF		0x7ff0u

/* A hypercall through privcmd @fd: its result, or a negative errno. */
static inline long xen_privcmd_hypercall(int fd, unsigned int op, uint64_t arg0, uint64_t arg1)
{
	struct privcmd_hypercall h = { .op = op, .arg = { arg0, arg1 } };
	long ret = ioctl(fd, IOCTL_PRIVCMD_HYPERCALL, &h);

	return ret < 0 ? -errno : ret;
}

/*
 * Map the @n machine frames @mfn of the calling domain read-only, in that
 * order, through privcmd @fd; @err receives each frame's result.
 * Return: the mapping, or MAP_FAILED with errno set (EFAULT for a frame
 * that did not map).
 */
static inline void *xen_map_own_frames(int fd, const unsigned long *mfn, unsigned int n, int *err)
{
	struct privcmd_mmapbatch_v2 batch = { .num = n, .dom = XEN_DOMID_SELF, .arr = mfn,
					      .err = err };
	unsigned int i;
	void *map = mmap(NULL, (size_t)n * 4096, PROT_READ, MAP_SHARED, fd, 0);

	if (map == MAP_FAILED)
		return map;
	batch.addr = (uint64_t)(uintptr_t)map;
	if (ioctl(fd, IOCTL_PRIVCMD_MMAPBATCH_V2, &batch) < 0) {
		int e = errno;

		munmap(map, (size_t)n * 4096);
		errno = e;
		return MAP_FAILED;
	}
	for (i = 0; i < n; i++)
		if (err[i]) {
			munmap(map, (size_t)n * 4096);
			errno = EFAULT;
			return MAP_FAILED;
		}
	return map;
}

#endif /* PMUVIRT_XEN_LINUX_H */
