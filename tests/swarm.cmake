# Pipeline-stage mode's plain parts (unit).
add_executable(swarmtrain_pipeline_tests unit/HopChooserTest.cpp)
target_link_libraries(swarmtrain_pipeline_tests PRIVATE swarmtrain_swarm_pipeline GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_pipeline_tests LABELS unit)

# Pipeline-stage mode over real sockets on loopback: stage servers, the trainer's driver, retries,
# hostile requests and answers (unit: one process, seconds).
add_executable(swarmtrain_pipeline_loopback_tests unit/PipelineLoopbackTest.cpp)
target_link_libraries(swarmtrain_pipeline_loopback_tests PRIVATE
    swarmtrain_swarm_pipeline swarmtrain_test_support Qt6::Test GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_pipeline_loopback_tests LABELS unit)

# The swarm end to end: a real coordinator and headless clients on loopback (integration).
add_executable(swarmtrain_swarm_process_tests integration/SwarmProcessTest.cpp)
target_link_libraries(swarmtrain_swarm_process_tests PRIVATE
    swarmtrain_coordinator swarmtrain_swarm swarmtrain_test_support Qt6::Test GTest::gtest_main)
target_compile_definitions(swarmtrain_swarm_process_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>")
add_dependencies(swarmtrain_swarm_process_tests swarmtrain-coordinator swarmtrain)
swarmtrain_add_suites(swarmtrain_swarm_process_tests LABELS integration TIMEOUT 600)

# Pipeline-stage mode end to end: a coordinator and six headless clients in three stages, a
# stage peer killed and restarted, then gone in its stage's all-reduce (swarmtrain-hostile's
# vanish-in-all-reduce), the coordinator killed and restarted (integration).
add_executable(swarmtrain_pipeline_swarm_tests integration/PipelineSwarmTest.cpp)
target_link_libraries(swarmtrain_pipeline_swarm_tests PRIVATE
    swarmtrain_coordinator swarmtrain_swarm swarmtrain_test_support Qt6::Test GTest::gtest_main)
target_compile_definitions(swarmtrain_pipeline_swarm_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>"
    SWARMTRAIN_HOSTILE="$<TARGET_FILE:swarmtrain-hostile>")
add_dependencies(swarmtrain_pipeline_swarm_tests swarmtrain-coordinator swarmtrain swarmtrain-hostile)
swarmtrain_add_suites(swarmtrain_pipeline_swarm_tests LABELS integration TIMEOUT 900)

# The swarmtrain binary on its own: how it ends when it cannot start (integration).
add_executable(swarmtrain_client_process_tests integration/ClientProcessTest.cpp)
target_link_libraries(swarmtrain_client_process_tests PRIVATE
    swarmtrain_options swarmtrain_test_support Qt6::Core GTest::gtest_main)
target_compile_definitions(swarmtrain_client_process_tests PRIVATE
    SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>" SWARMTRAIN_HAS_DESKTOP=$<BOOL:${SWARMTRAIN_GUI}>
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>")
add_dependencies(swarmtrain_client_process_tests swarmtrain swarmtrain-coordinator)
swarmtrain_add_suites(swarmtrain_client_process_tests LABELS integration)

# Links measured between real peers and the schedule made of them, directly and through the
# user-space link emulator (integration).
add_executable(swarmtrain_swarm_links_tests integration/SwarmLinksTest.cpp)
target_link_libraries(swarmtrain_swarm_links_tests PRIVATE
    swarmtrain_swarm_control swarmtrain_coordinator_store swarmtrain_protocol swarmtrain_link_emulator
    swarmtrain_test_support Qt6::Test GTest::gtest_main)
target_compile_definitions(swarmtrain_swarm_links_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>")
add_dependencies(swarmtrain_swarm_links_tests swarmtrain-coordinator swarmtrain)
swarmtrain_add_suites(swarmtrain_swarm_links_tests LABELS integration TIMEOUT 600)

# Ctrl-C at any moment of a headless client's life in a real swarm (integration).
add_executable(swarmtrain_client_interrupt_tests integration/ClientInterruptTest.cpp)
target_link_libraries(swarmtrain_client_interrupt_tests PRIVATE
    swarmtrain_stats swarmtrain_engine swarmtrain_test_support GTest::gtest_main)
target_compile_definitions(swarmtrain_client_interrupt_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>")
add_dependencies(swarmtrain_client_interrupt_tests swarmtrain-coordinator swarmtrain)
swarmtrain_add_suites(swarmtrain_client_interrupt_tests LABELS integration TIMEOUT 600)

# swarmtrain-cli's control commands against a running headless client (integration).
add_executable(swarmtrain_local_control_tests integration/LocalControlTest.cpp)
target_link_libraries(swarmtrain_local_control_tests PRIVATE
    swarmtrain_options swarmtrain_test_support nlohmann_json::nlohmann_json Qt6::Core GTest::gtest_main)
target_compile_definitions(swarmtrain_local_control_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>"
    SWARMTRAIN_CLI="$<TARGET_FILE:swarmtrain-cli>")
add_dependencies(swarmtrain_local_control_tests swarmtrain-coordinator swarmtrain swarmtrain-cli)
swarmtrain_add_suites(swarmtrain_local_control_tests LABELS integration TIMEOUT 600)
