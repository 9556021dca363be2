# The corpus library (core/corpus): readers of hostile and good corpus files, the token shard
# format, the tokenizing pass's split and its resume.
find_package(ZLIB REQUIRED)
add_executable(swarmtrain_corpus_tests
    unit/BadRecordsTest.cpp unit/ByteSourceTest.cpp unit/CorpusInputsTest.cpp unit/CorpusReaderTest.cpp
    unit/CorpusTokenizerTest.cpp unit/CorpusVocabularyTest.cpp unit/JsonLinesReaderTest.cpp unit/LineReaderTest.cpp
    unit/LlmcBinHeaderTest.cpp unit/ShardJournalTest.cpp unit/TextDocumentReaderTest.cpp unit/TokenBinReaderTest.cpp
    unit/TokenShardTest.cpp)
target_link_libraries(swarmtrain_corpus_tests PRIVATE
    swarmtrain_corpus swarmtrain_test_support ZLIB::ZLIB PkgConfig::Zstd GTest::gtest_main)
swarmtrain_add_suites(swarmtrain_corpus_tests LABELS unit)

# Real corpora end to end: swarmtrain-cli tokenizer train, the coordinator's pass stopped and
# resumed, two headless clients training on the shards (integration).
if(NOT SWARMTRAIN_ENGINE_ONLY)
    add_executable(swarmtrain_corpus_swarm_tests integration/CorpusSwarmTest.cpp)
    target_link_libraries(swarmtrain_corpus_swarm_tests PRIVATE
        swarmtrain_corpus swarmtrain_swarm_control swarmtrain_core swarmtrain_test_support ZLIB::ZLIB PkgConfig::Zstd
        Qt6::Core GTest::gtest_main)
    target_compile_definitions(swarmtrain_corpus_swarm_tests PRIVATE
        SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>"
        SWARMTRAIN_CLI="$<TARGET_FILE:swarmtrain-cli>")
    add_dependencies(swarmtrain_corpus_swarm_tests swarmtrain-coordinator swarmtrain swarmtrain-cli)
    swarmtrain_add_suites(swarmtrain_corpus_swarm_tests LABELS integration TIMEOUT 600)
endif()
