# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Cross build for 64-bit little-endian POWER (Debian gcc-powerpc64le-linux-gnu).
# Test programs run under qemu-user with the Debian cross sysroot.
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(PMUVIRT_CROSS_TRIPLE powerpc64le-linux-gnu)
set(PMUVIRT_QEMU_USER qemu-ppc64le)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
