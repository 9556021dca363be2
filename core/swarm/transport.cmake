# swarmtrain_swarm_transport: the peer-to-peer data plane (frames, the frame codec, PeerTransport).
add_library(swarmtrain_swarm_transport STATIC
    proto/frame.proto
    FrameCodec.cpp FrameDecoder.cpp
    PeerTransport.cpp PeerTransportConnection.cpp PeerTransportHandshake.cpp)
# frame.proto -> ${CMAKE_CURRENT_BINARY_DIR}/proto/frame.pb.{h,cc}, included as "proto/frame.pb.h".
protobuf_generate(TARGET swarmtrain_swarm_transport LANGUAGE cpp
    IMPORT_DIRS ${CMAKE_CURRENT_SOURCE_DIR} PROTOC_OUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
set_target_properties(swarmtrain_swarm_transport PROPERTIES AUTOMOC ON)
target_include_directories(swarmtrain_swarm_transport PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(swarmtrain_swarm_transport
    PUBLIC swarmtrain_options swarmtrain_core Qt6::Network protobuf::libprotobuf)
