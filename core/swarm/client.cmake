# swarmtrain_swarm_client: the client's control plane, signed HTTP(S) to the coordinator on libcurl.
add_library(swarmtrain_swarm_client STATIC
    ${CMAKE_CURRENT_LIST_DIR}/CoordinatorClient.cpp ${CMAKE_CURRENT_LIST_DIR}/HttpBackoff.cpp
    ${CMAKE_CURRENT_LIST_DIR}/HttpPartFile.cpp ${CMAKE_CURRENT_LIST_DIR}/HttpTransfer.cpp)
target_include_directories(swarmtrain_swarm_client PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(swarmtrain_swarm_client
    PUBLIC swarmtrain_options swarmtrain_core Qt6::Core
    PRIVATE CURL::libcurl OpenSSL::SSL)
