# Shows that CheckTranslations.cmake can fail: runs it on a small scratch project (one source file,
# one German .ts file) that is current, then with a new string, a removed string, an unfinished
# message and an empty plural form, and expects it to name each problem.
#   -DLUPDATE=<lupdate>  -DCHECK_SCRIPT=<CheckTranslations.cmake>  -DWORK_DIR=<scratch dir>
cmake_minimum_required(VERSION 3.25)

string(RANDOM LENGTH 10 run)
set(root "${WORK_DIR}/${run}")
file(REMOVE_RECURSE "${root}")
file(MAKE_DIRECTORY "${root}/src" "${root}/ts")

set(source_current [=[
#include <QCoreApplication>
#include <QObject>
namespace swarmtrain {
class Scratch : public QObject
{
    Q_OBJECT
public:
    QString texts(int steps) const
    {
        return tr("Pause training") + tr("%n step(s)", nullptr, steps)
            + QCoreApplication::translate("swarmtrain::Helper", "Resume; now [soon]");
    }
};
}
]=])

set(ts_current [=[<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
<context>
    <name>swarmtrain::Helper</name>
    <message>
        <source>Resume; now [soon]</source>
        <translation>Fortsetzen; jetzt [bald]</translation>
    </message>
</context>
<context>
    <name>swarmtrain::Scratch</name>
    <message>
        <source>Pause training</source>
        <translation>Training anhalten</translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n Schritt</numerusform>
            <numerusform>%n Schritte</numerusform>
        </translation>
    </message>
</context>
</TS>
]=])

# Runs the check on the scratch project; sets `result` and `output`.
function(run_check source ts)
    file(WRITE "${root}/src/Scratch.cpp" "${source}")
    file(WRITE "${root}/ts/swarmtrain_de.ts" "${ts}")
    execute_process(
        COMMAND "${CMAKE_COMMAND}" -DLUPDATE=${LUPDATE} -DSOURCE_ROOT=${root} -DSOURCES=src
            -DTS_DIR=${root}/ts -DLANGUAGES=de -DWORK_DIR=${root}/work -P "${CHECK_SCRIPT}"
        RESULT_VARIABLE check_result
        OUTPUT_VARIABLE check_output
        ERROR_VARIABLE check_output)
    set(result "${check_result}" PARENT_SCOPE)
    set(output "${check_output}" PARENT_SCOPE)
endfunction()

set(failures "")
# expect_failure(<case> <source> <ts> <text the report must contain>)
function(expect_failure name source ts expected)
    run_check("${source}" "${ts}")
    string(FIND "${output}" "${expected}" at)
    if(result EQUAL 0 OR at EQUAL -1)
        set(failures "${failures}${name}: expected a failure naming '${expected}', got (${result}):\n${output}\n" PARENT_SCOPE)
    endif()
endfunction()

run_check("${source_current}" "${ts_current}")
if(NOT result EQUAL 0)
    string(APPEND failures "current files: expected success, got (${result}):\n${output}\n")
endif()

string(REPLACE [[tr("Pause training")]] [[tr("Pause training") + tr("Brand-new string")]] source_new "${source_current}")
expect_failure("new string" "${source_new}" "${ts_current}"
    "lacks 1 string(s) the sources have (new or changed):\n    swarmtrain::Scratch: \"Brand-new string\"")

string(REPLACE [[tr("Pause training")]] [[tr("Pause the training")]] source_changed "${source_current}")
expect_failure("changed string" "${source_changed}" "${ts_current}" "swarmtrain::Scratch: \"Pause the training\"")
expect_failure("changed string, old one" "${source_changed}" "${ts_current}"
    "no longer have:\n    swarmtrain::Scratch: \"Pause training\"")

string(REPLACE [[tr("Pause training") + ]] "" source_removed "${source_current}")
expect_failure("removed string" "${source_removed}" "${ts_current}"
    "no longer have:\n    swarmtrain::Scratch: \"Pause training\"")

string(REPLACE [[<translation>Training anhalten</translation>]] [[<translation type="unfinished">Training anhalten</translation>]]
    ts_unfinished "${ts_current}")
expect_failure("unfinished" "${source_current}" "${ts_unfinished}"
    "1 unfinished or empty translation(s):\n    swarmtrain::Scratch: \"Pause training\"")

string(REPLACE [[<translation>Fortsetzen; jetzt [bald]</translation>]] [[<translation></translation>]] ts_empty "${ts_current}")
expect_failure("empty translation" "${source_current}" "${ts_empty}"
    "1 unfinished or empty translation(s):\n    swarmtrain::Helper: \"Resume; now [soon]\"")

string(REPLACE [[<numerusform>%n Schritte</numerusform>]] [[<numerusform></numerusform>]] ts_plural "${ts_current}")
expect_failure("empty plural form" "${source_current}" "${ts_plural}" "swarmtrain::Scratch: \"%n step(s)\" (plural)")

file(REMOVE_RECURSE "${root}")
if(NOT failures STREQUAL "")
    message(FATAL_ERROR "${failures}")
endif()
message(STATUS "CheckTranslations.cmake reported every stale or untranslated case")
