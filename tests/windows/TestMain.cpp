#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

// WinProcessListTest starts a copy of this executable under a name of its own, which must stay
// alive until the test has looked: it waits here until the test closes its standard input.
int main(int argc, char **argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--wait-for-end-of-input") == 0) {
        while (std::getchar() != EOF) {
        }
        return 0;
    }
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
