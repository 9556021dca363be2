# Hostile peers against real processes on loopback (DESIGN.md, "Testing"; issue 16): attackers
# speak the protocol themselves or run a client with a misbehaviour that release builds lack.
# Each attack's test prints one line of the table: attack, detected, rounds until banned, loss delta.
function(swarmtrain_adversary_test name)
    add_executable(${name} ${ARGN})
    target_link_libraries(${name} PRIVATE
        swarmtrain_coordinator swarmtrain_swarm swarmtrain_test_support Qt6::Network Qt6::Test GTest::gtest_main)
    target_compile_definitions(${name} PRIVATE
        SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>")
    add_dependencies(${name} swarmtrain-coordinator swarmtrain)
    gtest_discover_tests(${name} PROPERTIES LABELS adversary TIMEOUT 900 DISCOVERY_TIMEOUT 60)
endfunction()
swarmtrain_adversary_test(swarmtrain_protocol_adversary_tests adversary/ProtocolAttackTest.cpp)
swarmtrain_adversary_test(swarmtrain_http_adversary_tests adversary/HttpExhaustionTest.cpp)

# A man in the middle on the data plane: bit flips, a replayed record, a swapped ephemeral key.
swarmtrain_adversary_test(swarmtrain_data_plane_tamper_tests adversary/DataPlaneTamperTest.cpp)
