# StatsStore tests (Qt Core and Sql, no LibTorch), with the child process of the crash test.
add_executable(swarmtrain_stats_writer_child support/StatsWriterChild.cpp)
target_link_libraries(swarmtrain_stats_writer_child PRIVATE swarmtrain_stats)

add_executable(swarmtrain_stats_tests unit/StatsStoreTest.cpp)
target_link_libraries(swarmtrain_stats_tests PRIVATE swarmtrain_stats swarmtrain_test_support GTest::gtest_main)
target_compile_definitions(swarmtrain_stats_tests PRIVATE
    STATS_WRITER_CHILD="$<TARGET_FILE:swarmtrain_stats_writer_child>")
add_dependencies(swarmtrain_stats_tests swarmtrain_stats_writer_child)
swarmtrain_add_suites(swarmtrain_stats_tests LABELS unit)
