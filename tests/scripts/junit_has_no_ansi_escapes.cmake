# `ctest --output-junit` must carry no ANSI escapes (issue 13): CTest copies each test's
# output into <system-out> and writes ESC as [NON-XML-CHAR-0x1B]. Runs two small tests (a
# pure and a SystemC Boost.Test executable) with --output-junit and checks the file.
# Usage: cmake -DBUILD_DIR=... -DJUNIT=... -P junit_has_no_ansi_escapes.cmake
set(tests "^network\\.test_dragonfly\\.dragonfly_local_port_formula$|^tb\\.test_cosim_harness\\.cli_empty_replay_name_exits_2$")
file(REMOVE ${JUNIT})
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${BUILD_DIR} -R ${tests}
                        --output-junit ${JUNIT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest -R '${tests}' failed (${rc}):\n${out}")
endif()
file(READ ${JUNIT} text)
string(ASCII 27 esc)
string(FIND "${text}" "${esc}" at_esc)
string(FIND "${text}" "NON-XML-CHAR-0x1B" at_escaped)
if(NOT at_esc EQUAL -1 OR NOT at_escaped EQUAL -1)
  message(FATAL_ERROR "${JUNIT} carries ANSI escapes:\n${text}")
endif()
string(FIND "${text}" "tests=\"2\"" at_count)
if(at_count EQUAL -1)
  message(FATAL_ERROR "${JUNIT} does not hold the 2 tests run:\n${text}")
endif()
message(STATUS "${JUNIT}: no ANSI escapes")
