# The judge's tests for one lab: docs/dev/GRADER.md.
#
#   banklab_add_lab(<NN> <folder>)      e.g. banklab_add_lab(05 05_swizzle)
#
# labNN.build (fixture setup): banklab-judge build compiles ${BANKLAB_GRADE}/<folder>/kernel.cu
#   apart from the judge (probe + device code, each with a time limit) and runs its probe. A
#   compile error is that lab's failure alone; every lab builds into its own work folder.
# labNN.<Suite>.<Test>: one judge process per test. It passes only on the judge's own verdict
#   record (0 passed, 1 failed, 77 skipped: CTest's SKIP_RETURN_CODE, GPU tests only).
# Tests are read from the judge's sources (grader/labNN_test.cu, the prediction tests generated from
# grader/labNN.toml and any instructor/labNN_*_test.cu): every TEST(LabNN<Suite>, <Name>); suites
# ending in OnGpu get the label gpu, others cpu.
#
#   banklab_lab_description(<NN> <OUT_VAR>)
#
# grader/gen_lab.py checks grader/labNN.toml and writes into ${BANKLAB_GENERATED_DIR}
# grader/labNN_description.hpp (for the probe and the judge) and labNN_questions_test.cpp (the
# prediction tests; its path goes to OUT_VAR, a source of banklab-judge). It runs at configure time
# too, so that CTest knows the generated tests; a changed description configures again.

set(BANKLAB_GPU_TEST_TIMEOUT 180 CACHE STRING "Seconds before a GPU test is killed (hangs fail)")
option(BANKLAB_GRADED "Instructor's graded mode: a GPU test that cannot run fails instead of skipping" OFF)

find_program(BANKLAB_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR})
find_program(BANKLAB_NCU ncu HINTS ${CUDAToolkit_BIN_DIR})
find_package(Python3 COMPONENTS Interpreter)
set(BANKLAB_GENERATED_DIR ${CMAKE_BINARY_DIR}/grader/generated)

function(banklab_lab_description num out_var)
  if(NOT Python3_FOUND)
    message(FATAL_ERROR "Python 3.11 or newer is needed to read the labs' descriptions (grader/gen_lab.py)")
  endif()
  set(toml ${PROJECT_SOURCE_DIR}/grader/lab${num}.toml)
  set(probe ${PROJECT_SOURCE_DIR}/grader/lab${num}_probe.cu)
  set(gen ${PROJECT_SOURCE_DIR}/grader/gen_lab.py)
  set(cmd ${Python3_EXECUTABLE} ${gen} ${toml} ${BANKLAB_GENERATED_DIR} --probe ${probe})
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "grader/lab${num}.toml, the description of lab ${num}, is not valid:\n${err}")
  endif()
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${toml} ${probe} ${gen})
  set(outs ${BANKLAB_GENERATED_DIR}/grader/lab${num}_description.hpp ${BANKLAB_GENERATED_DIR}/lab${num}_questions_test.cpp)
  add_custom_command(OUTPUT ${outs} COMMAND ${cmd} DEPENDS ${toml} ${probe} ${gen}
                     COMMENT "Generating lab ${num}'s description (grader/lab${num}.toml)" VERBATIM)
  set(${out_var} ${BANKLAB_GENERATED_DIR}/lab${num}_questions_test.cpp PARENT_SCOPE)
endfunction()

# The TEST(...) names of a judge source, as Suite.Name.
function(_banklab_tests_in file out)
  file(STRINGS ${file} lines REGEX "^TEST\\( *Lab[0-9][0-9][A-Za-z0-9_]* *, *[A-Za-z0-9_]+ *\\)")
  set(names)
  foreach(l IN LISTS lines)
    string(REGEX REPLACE "^TEST\\( *([A-Za-z0-9_]+) *, *([A-Za-z0-9_]+) *\\).*" "\\1.\\2" n "${l}")
    list(APPEND names ${n})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

function(banklab_add_lab num folder)
  set(label lab${num})
  set(work ${CMAKE_BINARY_DIR}/judge/${label})
  set(results ${CMAKE_BINARY_DIR}/results)
  set(graded)
  if(BANKLAB_GRADED)
    set(graded --graded)
  endif()
  set(source ${PROJECT_SOURCE_DIR}/${BANKLAB_GRADE}/${folder}/kernel.cu)

  add_test(NAME ${label}.build
           COMMAND banklab_judge build --lab ${num} --source ${source} --work ${work} --results ${results} ${graded})
  set_tests_properties(${label}.build PROPERTIES LABELS "${label};cpu")
  set_tests_properties(${label}.build PROPERTIES FIXTURES_SETUP ${label}_built TIMEOUT 150)

  set(sources ${CMAKE_CURRENT_SOURCE_DIR}/lab${num}_test.cu ${BANKLAB_GENERATED_DIR}/lab${num}_questions_test.cpp
              ${BANKLAB_INSTRUCTOR_SOURCES_${num}})
  set(all_tests)
  foreach(src IN LISTS sources)
    _banklab_tests_in(${src} names)
    list(APPEND all_tests ${names})
  endforeach()
  set(gpu_correct)
  foreach(t IN LISTS all_tests)
    add_test(NAME ${label}.${t}
             COMMAND banklab_judge test --lab ${num} --work ${work} --test ${t} --results ${results} ${graded})
    if(t MATCHES "OnGpu\\.")
      set_tests_properties(${label}.${t} PROPERTIES LABELS "${label};gpu")
      set_tests_properties(${label}.${t} PROPERTIES TIMEOUT ${BANKLAB_GPU_TEST_TIMEOUT}
                           FIXTURES_REQUIRED ${label}_built RESOURCE_LOCK gpu SKIP_RETURN_CODE 77)
      if(t MATCHES "Correct")
        list(APPEND gpu_correct ${t})
      endif()
    else()
      set_tests_properties(${label}.${t} PROPERTIES LABELS "${label};cpu")
      set_tests_properties(${label}.${t} PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED ${label}_built)
    endif()
  endforeach()

  # Optional GPU tools on the correctness tests: compute-sanitizer (memcheck, racecheck) and
  # Nsight Compute as a cross-check of the model (instruction counts, wavefronts as a lower bound).
  if(gpu_correct AND Python3_FOUND)
    string(REPLACE ";" "," gpu_correct_csv "${gpu_correct}")
    set(tool_cmd ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/grader/run_gpu_tool.py
        --judge $<TARGET_FILE:banklab_judge> --lab ${num} --work ${work} --tests ${gpu_correct_csv})
    set(tool_props FIXTURES_REQUIRED ${label}_built RESOURCE_LOCK gpu TIMEOUT 900 SKIP_RETURN_CODE 77)
    if(BANKLAB_COMPUTE_SANITIZER)
      foreach(tool IN ITEMS memcheck racecheck)
        add_test(NAME ${label}.sanitize.${tool} COMMAND ${tool_cmd} --tool ${tool} --sanitizer ${BANKLAB_COMPUTE_SANITIZER})
        set_tests_properties(${label}.sanitize.${tool} PROPERTIES LABELS "${label};gpu;sanitize")
        set_tests_properties(${label}.sanitize.${tool} PROPERTIES ${tool_props})
      endforeach()
    endif()
    if(BANKLAB_NCU)
      add_test(NAME ${label}.ncu COMMAND ${tool_cmd} --tool ncu --ncu ${BANKLAB_NCU})
      set_tests_properties(${label}.ncu PROPERTIES LABELS "${label};gpu;ncu")
      set_tests_properties(${label}.ncu PROPERTIES ${tool_props})
    endif()
  endif()
endfunction()

# The labs of the course: what a lab is, the one CMake home of the rule (its Python twin is
# tools/lablib/banklab_labs.py; tools/labs-check compares the two).
#
#   banklab_find_labs(<out-var> [ROOT <dir>])    e.g. sets out-var to "00;00_bank_mapping;01;..."
#
# A lab is a folder labs/NN_name/ holding kernel.cu together with its description
# grader/labNN.toml whose top-level `folder = "NN_name"` (and `lab = "NN"`). The result is a flat
# list of pairs, number then folder, in lab order. ROOT defaults to the source tree that holds this
# file. Configure-time only reads the two keys (the description is TOML; the Python side validates
# the rest); a lab folder or description added later re-runs the configure step.
function(banklab_find_labs out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ROOT" "")
  if(NOT arg_ROOT)
    get_filename_component(arg_ROOT "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  endif()
  set(deps)
  if(CMAKE_GENERATOR)   # a configure step (not cmake -P, not ctest): watch for labs added or removed
    set(deps CONFIGURE_DEPENDS)
  endif()
  file(GLOB descriptions ${deps} "${arg_ROOT}/grader/lab[0-9][0-9].toml")
  file(GLOB folders ${deps} LIST_DIRECTORIES true "${arg_ROOT}/labs/[0-9][0-9]_*")
  list(SORT descriptions)
  if(deps AND descriptions)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${descriptions})
  endif()
  set(labs)
  foreach(desc IN LISTS descriptions)
    get_filename_component(name "${desc}" NAME_WE)
    string(SUBSTRING "${name}" 3 2 num)
    # The top-level keys come before the first [table]; stop there.
    file(STRINGS "${desc}" lines)
    set(folder)
    set(lab)
    foreach(line IN LISTS lines)
      if(line MATCHES "^[ \t]*\\[")
        break()
      elseif(line MATCHES "^[ \t]*folder[ \t]*=[ \t]*\"([0-9][0-9]_[a-z0-9_]+)\"")
        set(folder "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^[ \t]*lab[ \t]*=[ \t]*\"([0-9][0-9])\"")
        set(lab "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(folder AND lab STREQUAL num AND folder MATCHES "^${num}_" AND EXISTS "${arg_ROOT}/labs/${folder}/kernel.cu")
      list(APPEND labs ${num} ${folder})
    endif()
  endforeach()
  set(${out_var} ${labs} PARENT_SCOPE)
endfunction()
