# LinkEmulator: a user-space WAN link emulator (delay, rate, sites) for tests and benchmarks, since
# the kernel's netem is not everywhere. Qt Network only, no LibTorch.
find_package(Qt6 6.4 REQUIRED COMPONENTS Network Test)
add_library(swarmtrain_link_emulator STATIC
    support/LinkEmulator.cpp support/LinkModel.cpp support/RelayedConnection.cpp)
# core/engine for Result.h only, as swarmtrain_platform does.
target_include_directories(swarmtrain_link_emulator PUBLIC
    ${CMAKE_CURRENT_SOURCE_DIR}/support ${PROJECT_SOURCE_DIR}/core/engine)
target_link_libraries(swarmtrain_link_emulator PUBLIC swarmtrain_options Qt6::Network)

add_executable(swarmtrain_link_emulator_tests unit/LinkEmulatorTest.cpp unit/LinkModelTest.cpp)
target_link_libraries(swarmtrain_link_emulator_tests PRIVATE
    swarmtrain_link_emulator swarmtrain_test_support Qt6::Test GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_link_emulator_tests LABELS unit)
