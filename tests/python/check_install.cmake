# `cmake --install` puts the package ictus under PREFIX, where it imports and
# runs without the build tree on the path (docs/python.md).
#   cmake -DBUILD=<build dir> -DSOURCE=<source dir> -DPYTHON=<python3> -DPREFIX=<scratch>
#         -P check_install.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} --component python
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${err}")
endif()
file(GLOB_RECURSE installed RELATIVE ${PREFIX} ${PREFIX}/*)
message(STATUS "installed: ${installed}")
file(GLOB package_dirs LIST_DIRECTORIES true ${PREFIX}/lib/python3*/dist-packages/ictus)
list(LENGTH package_dirs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one PREFIX/lib/python3.X/dist-packages/ictus, found: ${installed}")
endif()
get_filename_component(site ${package_dirs} DIRECTORY)
set(script "import ictus, sys
assert ictus.__file__.startswith('${site}'), ictus.__file__
r = ictus.run('${SOURCE}/examples/pendulum.yaml', {'theta0': '10*deg'})
assert len(r) == 1001 and abs(r['pivot.angle'][0] - 0.17453292519943295) < 1e-12
print('imported', ictus.__file__)")
# the build tree is not on the path: only what was installed is imported
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH PYTHONPATH=${site}
                        ${PYTHON} -c "${script}"
                WORKING_DIRECTORY ${PREFIX} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed package does not work:\n${out}\n${err}")
endif()
message(STATUS "${out}")
