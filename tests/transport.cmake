# Peer-to-peer data plane: the frame codec and PeerTransport over loopback.
find_package(Qt6 6.4 REQUIRED COMPONENTS Test)
add_executable(swarmtrain_transport_tests unit/FrameCodecTest.cpp unit/LinkProberTest.cpp unit/PeerTransportTest.cpp
    unit/RecordOpenerTest.cpp)
target_link_libraries(swarmtrain_transport_tests PRIVATE
    swarmtrain_swarm_transport swarmtrain_test_support Qt6::Test GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_transport_tests LABELS unit)
