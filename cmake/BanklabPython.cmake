# How CMake runs the course's Python programs: through python/banklab_run.py, the one file that
# puts the banklab package (python/banklab/) on Python's path (and in PYTHONPATH, for the programs
# they start). BANKLAB_PY is a command: `${BANKLAB_PY} script.py ARGS` or `${BANKLAB_PY} -m MODULE ARGS`.
# Python is looked for once, by the top-level CMakeLists.txt (each find_package(Python3) runs the
# interpreter several times: seven look-ups were 30 % of a first configure): a folder that includes
# this file later sees what was found.
if(NOT DEFINED Python3_Interpreter_FOUND)
  find_package(Python3 COMPONENTS Interpreter)
endif()
set(BANKLAB_PY ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/../python/banklab_run.py)
