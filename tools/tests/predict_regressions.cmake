# Every file in DIR through `banklab predict FILE`: exit 0 (valid input) or 2 (a clear error)
# and nothing else: no crash (signal), no other status, no hang (CTest's TIMEOUT).
# -DBANKLAB_EXE=... -DDIR=...
file(GLOB inputs LIST_DIRECTORIES false ${DIR}/*)
list(LENGTH inputs n)
if(n EQUAL 0)
  message(FATAL_ERROR "no inputs in ${DIR}")
endif()
foreach(f IN LISTS inputs)
  execute_process(COMMAND ${BANKLAB_EXE} predict ${f} RESULT_VARIABLE rc
                  OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 30)
  if(NOT (rc STREQUAL "0" OR rc STREQUAL "2"))
    message(FATAL_ERROR "banklab predict ${f}: exit '${rc}' (want 0 or 2): ${err}")
  endif()
  if(rc STREQUAL "2" AND NOT err MATCHES "^banklab: [^\n]+:[0-9]+: ")
    message(FATAL_ERROR "banklab predict ${f}: exit 2 without a 'banklab: FILE:LINE: problem' message: ${err}")
  endif()
endforeach()
message(STATUS "${n} inputs: every one exit 0 or 2")
