# Installs the libraries, public headers, the `strata` CLI and a CMake package, so that another
# project can use `find_package(Strata)` and link Strata::runtime, Strata::cluster, ...
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STRATA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
set(_strata_libraries strata_base strata_device strata_memory strata_runtime strata_cluster
                      strata_node strata_store strata_allpairs strata_array
                      strata_primitives strata_dataset)

install(TARGETS ${_strata_libraries} EXPORT StrataTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/strata DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS strata_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Builds exactly what is installed, for a build that only installs (scripts/test-install.sh).
add_custom_target(strata_installable DEPENDS ${_strata_libraries} strata_cli)
install(EXPORT StrataTargets NAMESPACE Strata:: DESTINATION ${STRATA_INSTALL_CMAKEDIR})

# What the package config must find again: the optional components as this build had them.
set(STRATA_PACKAGE_NVRTC_LIBRARY "")
set(STRATA_PACKAGE_CUFFT_LIBRARY "")
if(STRATA_HAVE_CUDA)
  set(STRATA_PACKAGE_NVRTC_LIBRARY "${CUDA_nvrtc_LIBRARY}")
  set(STRATA_PACKAGE_CUFFT_LIBRARY "${CUDA_cufft_LIBRARY}")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/StrataConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/StrataConfig.cmake
                              INSTALL_DESTINATION ${STRATA_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/StrataConfig.cmake
              ${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake
        DESTINATION ${STRATA_INSTALL_CMAKEDIR})
