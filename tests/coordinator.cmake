# Coordinator tests: store, rounds, shards, config and the REST API in-process (unit), and the
# real swarmtrain-coordinator process killed and restarted (integration).
add_executable(swarmtrain_coordinator_tests
    unit/AdmissionTest.cpp unit/BoundedHttpServerTest.cpp unit/CoordinatorConfigTest.cpp unit/CoordinatorRoundsTest.cpp
    unit/CoordinatorOwnerDisputesTest.cpp unit/CoordinatorServerTest.cpp unit/PipelineStepsTest.cpp
    unit/CoordinatorStoreTest.cpp unit/CoordinatorStoreInstancesTest.cpp unit/LinkBookTest.cpp unit/LinkMatrixTest.cpp unit/RouteTableTest.cpp
    unit/RateLimiterTest.cpp unit/ScheduleServiceTest.cpp unit/ShardManifestTest.cpp unit/TimeBudgetTest.cpp)
target_link_libraries(swarmtrain_coordinator_tests PRIVATE
    swarmtrain_coordinator swarmtrain_test_support Qt6::Test GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_coordinator_tests LABELS unit)

add_executable(swarmtrain_coordinator_process_tests integration/CoordinatorProcessTest.cpp)
target_link_libraries(swarmtrain_coordinator_process_tests PRIVATE
    swarmtrain_core swarmtrain_coordinator_store swarmtrain_invite swarmtrain_swarm_control swarmtrain_test_support Qt6::Network Qt6::Sql GTest::gtest_main)
target_compile_definitions(swarmtrain_coordinator_process_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>")
add_dependencies(swarmtrain_coordinator_process_tests swarmtrain-coordinator)
swarmtrain_add_suites(swarmtrain_coordinator_process_tests LABELS integration)

# The public status page (GET /): its headers, its self-containedness and the figures it reads
# from /v1/status, in-process (unit).
add_executable(swarmtrain_status_page_tests unit/StatusPageEndpointTest.cpp)
target_link_libraries(swarmtrain_status_page_tests PRIVATE
    swarmtrain_coordinator swarmtrain_test_support Qt6::Network GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_status_page_tests LABELS unit)

# The status page in Debian's headless Chromium against a real coordinator and a headless client;
# it skips without chromium. The screenshot goes next to the GUI tests' ones (integration).
add_executable(swarmtrain_status_page_browser_tests integration/StatusPageTest.cpp)
target_link_libraries(swarmtrain_status_page_browser_tests PRIVATE
    swarmtrain_coordinator swarmtrain_test_support GTest::gtest_main)
target_compile_definitions(swarmtrain_status_page_browser_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>"
    SWARMTRAIN_SCREENSHOT_DIR="${CMAKE_BINARY_DIR}/screenshots")
add_dependencies(swarmtrain_status_page_browser_tests swarmtrain-coordinator swarmtrain)
swarmtrain_add_suites(swarmtrain_status_page_browser_tests LABELS integration TIMEOUT 900)

# Several coordinator instances on a real PostgreSQL behind the shipped HAProxy configuration, with
# three headless clients, a leader killed and the database restarted (integration; skipped without
# PostgreSQL or HAProxy).
add_executable(swarmtrain_multi_instance_tests integration/MultiInstanceSwarmTest.cpp)
target_link_libraries(swarmtrain_multi_instance_tests PRIVATE
    swarmtrain_coordinator swarmtrain_swarm swarmtrain_test_support GTest::gtest_main)
target_compile_definitions(swarmtrain_multi_instance_tests PRIVATE
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>"
    SWARMTRAIN_HAPROXY_CONFIG="${CMAKE_SOURCE_DIR}/installer/coordinator/haproxy.cfg")
add_dependencies(swarmtrain_multi_instance_tests swarmtrain-coordinator swarmtrain)
swarmtrain_add_suites(swarmtrain_multi_instance_tests LABELS integration TIMEOUT 1200)
