# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Host neutrality: core and arch code build freestanding against the minimal
# env; public headers are self-contained.
if(PMUVIRT_TESTS)
	add_test(NAME host-neutral
		COMMAND sh ${PROJECT_SOURCE_DIR}/tools/check-host-neutral.sh ${CMAKE_C_COMPILER})
	set_tests_properties(host-neutral PROPERTIES LABELS unit)
endif()

# Install rules, package config and pkg-config file work for a consumer
# (a plain consumer cannot link a sanitizer-built library; it is built with
# the build machine's compiler, so not for cross builds).
if(PMUVIRT_TESTS AND NOT PMUVIRT_SANITIZE AND NOT CMAKE_CROSSCOMPILING)
	add_test(NAME install-consumer
		COMMAND sh ${PROJECT_SOURCE_DIR}/tools/check-install.sh ${PROJECT_BINARY_DIR})
	set_tests_properties(install-consumer PROPERTIES LABELS unit)
endif()
