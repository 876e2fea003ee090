# `ictus static` and `ictus modes` from the command line: exit status 0, the
# closed-form numbers in the printed tables, and the files written by --out.
set(out ${OUT})
file(REMOVE_RECURSE ${out})
execute_process(COMMAND ${ICTUS} static ${SOURCE}/examples/spring_pendulum.yaml --out ${out}/static
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ictus static: exit ${rc}\n${text}\n${err}")
endif()
# m g L sin(theta) = k (pi/2 - theta) at k = 20: theta = 1.12767 rad
foreach(expected "pivot.angle                       1.1276" "stable" "static.csv")
  string(FIND "${text}" "${expected}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "ictus static: output lacks '${expected}':\n${text}")
  endif()
endforeach()
execute_process(COMMAND ${ICTUS} modes ${SOURCE}/examples/mount_block.yaml --out ${out}/modes
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ictus modes: exit ${rc}\n${text}\n${err}")
endif()
# omega = sqrt(K/m) = 20 rad/s, zeta = 0.2
string(REGEX MATCH "oscillatory +20 +3.1831 +0.2 " found "${text}")
if(NOT found)
  message(FATAL_ERROR "ictus modes: no 20 rad/s, zeta 0.2 mode:\n${text}")
endif()
foreach(file static/static.csv modes/modes.csv modes/mode_shapes.csv)
  if(NOT EXISTS ${out}/${file})
    message(FATAL_ERROR "no ${file} written")
  endif()
endforeach()
execute_process(COMMAND ${ICTUS} modes ${SOURCE}/examples/pendulum.yaml --about sideways
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--about: error: expected static or assembled")
  message(FATAL_ERROR "ictus modes --about sideways: exit ${rc}\n${err}")
endif()
# `ictus spectrum`: the free vibration of seed 003's block after the pulse
# peaks at its damped frequency sqrt(K/m - (C/2m)^2) / 2 pi = 3.1188 Hz
execute_process(COMMAND ${ICTUS} run ${SOURCE}/examples/suspension.yaml --until 6 --quiet
                        --out ${out}/run
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ictus run for the spectrum: exit ${rc}\n${text}\n${err}")
endif()
execute_process(COMMAND ${ICTUS} spectrum ${out}/run guide.x --from 0.5
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0 OR NOT text MATCHES "dominant frequencies: 3\\.11" OR
   NOT EXISTS ${out}/run/spectrum_guide.x.csv)
  message(FATAL_ERROR "ictus spectrum: exit ${rc}\n${text}\n${err}")
endif()
execute_process(COMMAND ${ICTUS} spectrum ${out}/run guide.x --from 0.5 --to 1 --lowest 3
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 2 OR NOT err MATCHES "shorter than two periods of the lowest requested frequency")
  message(FATAL_ERROR "ictus spectrum, a short window: exit ${rc}\n${err}")
endif()
execute_process(COMMAND ${ICTUS} spectrum ${out}/run block.zz
                RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 2 OR NOT err MATCHES "channel 'block.zz' is not recorded in")
  message(FATAL_ERROR "ictus spectrum, an unknown channel: exit ${rc}\n${err}")
endif()
message(STATUS "static, modes and spectrum from the command line: ok")
