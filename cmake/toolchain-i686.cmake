# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Cross build for 32-bit x86 (Debian gcc-i686-linux-gnu).  Test programs
# run natively through the x86-64 kernel's 32-bit support; they need the
# i386 loader /lib/ld-linux.so.2 (Debian package libc6-i386).  Where the
# kernel cannot run them, pass
#   -DCMAKE_CROSSCOMPILING_EMULATOR="qemu-i386;-L;/usr/i686-linux-gnu"
set(CMAKE_SYSTEM_PROCESSOR i686)
set(PMUVIRT_CROSS_TRIPLE i686-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
