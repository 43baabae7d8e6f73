# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
include(CMakePackageConfigHelpers)
install(TARGETS pmuvirt EXPORT pmuvirtTargets
	ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/pmuvirt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pmuvirtTargets NAMESPACE pmuvirt::
	DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pmuvirt)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pmuvirtConfig.cmake.in
	${PROJECT_BINARY_DIR}/pmuvirtConfig.cmake
	INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pmuvirt)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pmuvirtConfigVersion.cmake
	COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pmuvirtConfig.cmake
	${PROJECT_BINARY_DIR}/pmuvirtConfigVersion.cmake
	DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pmuvirt)
# The .pc file finds the prefix relative to itself, so an installed tree can move.
file(RELATIVE_PATH PMUVIRT_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" PMUVIRT_PC_UP "${PMUVIRT_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/pmuvirt.pc.in ${PROJECT_BINARY_DIR}/pmuvirt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pmuvirt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
