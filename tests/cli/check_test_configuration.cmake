# The README's order (scripts/demo.sh, then scripts/test.sh) must not lose
# tests (issue 9 defect 1): a build directory configured earlier with
# ICTUS_BUILD_TESTS=OFF gets its tests back when a preset configures it
# again, and a test preset that finds no tests fails instead of passing.
#   cmake -DSOURCE=<source dir> -DSCRATCH=<scratch dir> -P check_test_configuration.cmake
file(READ ${SOURCE}/CMakePresets.json presets)
string(JSON count LENGTH "${presets}" configurePresets)
math(EXPR last "${count} - 1")
foreach(k RANGE ${last})
  string(JSON name GET "${presets}" configurePresets ${k} name)
  set(dir ${SCRATCH}/${name})
  file(REMOVE_RECURSE ${dir})
  # as the old demo did: tests off in the cache
  execute_process(COMMAND ${CMAKE_COMMAND} --preset ${name} -B ${dir} -DICTUS_BUILD_TESTS=OFF
                          -DICTUS_BUILD_BENCH=OFF
                  WORKING_DIRECTORY ${SOURCE} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring preset ${name} failed:\n${err}")
  endif()
  # as scripts/test.sh and a user's `cmake --preset` do afterwards
  execute_process(COMMAND ${CMAKE_COMMAND} --preset ${name} -B ${dir}
                  WORKING_DIRECTORY ${SOURCE} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring preset ${name} again failed:\n${err}")
  endif()
  file(STRINGS ${dir}/CMakeCache.txt tests_option REGEX "^ICTUS_BUILD_TESTS:BOOL=")
  if(NOT tests_option STREQUAL "ICTUS_BUILD_TESTS:BOOL=ON")
    message(FATAL_ERROR "preset ${name} keeps '${tests_option}' from an earlier configuration: "
                        "its tests would not be built")
  endif()
  file(REMOVE_RECURSE ${dir})
endforeach()
string(JSON count LENGTH "${presets}" testPresets)
math(EXPR last "${count} - 1")
foreach(k RANGE ${last})
  string(JSON name GET "${presets}" testPresets ${k} name)
  string(JSON action ERROR_VARIABLE missing GET "${presets}" testPresets ${k} execution
         noTestsAction)
  if(NOT action STREQUAL "error")
    message(FATAL_ERROR "test preset ${name}: an empty test run must fail "
                        "(execution.noTestsAction: error)")
  endif()
endforeach()
foreach(script test.sh)
  file(READ ${SOURCE}/scripts/${script} text)
  if(NOT text MATCHES "--no-tests=error")
    message(FATAL_ERROR "scripts/${script}: ctest without --no-tests=error")
  endif()
endforeach()
message(STATUS "presets rebuild the tests and fail on an empty test run: ok")
