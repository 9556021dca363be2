# Fails when a committed .ts file is stale or has untranslated messages (cmake -P; no tools but
# lupdate). lupdate runs over copies of the files, never over the committed ones, and the sets of
# messages are compared rather than the bytes, so another lupdate version's formatting does not
# matter.
#   -DLUPDATE=<lupdate>        -DSOURCE_ROOT=<project root>  -DSOURCES=ui,core/swarm,...
#   -DTS_DIR=<dir of swarmtrain_<language>.ts>  -DLANGUAGES=de,es,...  -DWORK_DIR=<scratch dir>
cmake_minimum_required(VERSION 3.25)

foreach(required LUPDATE SOURCE_ROOT SOURCES TS_DIR LANGUAGES WORK_DIR)
    if(NOT DEFINED ${required} OR "${${required}}" STREQUAL "")
        message(FATAL_ERROR "CheckTranslations.cmake: -D${required}=... is missing")
    endif()
endforeach()
string(REPLACE "," ";" languages "${LANGUAGES}")
string(REPLACE "," ";" sources "${SOURCES}")

# Reads a .ts file into <prefix>_keys (one "context: source (comment)" per message) and
# <prefix>_untranslated (those with an unfinished or empty translation, or an empty plural form).
function(read_ts ts_file prefix)
    file(READ "${ts_file}" text)
    # ";" separates CMake list items and brackets group them: keep both out of the text. A bare
    # "&" cannot occur in XML, so "&SEMI&" and the like cannot clash with a string.
    string(REPLACE ";" "&SEMI&" text "${text}")
    string(REPLACE "[" "&LB&" text "${text}")
    string(REPLACE "]" "&RB&" text "${text}")
    string(REPLACE "</context>" ";" contexts "${text}")
    set(keys "")
    set(untranslated "")
    foreach(context IN LISTS contexts)
        if(NOT context MATCHES "<name>([^<]*)</name>")
            continue()
        endif()
        set(name "${CMAKE_MATCH_1}")
        string(REPLACE "</message>" ";" messages "${context}")
        foreach(message IN LISTS messages)
            if(NOT message MATCHES "<source>([^<]*)</source>")
                continue()
            endif()
            set(key "${name}: \"${CMAKE_MATCH_1}\"")
            if(message MATCHES "<comment>([^<]*)</comment>")
                string(APPEND key " (${CMAKE_MATCH_1})")
            endif()
            if(message MATCHES "<message[^>]*numerus=\"yes\"")
                string(APPEND key " (plural)")
            endif()
            list(APPEND keys "${key}")
            if(message MATCHES "<translation[^>]*type=\"(unfinished|vanished|obsolete)\""
               OR message MATCHES "<translation[^>]*/>"
               OR message MATCHES "<translation[^>]*>[ \t\r\n]*</translation>"
               OR message MATCHES "<numerusform[^>]*/>"
               OR message MATCHES "<numerusform[^>]*>[ \t\r\n]*</numerusform>")
                list(APPEND untranslated "${key}")
            endif()
        endforeach()
    endforeach()
    set(${prefix}_keys "${keys}" PARENT_SCOPE)
    set(${prefix}_untranslated "${untranslated}" PARENT_SCOPE)
endfunction()

# Appends "  <key>" lines for each item of the list named `list_var` to `out_var`, in readable text.
function(append_lines out_var list_var)
    set(lines "${${out_var}}")
    foreach(key IN LISTS ${list_var})
        string(REPLACE "&SEMI&" ";" key "${key}")
        string(REPLACE "&LB&" "[" key "${key}")
        string(REPLACE "&RB&" "]" key "${key}")
        string(REPLACE "&lt;" "<" key "${key}")
        string(REPLACE "&gt;" ">" key "${key}")
        string(REPLACE "&quot;" "\"" key "${key}")
        string(REPLACE "&apos;" "'" key "${key}")
        string(REPLACE "&amp;" "&" key "${key}")
        string(APPEND lines "    ${key}\n")
    endforeach()
    set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

string(RANDOM LENGTH 10 run)
set(scratch "${WORK_DIR}/${run}")
file(MAKE_DIRECTORY "${scratch}")
set(copies "")
foreach(language IN LISTS languages)
    set(committed "${TS_DIR}/swarmtrain_${language}.ts")
    if(NOT EXISTS "${committed}")
        file(REMOVE_RECURSE "${scratch}")
        message(FATAL_ERROR "${committed} is missing: build the target swarmtrain_lupdate to create it")
    endif()
    file(COPY "${committed}" DESTINATION "${scratch}")
    list(APPEND copies "${scratch}/swarmtrain_${language}.ts")
endforeach()

execute_process(
    COMMAND "${LUPDATE}" -no-obsolete -locations none ${sources} -ts ${copies}
    WORKING_DIRECTORY "${SOURCE_ROOT}"
    RESULT_VARIABLE lupdate_result
    OUTPUT_VARIABLE lupdate_output
    ERROR_VARIABLE lupdate_output)
if(NOT lupdate_result EQUAL 0)
    file(REMOVE_RECURSE "${scratch}")
    message(FATAL_ERROR "lupdate failed (${lupdate_result}):\n${lupdate_output}")
endif()

set(report "")
set(message_count 0)
foreach(language IN LISTS languages)
    read_ts("${TS_DIR}/swarmtrain_${language}.ts" committed)
    read_ts("${scratch}/swarmtrain_${language}.ts" current)

    set(missing ${current_keys})
    if(committed_keys)
        list(REMOVE_ITEM missing ${committed_keys})
    endif()
    set(obsolete ${committed_keys})
    if(current_keys)
        list(REMOVE_ITEM obsolete ${current_keys})
    endif()
    set(untranslated ${committed_untranslated})
    if(obsolete)
        list(REMOVE_ITEM untranslated ${obsolete})
    endif()

    list(LENGTH current_keys count)
    math(EXPR message_count "${message_count} + ${count}")
    if(missing)
        list(LENGTH missing n)
        string(APPEND report "swarmtrain_${language}.ts lacks ${n} string(s) the sources have (new or changed):\n")
        append_lines(report missing)
    endif()
    if(obsolete)
        list(LENGTH obsolete n)
        string(APPEND report "swarmtrain_${language}.ts has ${n} string(s) the sources no longer have:\n")
        append_lines(report obsolete)
    endif()
    if(untranslated)
        list(LENGTH untranslated n)
        string(APPEND report "swarmtrain_${language}.ts has ${n} unfinished or empty translation(s):\n")
        append_lines(report untranslated)
    endif()
endforeach()
file(REMOVE_RECURSE "${scratch}")

if(NOT report STREQUAL "")
    message(NOTICE "${report}"
        "Refresh the files with `cmake --build <build dir> --target swarmtrain_lupdate`, "
        "then translate every unfinished message (Qt Linguist, or by hand).")
    message(FATAL_ERROR "The translations are stale or incomplete")
endif()
list(LENGTH languages language_count)
message(STATUS "Translations are current: ${message_count} messages in ${language_count} languages, all translated")
