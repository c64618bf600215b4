# Writes an SVG with `banklab explain --svg` and parses it with Python's xml.dom.minidom.
# -DBANKLAB_EXE=... -DPYTHON=... -DOUT=<folder>
set(svg ${OUT}/minidom_check.svg)
execute_process(COMMAND ${BANKLAB_EXE} explain ld 8 "lane*16 + (lane & 1)*8" --svg ${svg}
                        --title "Title with <markup> & \"quotes\" and é" -q
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "banklab explain --svg failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${PYTHON} -c "import xml.dom.minidom,sys; d=xml.dom.minidom.parse(sys.argv[1]); assert d.documentElement.tagName == 'svg'"
                        ${svg}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${svg} is not well-formed XML: ${err}")
endif()
