# Run with cmake -P: build TARGET in BUILD_DIR, run EXE with --gtest_filter=FILTER and require
# that the grader FAILS: the test EXPECT (or, with EXPECT="*", at least one test) must report
# "[  FAILED  ]", and the program must not have crashed. Optionally the output must match
# MESSAGE_REGEX (the failure message must name banks, etc.). Prints "BANKLAB-SKIP:" (which the
# test's SKIP_REGULAR_EXPRESSION turns into a skip) when the expected test was skipped, e.g. a
# GPU test on a machine without a GPU.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE build_rc OUTPUT_VARIABLE build_out ERROR_VARIABLE build_out)
if(NOT build_rc EQUAL 0)
  message("${build_out}")
  message(FATAL_ERROR "the known-bad kernel did not compile; it must compile and fail a test")
endif()

if(DEFINED TOOL)
  # The defect shows only under a GPU tool (e.g. a missing __syncthreads under racecheck).
  if(NOT SANITIZER)
    message("BANKLAB-SKIP: compute-sanitizer is not installed, so the ${TOOL} case cannot be judged")
    return()
  endif()
  execute_process(COMMAND ${PYTHON} ${SCRIPT} --tool ${TOOL} --sanitizer ${SANITIZER} --exe ${EXE}
                          --filter ${FILTER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 900)
  message("${out}")
  if(out MATCHES "BANKLAB-SKIP:")
    message("BANKLAB-SKIP: no GPU here, so the ${TOOL} case cannot be judged")
    return()
  endif()
  if(rc EQUAL 0)
    message(FATAL_ERROR "compute-sanitizer --tool ${TOOL} found nothing in a kernel it must flag")
  endif()
  message("OK: compute-sanitizer --tool ${TOOL} caught it")
  return()
endif()

execute_process(COMMAND ${EXE} --gtest_filter=${FILTER} --gtest_color=no
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 900)
message("${out}")
if(EXPECT STREQUAL "*")
  set(failed_re "\\[  FAILED  \\] [A-Za-z0-9_]+\\.")
else()
  string(REPLACE "." "\\." expect_re "${EXPECT}")
  set(failed_re "\\[  FAILED  \\] ${expect_re}")
  if(out MATCHES "\\[  SKIPPED \\] ${expect_re}")
    message("BANKLAB-SKIP: ${EXPECT} was skipped here, so this known-bad case cannot be judged")
    return()
  endif()
endif()
if(rc MATCHES "^[0-9]+$" AND rc EQUAL 0)
  message(FATAL_ERROR "the grader PASSED a kernel it must fail (expected ${EXPECT} to fail)")
endif()
if(NOT out MATCHES "${failed_re}")
  message(FATAL_ERROR "expected '${EXPECT}' to fail with a test failure; exit status was '${rc}'")
endif()
if(DEFINED MESSAGE_REGEX AND NOT out MATCHES "${MESSAGE_REGEX}")
  message(FATAL_ERROR "the failure message does not match '${MESSAGE_REGEX}'")
endif()
message("OK: the grader caught it (${EXPECT} failed as it must)")
