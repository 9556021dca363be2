# The control plane's messages: codecs, bounds, the field names in decode errors.
add_executable(swarmtrain_protocol_tests unit/ControlMessagesTest.cpp unit/DisplayNameTest.cpp unit/PipelineMessagesTest.cpp
    unit/RangeCheckersTest.cpp)
target_link_libraries(swarmtrain_protocol_tests PRIVATE swarmtrain_protocol GTest::gtest_main)
gtest_discover_tests(swarmtrain_protocol_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
