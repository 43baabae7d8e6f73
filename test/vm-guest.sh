# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by the /init of the vm-linux and vm-ppc guests (copied into the
# initramfs as /vm-guest.sh): busybox, the kernel file systems, and the
# helpers every check uses.
#   fail MSG             prints "vm: FAIL: MSG"; the run's result is FAIL
#   attached             contexts attached in pmuvirt.ko ("none" when unloaded)
#   wait_attached N      waits up to 3 s for N attached contexts
#   check_unload         rmmod is refused while `vmtest hold` keeps three
#                        threads attached, and works once they are gone
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
result=PASS
fail() { echo "vm: FAIL: $*"; result=FAIL; }
attached() { cat /sys/module/pmuvirt/parameters/attached 2>/dev/null || echo none; }
wait_attached() {
	i=0
	while [ "$(attached)" != "$1" ] && [ $i -lt 300 ]; do usleep 10000; i=$((i + 1)); done
	[ "$(attached)" = "$1" ]
}
check_unload() {
	/vmtest hold &
	holder=$!
	wait_attached 3 || fail "hold: $(attached) contexts"
	if rmmod pmuvirt 2>/dev/null; then
		fail "module unloaded under attached threads"
	else
		echo "vm: rmmod refused while 3 threads are attached"
	fi
	kill $holder
	wait $holder
	wait_attached 0 || fail "contexts left after the holder died: $(attached)"
	rmmod pmuvirt || fail "rmmod after the threads exited"
	[ -e /dev/pmuvirt ] && fail "/dev/pmuvirt still there"
}
