# The pieces under the desktop client that need no widgets: throttling on a timer, invite links,
# the embedded coordinator.
add_executable(swarmtrain_session_tests
    unit/EmbeddedCoordinatorTest.cpp unit/InviteTest.cpp unit/ThrottleMonitorTest.cpp)
target_link_libraries(swarmtrain_session_tests PRIVATE
    swarmtrain_coordinator swarmtrain_swarm swarmtrain_throttle_monitor swarmtrain_test_support Qt6::Test GTest::gtest_main)
gtest_discover_tests(swarmtrain_session_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
