# Hostile peers against real processes on loopback (DESIGN.md, "Testing"; issue 16): attackers
# speak the protocol themselves or run a client with a misbehaviour that release builds lack.
# Each attack's test prints one line of the table: attack, detected, rounds until banned, loss delta.

# swarmtrain-hostile: the headless client with --misbehave (tests/adversary/HostileClientMain.cpp).
# Built with the tests only; never installed or packaged.
add_executable(swarmtrain-hostile adversary/HostileClientMain.cpp)
target_link_libraries(swarmtrain-hostile PRIVATE swarmtrain_client_headless)

# swarmtrain_adversary_test(NAME [TIMEOUT SECONDS] SOURCES...): 900 s unless told.
function(swarmtrain_adversary_test name)
    cmake_parse_arguments(arg "" "TIMEOUT" "" ${ARGN})
    if(NOT arg_TIMEOUT)
        set(arg_TIMEOUT 900)
    endif()
    add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
    target_link_libraries(${name} PRIVATE
        swarmtrain_coordinator swarmtrain_swarm swarmtrain_test_support Qt6::Network Qt6::Test GTest::gtest_main)
    target_compile_definitions(${name} PRIVATE
        SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>" SWARMTRAIN_CLIENT="$<TARGET_FILE:swarmtrain>"
        SWARMTRAIN_HOSTILE="$<TARGET_FILE:swarmtrain-hostile>")
    add_dependencies(${name} swarmtrain-coordinator swarmtrain swarmtrain-hostile)
    swarmtrain_add_suites(${name} LABELS adversary TIMEOUT ${arg_TIMEOUT})
endfunction()
swarmtrain_adversary_test(swarmtrain_protocol_adversary_tests adversary/ProtocolAttackTest.cpp)
swarmtrain_adversary_test(swarmtrain_http_adversary_tests adversary/HttpExhaustionTest.cpp)

# A man in the middle on the data plane: bit flips, a replayed record, a swapped ephemeral key.
swarmtrain_adversary_test(swarmtrain_data_plane_tamper_tests adversary/DataPlaneTamperTest.cpp)

swarmtrain_adversary_test(swarmtrain_poisoned_update_tests adversary/PoisonedUpdateTest.cpp)
swarmtrain_adversary_test(swarmtrain_far_future_frames_tests adversary/FarFutureFramesTest.cpp)

# Freeloaders (zero, noise) and an equivocator against commitments and spot checks.
swarmtrain_adversary_test(swarmtrain_spot_check_tests adversary/SpotCheckTest.cpp)

# In-process attacks on the verification endpoints: forged, replayed and misdirected commitments,
# uploads and spot-check reports; verifier choice; a ban's forfeit.
swarmtrain_adversary_test(swarmtrain_verification_attack_tests adversary/VerificationAttackTest.cpp)

# Two owners per range: a lying owner found by its range partners' disputes, strangers' disputes
# ignored, a liar's blame of the honest without effect, and the commitments a checker is given;
# owners' evidence, audits, and a checker standing in for an owner that committed nothing.
swarmtrain_adversary_test(swarmtrain_owner_dispute_tests adversary/OwnerDisputeTest.cpp)

# A range owner that lies about its range's average, against the range's second owner (checker).
swarmtrain_adversary_test(swarmtrain_lying_owner_tests adversary/LyingOwnerTest.cpp)

# Two colluding range partners among three owners, against the coordinator's rulings on the
# honest owner's evidence (issue 43), and with the rulings off.
swarmtrain_adversary_test(swarmtrain_colluding_partners_tests adversary/ColludingPartnersTest.cpp TIMEOUT 1800)

# A member that commits nothing and sends nothing, against the commit timeout (issue 43), and
# what its stalls cost the model, against its checker standing in for it.
swarmtrain_adversary_test(swarmtrain_stalling_member_tests adversary/StallingMemberTest.cpp)

# Hostile display names at the join: too long, control characters, bidi overrides, only spaces,
# not a string; markup kept as text (issue 19).
swarmtrain_adversary_test(swarmtrain_display_name_attack_tests adversary/DisplayNameAttackTest.cpp)

# A coordinator handing peers a tokenizer of another hash than it advertises, or token shards
# whose headers lie (issue 42).
swarmtrain_adversary_test(swarmtrain_tokenizer_attack_tests adversary/TokenizerAttackTest.cpp support/TestHttpServer.cpp)
target_link_libraries(swarmtrain_tokenizer_attack_tests PRIVATE OpenSSL::SSL)

# Sybils of one subnet reporting a forged hash at a public swarm's first rounds, before anyone is
# established (issue 43).
swarmtrain_adversary_test(swarmtrain_bootstrap_sybil_tests adversary/BootstrapSybilTest.cpp)

# A pipeline stage peer answering wrong (gradients x -4, zeroed activations, noise), against the
# trainers' cross-checks and the coordinator's naming (issue 43). Six swarms of six processes, one
# after the other: about 4 minutes on an idle 2-core machine, so a busy one gets more time.
swarmtrain_adversary_test(swarmtrain_hostile_stage_tests TIMEOUT 1800 adversary/HostileStageTest.cpp)
