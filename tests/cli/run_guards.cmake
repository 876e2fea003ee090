# The guards of `ictus run` (docs/cli.md): the energy audit's exit status,
# the max_steps guard and its override, the expected-output-size check and
# --max-output, and the silence of --quiet on stdout.
#   cmake -DICTUS=<ictus> -DSOURCE=<source dir> -DOUT=<work dir> -P run_guards.cmake
set(failures "")
function(run_case name expected_exit)
  cmake_parse_arguments(C "" "" "ARGS;EXPECT" ${ARGN})
  file(REMOVE_RECURSE ${OUT}/${name} ${OUT}/${name}.incomplete)
  execute_process(COMMAND ${ICTUS} run ${C_ARGS} --out ${OUT}/${name} --no-progress
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL expected_exit)
    set(failures "${failures}\n${name}: exit ${rc}, expected ${expected_exit}:\n${err}"
        PARENT_SCOPE)
    return()
  endif()
  foreach(text ${C_EXPECT})
    string(FIND "${err}" "${text}" pos)
    if(pos EQUAL -1)
      set(failures "${failures}\n${name}: stderr lacks '${text}':\n${err}" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

set(coarse ${SOURCE}/tests/cli/models/audit_coarse_step.yaml)
# the audit fails: exit 4, the warning names the interval, the set is complete
run_case(audit_fails 4 ARGS ${coarse} --quiet
         EXPECT "warning: energy audit failed: the balance error"
                "more than the tolerance 0.001 (simulate: energy_tolerance)"
                "it first exceeded the tolerance between t = 0.2")
if(NOT EXISTS ${OUT}/audit_fails/results.csv)
  set(failures "${failures}\naudit_fails: no results.csv")
else()
  file(READ ${OUT}/audit_fails/run.json manifest)
  string(JSON status GET "${manifest}" status)
  string(JSON passed GET "${manifest}" energy_audit passed)
  string(JSON from GET "${manifest}" energy_audit exceeded_between 0)
  if(NOT status STREQUAL "audit_failed" OR NOT passed STREQUAL "OFF" OR from LESS 0.1)
    set(failures "${failures}\naudit_fails: run.json says ${status}, passed ${passed}, from ${from}")
  endif()
endif()
# a looser tolerance from the model file lets it pass
run_case(audit_loose 0 ARGS ${coarse} --set tol=0.1)

# a scheme that puts energy in while its balance closes: the dissipation's
# fall fails the audit, run.json names where, not the balance
set(scheme ${SOURCE}/tests/cli/models/audit_scheme_energy.yaml)
run_case(audit_fall 4 ARGS ${scheme} --quiet
         EXPECT "warning: energy audit failed: the energy dissipated by dampers, friction and impacts fell by"
                "more than the tolerance 0.001 (simulate: energy_tolerance)"
                "it first fell that far between t = ")
if(NOT EXISTS ${OUT}/audit_fall/run.json)
  set(failures "${failures}\naudit_fall: no run.json")
else()
  file(READ ${OUT}/audit_fall/run.json manifest)
  string(JSON status GET "${manifest}" status)
  string(JSON fall GET "${manifest}" energy_audit dissipation_fall_relative)
  string(JSON from GET "${manifest}" energy_audit fell_between 0)
  string(JSON balance ERROR_VARIABLE no_balance GET "${manifest}" energy_audit exceeded_between)
  if(NOT status STREQUAL "audit_failed" OR fall LESS 0.001 OR from LESS 0.01 OR NOT no_balance)
    set(failures "${failures}\naudit_fall: run.json says ${status}, fall ${fall}, from ${from}, "
                 "balance exceeded between ${balance}")
  endif()
endif()
# a step ten times smaller passes (0.045 % of the energy)
run_case(audit_fall_finer 0 ARGS ${scheme} --set h=1e-4)

# max_steps: refused with the count, then allowed by --max-steps
run_case(steps_refused 2 ARGS ${coarse} --set budget=10
         EXPECT "'step' 0.2 s from 'start' 0 s to 'until' 10 s implies 50 steps, more than 'max_steps' (10)")
run_case(steps_allowed 0 ARGS ${coarse} --set budget=10 --max-steps 100 --set tol=0.1)

# the expected size: every channel of the pendulum to 9e5 s is refused at
# once, naming the size and the free space
file(READ ${SOURCE}/examples/pendulum.yaml text)
string(REGEX REPLACE "outputs: \\[[^]]*\\]" "outputs: [\"*\"]" text "${text}")
file(WRITE ${OUT}/every_channel.yaml "${text}")
string(TIMESTAMP before "%s")
run_case(size_refused 2 ARGS ${OUT}/every_channel.yaml --until 9e5
         EXPECT "error: the results would take about 148 GB (9e+07 rows x 103 columns), more than"
                " free on the disk of ")
string(TIMESTAMP after "%s")
math(EXPR seconds "${after} - ${before}")
# refused before it starts: no simulation (the run itself would write for
# hours); the bound is loose for a loaded machine, not a speed measurement
if(seconds GREATER 30)
  set(failures "${failures}\nsize_refused took ${seconds} s: did the run start?")
endif()
# a smaller excess: refused under --max-output 1M, allowed with 10M
run_case(size_small_refused 2 ARGS ${OUT}/every_channel.yaml --until 60 --max-output 1M
         EXPECT "more than the limit of 1 MB" "give --max-output SIZE")
run_case(size_small_allowed 0 ARGS ${OUT}/every_channel.yaml --until 60 --max-output 10M)
run_case(size_malformed 2 ARGS ${OUT}/every_channel.yaml --max-output lots
         EXPECT "--max-output: error: expected a size such as 500M")

# --quiet prints nothing on stdout, not even siconos-numerics' line where its
# pivoting ends on a ray (the tall box landing on its side)
execute_process(COMMAND ${ICTUS} run ${SOURCE}/tests/cli/models/tall_box_pushed_over.yaml
                        --out ${OUT}/quiet_run --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "" OR NOT err STREQUAL "")
  set(failures "${failures}\nquiet_run: exit ${rc}, stdout '${out}', stderr '${err}'")
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "run guards: ok")
