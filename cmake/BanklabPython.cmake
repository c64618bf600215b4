# How CMake runs the course's Python programs: through python/banklab_run.py, the one file that
# puts the banklab package (python/banklab/) on Python's path (and in PYTHONPATH, for the programs
# they start). BANKLAB_PY is a command: `${BANKLAB_PY} script.py ARGS` or `${BANKLAB_PY} -m MODULE ARGS`.
# Python is looked for once, by the top-level CMakeLists.txt (each find_package(Python3) runs the
# interpreter several times: seven look-ups were 30 % of a first configure): a folder that includes
# this file later sees what was found.
# A version manager's python3 (pyenv's or asdf's shim) is a shell script that looks the interpreter
# up at every start: about 0.5 CPU-s each time against 0.1 for the interpreter itself, and the first
# configure starts Python a dozen times (FindPython's look-ups, the labs' descriptions), then every
# Python test again. When the python3 on PATH is a script, ask it once which interpreter it runs
# (sys.executable, the same one with the same packages) and let FindPython take that. A python3 that
# is a program (Debian's /usr/bin/python3) or a Python3_EXECUTABLE given is left as it is.
function(banklab_python_behind_a_shim)
  if(DEFINED Python3_EXECUTABLE OR DEFINED CACHE{Python3_EXECUTABLE})
    return()
  endif()
  find_program(shim NAMES python3 NO_CACHE)
  if(NOT shim)
    return()
  endif()
  file(READ "${shim}" head LIMIT 2 HEX)
  if(NOT head STREQUAL "2321")   # "#!": a script
    return()
  endif()
  execute_process(COMMAND "${shim}" -c "import sys; print(sys.executable)" OUTPUT_VARIABLE exe
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND IS_ABSOLUTE "${exe}" AND EXISTS "${exe}")
    message(STATUS "banklab: ${shim} is a script; Python is run as ${exe}, the interpreter it starts")
    set(Python3_EXECUTABLE "${exe}" CACHE FILEPATH "The Python interpreter (behind ${shim})")
  endif()
endfunction()

if(NOT DEFINED Python3_Interpreter_FOUND)
  banklab_python_behind_a_shim()
  find_package(Python3 COMPONENTS Interpreter)
endif()
set(BANKLAB_PY ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/../python/banklab_run.py)

# A C++ header generated from a data file and committed (banklab.committed): the configure stops
# when the header is not the data's, saying how to write it again, as it stops on a broken lab
# description; a change of either configures again.
#   banklab_check_generated(<module> <data file> <header>)   e.g. banklab.lab.model_table
function(banklab_check_generated module data header)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${data} ${header})
  if(NOT Python3_FOUND)
    return()
  endif()
  execute_process(COMMAND ${BANKLAB_PY} -m ${module} --check RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${data} and ${header} disagree:\n${err}")
  endif()
endfunction()
