# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Cross build for 64-bit big-endian POWER (Debian gcc-powerpc64-linux-gnu).
# Test programs run under qemu-user with the Debian cross sysroot.
set(CMAKE_SYSTEM_PROCESSOR ppc64)
set(PMUVIRT_CROSS_TRIPLE powerpc64-linux-gnu)
set(PMUVIRT_QEMU_USER qemu-ppc64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
