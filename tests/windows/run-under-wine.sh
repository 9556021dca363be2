#!/usr/bin/env bash
# Runs a cross-built Windows test executable under Wine, in a Wine prefix of its own.
# Usage: run-under-wine.sh WINE WINESERVER PREFIX EXE [ARGUMENTS...]
set -uo pipefail
wine=$1 wineserver=$2 prefix=$3 exe=$4
shift 4

if [[ ! -f $exe ]]; then
    echo "$exe is missing: build the target swarmtrain_windows_tests (part of the default build)" >&2
    exit 1
fi

export WINEPREFIX=$prefix WINEDEBUG=-all
# The first start creates the prefix (several seconds); without Mono and Gecko, which a console
# test never needs and whose installers would otherwise be offered.
export WINEDLLOVERRIDES="mscoree,mshtml="
# A console program needs no display: Wine's null driver then answers GetLastInputInfo and
# SendInput the same way on every machine, so no Xvfb either.
unset DISPLAY WAYLAND_DISPLAY
mkdir -p "$prefix"

"$wine" "$exe" "$@" </dev/null
status=$?
# wineserver stays a few seconds after the last program and would hold ctest's output pipe open.
"$wineserver" -k >/dev/null 2>&1
exit $status
