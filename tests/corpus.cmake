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
gtest_discover_tests(swarmtrain_corpus_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
