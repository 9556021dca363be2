# One ctest test per GoogleTest test suite (Suite.* in one process), instead of one process per
# test as gtest_discover_tests makes: each process that links LibTorch and Qt takes about half a
# second to start, which over 900 tests was a third of the suite's time on two cores. Suites
# still run in parallel under ctest -j, and a failure's output names the failing test.
#
#   swarmtrain_add_suites(TARGET LABELS label... [TIMEOUT seconds] [ENVIRONMENT VAR=value...])
#
# Each suite's COST is its test count times a weight of its labels (integration and adversary
# tests run real processes for seconds to minutes), so that ctest -j starts the long suites
# first even on a fresh clone, which has no timings of an earlier run to order them by.
#
# After each build of TARGET, a script lists its suites (--gtest_list_tests) into a file ctest
# includes, so adding a suite needs no CMake change.
set(SWARMTRAIN_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/SuiteTestsList.cmake)

function(swarmtrain_add_suites target)
    cmake_parse_arguments(arg "" "TIMEOUT" "LABELS;ENVIRONMENT" ${ARGN})
    if(NOT arg_TIMEOUT)
        set(arg_TIMEOUT 1500)
    endif()
    set(weight 1)
    if("adversary" IN_LIST arg_LABELS)
        set(weight 100) # each runs a swarm twice, with and without attackers
    elseif("integration" IN_LIST arg_LABELS)
        set(weight 30)
    elseif("gui" IN_LIST arg_LABELS)
        set(weight 5)
    endif()
    set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
    string(REPLACE ";" "," labels "${arg_LABELS}")
    string(REPLACE ";" "," environment "${arg_ENVIRONMENT}")
    add_custom_command(TARGET ${target} POST_BUILD
        COMMAND ${CMAKE_COMMAND} -D "EXECUTABLE=$<TARGET_FILE:${target}>" -D "CTEST_FILE=${ctest_file}"
                -D "LABELS=${labels}" -D "TIMEOUT=${arg_TIMEOUT}" -D "ENVIRONMENT=${environment}" -D "WEIGHT=${weight}"
                -P ${SWARMTRAIN_SUITES_SCRIPT}
        BYPRODUCTS ${ctest_file}
        VERBATIM)
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${ctest_file})
endfunction()
