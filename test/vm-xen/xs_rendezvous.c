// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * A rendezvous between dom0 and its domUs through XenStore, with no
 * XenStore tools in the images: dom0 writes a key of a domU, the domU
 * waits until it exists.  A key whose value is a time (seconds of Xen's
 * wall clock, which every domain reads) also makes the domU wait until
 * then, so domUs that read their keys at different moments go on at
 * once.  The wire protocol is Xen's (public/io/xs_wire.h):
 * a header {type, request id, transaction id, payload length}, then the
 * payload; an error reply has type XS_ERROR and its name as payload.
 *
 * usage: xs_rendezvous write PATH VALUE   (dom0: xenstored's socket)
 *        xs_rendezvous wait PATH [SECONDS] (a domU: /dev/xen/xenbus;
 *                                          PATH relative to its home;
 *                                          SECONDS: give up after)
 * Exit: 0 done, 1 failed or timed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define XS_READ		2
#define XS_WRITE	11
#define XS_ERROR	16
#define SOCKET		"/run/xenstored/socket"
#define XENBUS		"/dev/xen/xenbus"

struct xs_msg {
	uint32_t type, req_id, tx_id, len;
	char body[1024];
};

/* One request and its reply; the reply's type, or -1. */
static int xs_call(int fd, uint32_t type, const char *a, const char *b, struct xs_msg *reply)
{
	struct xs_msg m = { .type = type, .req_id = 1 };
	size_t la = strlen(a) + 1, lb = b ? strlen(b) : 0;
	ssize_t n;

	if (la + lb > sizeof(m.body))
		return -1;
	memcpy(m.body, a, la);
	if (b)
		memcpy(m.body + la, b, lb);
	m.len = (uint32_t)(la + lb);
	if (write(fd, &m, 16 + m.len) != (ssize_t)(16 + m.len))
		return -1;
	n = read(fd, reply, 16);
	if (n != 16 || reply->len >= sizeof(reply->body))
		return -1;
	if (reply->len && read(fd, reply->body, reply->len) != (ssize_t)reply->len)
		return -1;
	reply->body[reply->len] = 0;
	return (int)reply->type;
}

int main(int argc, char **argv)
{
	struct xs_msg r;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "write")) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = SOCKET };

		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("xs_rendezvous: " SOCKET);
			return 1;
		}
		if (xs_call(fd, XS_WRITE, argv[2], argv[3], &r) != XS_WRITE) {
			fprintf(stderr, "xs_rendezvous: write %s: %s\n", argv[2], r.body);
			return 1;
		}
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "wait")) {
		time_t end = time(NULL) + (argc == 4 ? atol(argv[3]) : 600);

		fd = open(XENBUS, O_RDWR);
		if (fd < 0) {
			perror("xs_rendezvous: " XENBUS);
			return 1;
		}
		while (time(NULL) < end) {
			int t = xs_call(fd, XS_READ, argv[2], NULL, &r);

			if (t == XS_READ) {
				struct timespec at = { .tv_sec = atol(r.body) };

				while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == EINTR)
					;
				return 0;
			}
			if (t != XS_ERROR || strcmp(r.body, "ENOENT")) {
				fprintf(stderr, "xs_rendezvous: read %s: %s\n", argv[2],
					t < 0 ? strerror(errno) : r.body);
				return 1;
			}
			usleep(100000);
		}
		fprintf(stderr, "xs_rendezvous: %s did not appear\n", argv[2]);
		return 1;
	}
	fprintf(stderr, "usage: xs_rendezvous write PATH VALUE | wait PATH [SECONDS]\n");
	return 1;
}
