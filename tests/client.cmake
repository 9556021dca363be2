# CoordinatorClient against a scripted HTTP(S) server on 127.0.0.1 in the test process.
add_executable(swarmtrain_client_tests unit/CoordinatorClientTest.cpp support/TestHttpServer.cpp)
target_link_libraries(swarmtrain_client_tests PRIVATE
    swarmtrain_swarm_control swarmtrain_test_support OpenSSL::SSL GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_client_tests LABELS unit)
