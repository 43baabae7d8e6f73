// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * A setuid-root program for the vm-linux exec checks (installed mode 4755).
 * It does some work, then asks pmuvirt.ko whether it still has a context.
 * Exit status: 0 not counted (as it must be), 1 still counted, 3 not
 * running setuid (the check would prove nothing); killed by a signal when
 * its attacher's overflow signal reached it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <pmuvirt/linux.h>

int main(void)
{
	struct pmuvirt_counts c;
	uint64_t n = 10000000;	/* 20,000,000 instructions */
	int fd, ret;

	if (geteuid() != 0 || getuid() == 0)
		return 3;
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(n) :: "cc");
	fd = open(PMUVIRT_DEVICE, O_RDWR);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	ret = fd >= 0 ? ioctl(fd, PMUVIRT_IOC_READ, &c) : -1;
	if (ret == 0) {
		printf("vm: suidprobe: still counted: %llu\n", (unsigned long long)c.value[0]);
		return 1;
	}
	return errno == ESRCH ? 0 : 1;
}
