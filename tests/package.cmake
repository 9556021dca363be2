# The Debian packages installed into a clean Debian 12 root (issue 19; tests/package/install-test.sh):
# lintian, appstreamcli, desktop-file-validate, then the packaged coordinator and headless client
# train 3 rounds in a chroot. Minutes of work, so only under its own label: ctest -L package
# (installer/run-tests.sh runs it when installer/packaging-hash.sh differs from what it last
# passed with on this machine). Skipped without root or debootstrap.
add_test(NAME PackageInstallTest COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/package/install-test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(PackageInstallTest PROPERTIES LABELS package SKIP_RETURN_CODE 77 TIMEOUT 2400 RUN_SERIAL ON)
