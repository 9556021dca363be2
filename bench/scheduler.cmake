# The DT-FM scheduler against the paper's scenarios: fixture parity, cost found vs random, seconds.
# Plain C++ (no Qt, no LibTorch, no Google Benchmark): include() it wherever swarmtrain_scheduler exists.
add_executable(swarmtrain_scheduler_bench ${CMAKE_CURRENT_LIST_DIR}/SchedulerBench.cpp)
target_link_libraries(swarmtrain_scheduler_bench PRIVATE swarmtrain_scheduler nlohmann_json::nlohmann_json)
