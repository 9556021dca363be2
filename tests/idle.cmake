# A Linux desktop's idle time (issue 19): the session's backends, D-Bus services on a private
# dbus-daemon, and the Wayland protocol against a compositor of the test's own and weston.
if(NOT (WIN32 OR APPLE))
    find_package(Qt6 REQUIRED COMPONENTS DBus Test)
    add_executable(swarmtrain_idle_tests
        unit/DbusIdleSourceTest.cpp unit/DesktopIdleSourceTest.cpp unit/IdleBackendTest.cpp)
    set_target_properties(swarmtrain_idle_tests PROPERTIES AUTOMOC ON)
    target_link_libraries(swarmtrain_idle_tests PRIVATE
        swarmtrain_platform_desktop swarmtrain_throttle_monitor swarmtrain_test_support Qt6::DBus Qt6::Test
        GTest::gtest_main)

    # The Wayland tests play the compositor with libwayland-server, where the library was built
    # with the Wayland source.
    get_target_property(desktop_definitions swarmtrain_platform_desktop INTERFACE_COMPILE_DEFINITIONS)
    find_package(PkgConfig)
    if(PkgConfig_FOUND AND "SWARMTRAIN_HAVE_WAYLAND=1" IN_LIST desktop_definitions)
        pkg_check_modules(WaylandServer IMPORTED_TARGET wayland-server)
        pkg_get_variable(wayland_scanner wayland-scanner wayland_scanner)
        pkg_get_variable(wayland_protocols_dir wayland-protocols pkgdatadir)
    endif()
    if(WaylandServer_FOUND)
        set(idle_notify_xml ${wayland_protocols_dir}/staging/ext-idle-notify/ext-idle-notify-v1.xml)
        set(idle_protocol_dir ${CMAKE_CURRENT_BINARY_DIR}/wayland-protocols)
        add_custom_command(OUTPUT ${idle_protocol_dir}/ext-idle-notify-v1-server-protocol.h
            COMMAND ${CMAKE_COMMAND} -E make_directory ${idle_protocol_dir}
            COMMAND ${wayland_scanner} server-header ${idle_notify_xml}
                    ${idle_protocol_dir}/ext-idle-notify-v1-server-protocol.h
            DEPENDS ${idle_notify_xml})
        # The interfaces' definitions come from swarmtrain_platform_desktop's generated code.
        target_sources(swarmtrain_idle_tests PRIVATE
            unit/WaylandIdleSourceTest.cpp ${idle_protocol_dir}/ext-idle-notify-v1-server-protocol.h)
        target_include_directories(swarmtrain_idle_tests PRIVATE ${idle_protocol_dir})
        target_link_libraries(swarmtrain_idle_tests PRIVATE PkgConfig::WaylandServer PkgConfig::WaylandClient)
    endif()
    swarmtrain_add_suites(swarmtrain_idle_tests LABELS unit)
endif()
