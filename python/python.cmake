# The Python module `powerzoo` (included from the top-level CMakeLists.txt when PZ_PYTHON is on).
# Built against Debian's /usr/bin/python3 (numpy, pybind11-dev from scripts/install-deps.sh) into
# ${CMAKE_BINARY_DIR}/python/powerzoo: PYTHONPATH=build/python /usr/bin/python3 -c "import powerzoo".
set(PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "the Python the module is built for")
find_package(pybind11 2.10 CONFIG QUIET)
if(NOT pybind11_FOUND)
  message(STATUS "pybind11 not found: the Python module is not built (bash scripts/install-deps.sh)")
  return()
endif()

set(PZ_PY_DIR ${CMAKE_BINARY_DIR}/python/powerzoo)
file(GLOB PZ_PY_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/src/*.cpp)
pybind11_add_module(powerzoo_py MODULE ${PZ_PY_SOURCES})
set_target_properties(powerzoo_py PROPERTIES OUTPUT_NAME _core LIBRARY_OUTPUT_DIRECTORY ${PZ_PY_DIR})
target_compile_options(powerzoo_py PRIVATE -Wall -Wextra)
target_link_libraries(powerzoo_py PRIVATE powerzoo_lib)

# The package's pure-Python files, copied next to the extension at build time.
file(GLOB PZ_PY_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/powerzoo/*.py)
set(PZ_PY_COPIES "")
foreach(f ${PZ_PY_FILES})
  get_filename_component(name ${f} NAME)
  add_custom_command(OUTPUT ${PZ_PY_DIR}/${name} COMMAND ${CMAKE_COMMAND} -E copy ${f} ${PZ_PY_DIR}/${name}
                     DEPENDS ${f} VERBATIM)
  list(APPEND PZ_PY_COPIES ${PZ_PY_DIR}/${name})
endforeach()
add_custom_target(python ALL DEPENDS powerzoo_py ${PZ_PY_COPIES})

# `cmake --install`: the package into the prefix's site-packages for this Python
# (/usr/local/lib/python3.11/dist-packages under the default prefix, on Debian's sys.path).
execute_process(COMMAND ${PYTHON_EXECUTABLE} -c "import sys; print(f'python{sys.version_info[0]}.{sys.version_info[1]}')"
                OUTPUT_VARIABLE PZ_PY_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
set(PZ_PYTHON_INSTALL_DIR "lib/${PZ_PY_VERSION}/dist-packages" CACHE STRING
    "where cmake --install puts the powerzoo package, relative to the prefix")
install(TARGETS powerzoo_py LIBRARY DESTINATION ${PZ_PYTHON_INSTALL_DIR}/powerzoo)
install(FILES ${PZ_PY_FILES} DESTINATION ${PZ_PYTHON_INSTALL_DIR}/powerzoo)

# pytest (Debian's python3-pytest) over python/tests, in ctest (`make test`).
add_test(NAME python_module
         COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/python/tests
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(python_module PROPERTIES TIMEOUT 1200
                     ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;POWERZOO_BIN=$<TARGET_FILE:powerzoo>")

# The Python examples (examples/python/) at small budgets, checked by ci_check.py: PPO must beat
# zero_action on the quickstart's evaluation episodes, the Lagrangian loop must move its
# multiplier, the IPPO loop must complete with finite returns. Skipped (exit 77) only when PyTorch
# is missing and CI is not "true".
foreach(ex IN ITEMS "ppo;--total-steps;100000" "lagrangian;--total-steps;6144"
                    "ippo;--total-steps;3072")
  list(GET ex 0 name)
  add_test(NAME python_example_${name}
           COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/examples/python/ci_check.py ${ex}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(python_example_${name} PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
                       ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python")
endforeach()
