# Debian packages with CPack (issue 19), built from the install rules:
#   swarmtrain              the desktop client (also --headless) and swarmtrain-cli   (component client)
#   swarmtrain-coordinator  the swarm coordinator and its system service          (component coordinator)
# installer/package.sh builds them; tests/package/install-test.sh installs them into a clean
# Debian 12 root. Included from the top CMakeLists.txt after the targets.

# Who the packages name as their maintainer, and their homepage: the project has published
# neither yet, so whoever packages it says (-DSWARMTRAIN_PACKAGE_MAINTAINER="Name <address>",
# -DSWARMTRAIN_HOMEPAGE=URL). Without that the maintainer is whoever builds, found as dch finds
# them (DEBFULLNAME and DEBEMAIL), else the author of the source tree's last commit; and the
# packages carry no homepage.
set(SWARMTRAIN_PACKAGE_MAINTAINER "" CACHE STRING
    "Maintainer field of the Debian packages (default: DEBFULLNAME <DEBEMAIL>, else the last commit's author)")
set(SWARMTRAIN_HOMEPAGE "" CACHE STRING "Homepage field of the Debian packages (default: none)")
set(SWARMTRAIN_MAINTAINER "${SWARMTRAIN_PACKAGE_MAINTAINER}")
if(NOT SWARMTRAIN_MAINTAINER AND NOT "$ENV{DEBFULLNAME}" STREQUAL "" AND NOT "$ENV{DEBEMAIL}" STREQUAL "")
    set(SWARMTRAIN_MAINTAINER "$ENV{DEBFULLNAME} <$ENV{DEBEMAIL}>")
endif()
if(NOT SWARMTRAIN_MAINTAINER)
    execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} log -1 "--format=%an <%ae>"
                    OUTPUT_VARIABLE SWARMTRAIN_MAINTAINER OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE git_failed ERROR_QUIET)
    if(git_failed OR NOT SWARMTRAIN_MAINTAINER MATCHES "^[^<>]+ <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>$")
        set(SWARMTRAIN_MAINTAINER "")
    endif()
endif()
if(NOT SWARMTRAIN_MAINTAINER)
    message(FATAL_ERROR "The Debian packages need a maintainer: set DEBFULLNAME and DEBEMAIL, or "
                        "-DSWARMTRAIN_PACKAGE_MAINTAINER=\"Name <address>\"")
endif()
if(SWARMTRAIN_HOMEPAGE)
    set(SWARMTRAIN_SOURCE_LINE "Source: ${SWARMTRAIN_HOMEPAGE}\n")
else()
    set(SWARMTRAIN_SOURCE_LINE "")
endif()
set(SWARMTRAIN_DEB_RELEASE 1)
set(SWARMTRAIN_DEB_VERSION "${PROJECT_VERSION}-${SWARMTRAIN_DEB_RELEASE}")
set(packaging_dir ${CMAKE_CURRENT_LIST_DIR})
set(packaging_out ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${packaging_out})

# The AppStream release entry names this version and gives the date the Debian changelog uses.
set(metainfo ${PROJECT_SOURCE_DIR}/resources/io.github.swarmtrain.SwarmTrain.metainfo.xml)
file(READ ${metainfo} metainfo_text)
string(REPLACE "." "\\." version_regex "${PROJECT_VERSION}")
if(NOT metainfo_text MATCHES "<release version=\"${version_regex}\" date=\"([0-9]+-[0-9]+-[0-9]+)\"")
    message(FATAL_ERROR "${metainfo} has no <release version=\"${PROJECT_VERSION}\" date=\"YYYY-MM-DD\"> entry: "
                        "add one for the project version")
endif()
set(SWARMTRAIN_RELEASE_DATE ${CMAKE_MATCH_1})
execute_process(COMMAND date -u -R -d "${SWARMTRAIN_RELEASE_DATE} 00:00:00"
                OUTPUT_VARIABLE SWARMTRAIN_RELEASE_DATE_RFC2822 OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)

# --- files made at build time: gzipped man pages and Debian changelogs (lintian wants them gzipped)
set(packaging_outputs)
function(swarmtrain_gzip input output)
    add_custom_command(OUTPUT ${output}
        COMMAND sh -c "gzip -9nc \"$1\" > \"$2\"" sh ${input} ${output}
        DEPENDS ${input} VERBATIM)
    set(packaging_outputs ${packaging_outputs} ${output} PARENT_SCOPE)
endfunction()

foreach(page swarmtrain swarmtrain-cli swarmtrain-coordinator)
    swarmtrain_gzip(${packaging_dir}/man/${page}.1 ${packaging_out}/${page}.1.gz)
endforeach()
foreach(package swarmtrain swarmtrain-coordinator)
    set(SWARMTRAIN_DEB_SOURCE ${package})
    configure_file(${packaging_dir}/debian/doc/changelog.Debian.in ${packaging_out}/${package}/changelog.Debian @ONLY)
    configure_file(${packaging_dir}/debian/doc/copyright ${packaging_out}/${package}/copyright @ONLY)
    swarmtrain_gzip(${packaging_out}/${package}/changelog.Debian ${packaging_out}/${package}/changelog.Debian.gz)
endforeach()
add_custom_target(swarmtrain_packaging_files ALL DEPENDS ${packaging_outputs})

# --- install rules of the files that are not targets (the targets' own are in app/*)
install(FILES ${packaging_out}/swarmtrain.1.gz ${packaging_out}/swarmtrain-cli.1.gz
        DESTINATION share/man/man1 COMPONENT client)
install(FILES ${packaging_dir}/systemd/swarmtrain.service DESTINATION lib/systemd/user COMPONENT client)
install(FILES ${packaging_out}/swarmtrain/copyright ${packaging_out}/swarmtrain/changelog.Debian.gz
        DESTINATION share/doc/swarmtrain COMPONENT client)

install(FILES ${packaging_out}/swarmtrain-coordinator.1.gz DESTINATION share/man/man1 COMPONENT coordinator)
install(FILES ${packaging_dir}/systemd/swarmtrain-coordinator.service DESTINATION lib/systemd/system
        COMPONENT coordinator)
install(FILES ${packaging_dir}/coordinator.json DESTINATION /etc/swarmtrain COMPONENT coordinator)
install(FILES ${CMAKE_SOURCE_DIR}/installer/coordinator/haproxy.cfg
        DESTINATION share/doc/swarmtrain-coordinator/examples COMPONENT coordinator)
install(FILES ${packaging_out}/swarmtrain-coordinator/copyright
              ${packaging_out}/swarmtrain-coordinator/changelog.Debian.gz
        DESTINATION share/doc/swarmtrain-coordinator COMPONENT coordinator)

# --- CPack
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME swarmtrain)
set(CPACK_PACKAGE_VENDOR "The SwarmTrain developers")
set(CPACK_PACKAGE_CONTACT "${SWARMTRAIN_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's synopsis is the first line of its description below. CPackDeb would put this
# summary in front of it, except when it is CPack's default, which it therefore is.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL client coordinator)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${SWARMTRAIN_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SWARMTRAIN_MAINTAINER}")
if(SWARMTRAIN_HOMEPAGE)
    set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${SWARMTRAIN_HOMEPAGE})
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# dpkg-shlibdeps turns the binaries' libraries into Debian package names (libtorch, Qt, curl...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# What shlibdeps cannot see: plugins Qt loads at run time (the SQLite driver of stats.db and
# the coordinator's database; the X11 platform plugin is in libqt6gui6, Wayland's is separate),
# and OpenBLAS, which LibTorch must use (the reference BLAS is ~10x slower).
set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME swarmtrain)
set(CPACK_DEBIAN_CLIENT_PACKAGE_SECTION science)
set(CPACK_DEBIAN_CLIENT_PACKAGE_DEPENDS "libqt6sql6-sqlite")
set(CPACK_DEBIAN_CLIENT_PACKAGE_RECOMMENDS "libopenblas0-pthread, qt6-wayland")
set(CPACK_DEBIAN_CLIENT_DESCRIPTION
"volunteer client that trains open language models while the PC is idle
SwarmTrain joins a public training swarm for an open language model, trains
part of it on the PC's GPU (or CPU) in the background while the PC is idle,
steps aside the moment the person wants the machine back, and shows what the
PC has contributed.

This package holds the desktop client (swarmtrain, with a window and a tray
icon), its headless mode (swarmtrain --headless, with a systemd user unit),
and swarmtrain-cli, which controls a running client and drives the training
engine directly.")

set(CPACK_DEBIAN_COORDINATOR_PACKAGE_NAME swarmtrain-coordinator)
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_SECTION science)
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_DEPENDS "adduser, libqt6sql6-sqlite")
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_SUGGESTS "libqt6sql6-psql, postgresql, haproxy")
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_CONTROL_EXTRA
    ${packaging_dir}/debian/coordinator/postinst ${packaging_dir}/debian/coordinator/prerm
    ${packaging_dir}/debian/coordinator/postrm ${packaging_dir}/debian/coordinator/conffiles)
set(CPACK_DEBIAN_COORDINATOR_DESCRIPTION
"coordinator that hosts a SwarmTrain training swarm
swarmtrain-coordinator hosts a swarm of SwarmTrain clients: it cuts a text
corpus into data shards, schedules the training rounds, keeps the credit
ledger, checks the peers' work and serves checkpoints, a REST API and a
public status page.

This package runs it as a systemd service under its own system user, with its
configuration in /etc/swarmtrain/coordinator.json and its state in
/var/lib/swarmtrain-coordinator.")

include(CPack)
cpack_add_component(client DISPLAY_NAME "SwarmTrain client")
cpack_add_component(coordinator DISPLAY_NAME "SwarmTrain coordinator")
