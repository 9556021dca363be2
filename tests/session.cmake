# The pieces under the desktop client that need no widgets: throttling on a timer, the GPU's
# figures sampled from a fake NVML, invite links, the embedded coordinator.
add_executable(swarmtrain_session_tests
    unit/DeviceProfileTest.cpp unit/EmbeddedCoordinatorTest.cpp unit/GpuSamplerTest.cpp unit/InviteTest.cpp
    unit/ThrottleMonitorTest.cpp unit/WorkerGroupTest.cpp)
target_link_libraries(swarmtrain_session_tests PRIVATE
    swarmtrain_coordinator swarmtrain_swarm swarmtrain_throttle_monitor swarmtrain_test_support Qt6::Test GTest::gtest_main)
target_compile_definitions(swarmtrain_session_tests PRIVATE
    FAKE_NVML="$<TARGET_FILE:swarmtrain_fake_nvml>" GPU_PROBE_CHILD="$<TARGET_FILE:swarmtrain_gpu_probe_child>")
add_dependencies(swarmtrain_session_tests swarmtrain_fake_nvml swarmtrain_gpu_probe_child)
swarmtrain_add_suites(swarmtrain_session_tests LABELS unit)
