# The control plane's messages: codecs, bounds, the field names in decode errors.
add_executable(swarmtrain_protocol_tests unit/ControlMessagesTest.cpp unit/DisplayNameTest.cpp unit/PipelineMessagesTest.cpp
    unit/RangeCheckersTest.cpp)
target_link_libraries(swarmtrain_protocol_tests PRIVATE swarmtrain_protocol GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_protocol_tests LABELS unit)
