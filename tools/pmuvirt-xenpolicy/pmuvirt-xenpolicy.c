// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt-xenpolicy: set a Xen domain's event policy from the control
 * domain (SET_POLICY, include/pmuvirt/xen.h; docs/xen.md, "Event
 * policies").  The policy is given in its text form
 * (src/abi/pmuvirt_policy_text.h); --no-vpmu adds PMUVIRT_POLICY_NO_VPMU,
 * which takes the emulated PMU away from the domain's HVM and PVH VCPUs
 * (docs/xen.md, "Stock guests": meant for a domain created paused).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmuvirt/xen.h>
#include "pmuvirt_policy_text.h"
#include "xen_linux.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuvirt-xenpolicy [--no-vpmu] DOMID [POLICY]\n"
		"  POLICY: allow|deny [ITEM[,ITEM]...], ITEM one of instructions cycles\n"
		"          branches branch-misses tsc rHEX rHEX/MASK !rHEX !rHEX/MASK;\n"
		"          default \"deny\" (every event permitted)\n"
		"  --no-vpmu: the domain's HVM and PVH VCPUs see no emulated PMU (set it\n"
		"          before the domain starts: xl create -p, then xl unpause)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct pmuvirt_xen_set_policy op;
	const char *text = "deny";
	char *end;
	unsigned long domid;
	bool set = false;
	int fd, i = 1;
	long rc;

	memset(&op, 0, sizeof(op));
	if (i < argc && !strcmp(argv[i], "--no-vpmu")) {
		op.policy.flags |= PMUVIRT_POLICY_NO_VPMU;
		i++;
	}
	if (i >= argc || argc - i > 2)
		usage();
	errno = 0;
	domid = strtoul(argv[i], &end, 0);
	if (errno || end == argv[i] || *end || domid > 0xffff)
		usage();
	if (i + 1 < argc)
		text = argv[i + 1];
	/* the flags are not in the text: keep them across the parse */
	{
		uint32_t flags = op.policy.flags;

		if (pmuvirt_policy_parse(text, strlen(text), &op.policy, &set) || !set) {
			fprintf(stderr, "pmuvirt-xenpolicy: not a policy: \"%s\"\n", text);
			usage();
		}
		op.policy.flags = flags;
	}
	op.hdr.version = PMUVIRT_XEN_VERSION;
	op.hdr.size = sizeof(op);
	op.domid = (uint32_t)domid;
	fd = open("/dev/xen/privcmd", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/xen/privcmd", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("pmuvirt-xenpolicy: /dev/xen/privcmd");
		return 1;
	}
	rc = xen_privcmd_hypercall(fd, PMUVIRT_XEN_HYPERCALL, PMUVIRT_XEN_SET_POLICY,
				   (uint64_t)(uintptr_t)&op);
	close(fd);
	if (rc) {
		fprintf(stderr, "pmuvirt-xenpolicy: SET_POLICY of domain %lu: %s\n", domid,
			strerror((int)-rc));
		return 1;
	}
	return 0;
}
