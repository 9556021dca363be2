# The desktop client's widgets under QT_QPA_PLATFORM=offscreen (label gui). Screenshots of every
# page, in English and in German, go to SWARMTRAIN_SCREENSHOT_DIR (the test log says where).
add_executable(swarmtrain_gui_tests
    gui/MainWindowTest.cpp gui/ModelPageTest.cpp gui/DashboardPageTest.cpp gui/SwarmPageTest.cpp gui/TrayIconTest.cpp
    gui/PreferencesTest.cpp gui/SettingsPageTest.cpp gui/DevicePageTest.cpp gui/LogPageTest.cpp gui/GuiTestMain.cpp
    gui/ClientSessionTest.cpp)
target_link_libraries(swarmtrain_gui_tests PRIVATE
    swarmtrain_ui swarmtrain_test_support Qt6::Test GTest::gtest)
target_compile_definitions(swarmtrain_gui_tests PRIVATE
    SWARMTRAIN_SCREENSHOT_DIR="${CMAKE_BINARY_DIR}/screenshots"
    GPU_PROBE_CHILD="$<TARGET_FILE:swarmtrain_gpu_probe_child>"
    SWARMTRAIN_COORDINATOR="$<TARGET_FILE:swarmtrain-coordinator>")
add_dependencies(swarmtrain_gui_tests swarmtrain_gpu_probe_child swarmtrain-coordinator)
swarmtrain_add_suites(swarmtrain_gui_tests LABELS gui ENVIRONMENT QT_QPA_PLATFORM=offscreen TIMEOUT 180)
# DevicePageTest and SettingsPageTest probe a fake NVML library through the probe child.
set_source_files_properties(gui/DevicePageTest.cpp gui/SettingsPageTest.cpp PROPERTIES
    COMPILE_DEFINITIONS FAKE_NVML="$<TARGET_FILE:swarmtrain_fake_nvml>")
add_dependencies(swarmtrain_gui_tests swarmtrain_fake_nvml)
target_sources(swarmtrain_gui_tests PRIVATE gui/LogCaptureTest.cpp)
# The GPU choice in Settings: ClientSessionTest probes the fake NVML for the GPUs it chooses.
target_sources(swarmtrain_gui_tests PRIVATE gui/GpuChoiceTest.cpp)
set_source_files_properties(gui/ClientSessionTest.cpp PROPERTIES
    COMPILE_DEFINITIONS FAKE_NVML="$<TARGET_FILE:swarmtrain_fake_nvml>")
