# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The part every cross toolchain file shares.  The including file sets
# CMAKE_SYSTEM_PROCESSOR, PMUVIRT_CROSS_TRIPLE (the Debian cross gcc's
# prefix) and, for targets the build machine cannot run, PMUVIRT_QEMU_USER
# (the qemu-user program that runs test programs with the cross sysroot).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${PMUVIRT_CROSS_TRIPLE}-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/${PMUVIRT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
if(DEFINED PMUVIRT_QEMU_USER AND NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
	set(CMAKE_CROSSCOMPILING_EMULATOR ${PMUVIRT_QEMU_USER} -L /usr/${PMUVIRT_CROSS_TRIPLE})
endif()
