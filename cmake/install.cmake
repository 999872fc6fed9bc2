# The installable C++ library (`cmake --install build --prefix P`): P/lib/libpowerzoo.so, the
# headers under P/include/powerzoo/, and the CMake package P/lib/cmake/powerzoo
# (find_package(powerzoo) -> the imported target powerzoo::powerzoo). A shared library, because
# the envs, tasks and learners register themselves through static objects nothing references,
# which a static archive would drop. examples/cpp/custom_loop.cpp uses it (ctest cpp_example).
include(GNUInstallDirs)
add_library(powerzoo_shared SHARED $<TARGET_OBJECTS:powerzoo_lib>)
set_target_properties(powerzoo_shared PROPERTIES OUTPUT_NAME powerzoo EXPORT_NAME powerzoo
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_include_directories(powerzoo_shared PUBLIC
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/lib> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(powerzoo_shared PUBLIC cxx_std_20)
target_link_libraries(powerzoo_shared PRIVATE
  Boost::program_options ${HDF5_C_LIBRARIES} PkgConfig::TOMLPP PkgConfig::CLP
  PkgConfig::OPENBLAS ${LAPACK_LIBRARIES} OpenSSL::Crypto ${KLU_LIBRARY} PkgConfig::IPOPT
  PUBLIC Threads::Threads)

install(TARGETS powerzoo_shared EXPORT powerzooTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/lib/powerzoo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT powerzooTargets NAMESPACE powerzoo::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/powerzoo)
file(WRITE ${CMAKE_BINARY_DIR}/powerzooConfig.cmake
     "include(CMakeFindDependencyMacro)\nfind_dependency(Threads)\n"
     "include(\${CMAKE_CURRENT_LIST_DIR}/powerzooTargets.cmake)\n")
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/powerzooConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/powerzooConfig.cmake ${CMAKE_BINARY_DIR}/powerzooConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/powerzoo)

# The out-of-tree example against an installed prefix: install, configure, build, run.
add_test(NAME cpp_example
         COMMAND bash ${CMAKE_SOURCE_DIR}/examples/cpp/run_example.sh ${CMAKE_BINARY_DIR}
                 ${CMAKE_SOURCE_DIR}/examples/cpp
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cpp_example PROPERTIES TIMEOUT 900)
