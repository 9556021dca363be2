#!/usr/bin/env bash
# The Debian packages as a new user gets them (issue 19): builds them (installer/package.sh),
# checks them with lintian, appstreamcli and desktop-file-validate, installs them with apt into
# a clean Debian 12 root (debootstrap --variant=minbase, in a chroot), and there
#   - runs swarmtrain --headless --help, swarmtrain-cli --help and swarmtrain-coordinator --help;
#   - starts the coordinator with its unit's ExecStart line as the unit's user, on the shipped
#     /etc/swarmtrain/coordinator.json with flags for a small, fast swarm on loopback;
#   - starts the headless client with the user unit's ExecStart line as an ordinary user (no
#     swarm: it waits), joins it to the coordinator with swarmtrain-cli swarm join, and waits
#     for 3 "round N done" lines, failing at once if the client or the coordinator exits.
# On success it records the packaging inputs' hash (installer/packaging-hash.sh) in
# STATE/passed.sha256: installer/run-tests.sh runs this test when they differ from it.
#
# Usage: tests/package/install-test.sh [BUILD_DIR]   (ctest -L package; needs root and debootstrap)
# STATE is $SWARMTRAIN_PACKAGE_TEST_STATE (run-tests.sh: /var/cache/swarmtrain-package-test, which
# outlives a checkout), else BUILD_DIR/package-test. The debootstrap tarball and apt's downloads
# are kept there, so a second run needs no downloads. Exit 77 (skipped) without root or debootstrap.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-$source_dir/build/release}")
mirror=${SWARMTRAIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
started=$SECONDS

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
step() { echo "== [$((SECONDS - started)) s] $*"; }

[[ $(id -u) -eq 0 ]] || skip "the package test needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || skip "debootstrap is missing (installer/install-deps.sh installs it)"
for tool in lintian appstreamcli desktop-file-validate setpriv; do
    command -v "$tool" >/dev/null || fail "$tool is missing (installer/install-deps.sh installs it)"
done

cache=${SWARMTRAIN_PACKAGE_TEST_STATE:-$build/package-test}
root=$cache/root
tarball=$cache/bookworm-minbase.tgz
mkdir -p "$cache/apt-archives/partial"

# --- the waiter cannot pass vacuously -------------------------------------------------------
# wait_for_rounds LOG PID COUNT SECONDS: COUNT "round N done" lines in LOG before the deadline,
# failing as soon as PID exits.
wait_for_rounds() {
    local log=$1 pid=$2 want=$3 seconds=$4 seen=0 line
    while IFS= read -r line; do
        if [[ $line =~ ^round\ [0-9]+\ done ]]; then
            echo "   $line"
            if ((++seen >= want)); then
                return 0
            fi
        fi
    done < <(timeout "$seconds" tail -n +1 -F --pid="$pid" "$log" 2>/dev/null)
    echo "   saw $seen of $want rounds (the process $(kill -0 "$pid" 2>/dev/null && echo "still runs: deadline" || echo exited))"
    return 1
}
step "self-check: the round waiter fails when the client exits"
probe_log=$(mktemp)
(echo "round 1 done: a process that then exits" >"$probe_log") &
probe_pid=$!
if wait_for_rounds "$probe_log" "$probe_pid" 3 30; then
    fail "the round waiter passed although the process exited after one round"
fi
rm -f "$probe_log"

# --- build and lint -------------------------------------------------------------------------
step "building the packages (installer/package.sh $build)"
mapfile -t debs < <("$source_dir/installer/package.sh" "$build")
printf '   %s\n' "${debs[@]}"
client_deb=$(printf '%s\n' "${debs[@]}" | grep '/swarmtrain_[^/]*\.deb$') || fail "no swarmtrain_*.deb"
coordinator_deb=$(printf '%s\n' "${debs[@]}" | grep '/swarmtrain-coordinator_[^/]*\.deb$') || fail "no swarmtrain-coordinator_*.deb"

step "lintian (errors fail the test)"
lintian --fail-on error --display-level '>=warning' "$client_deb" "$coordinator_deb" \
    || fail "lintian reports errors"
step "appstreamcli validate --no-net, desktop-file-validate"
appstreamcli validate --no-net "$source_dir/resources/io.github.swarmtrain.SwarmTrain.metainfo.xml" \
    || fail "appstreamcli validate"
desktop-file-validate "$source_dir/resources/swarmtrain.desktop" || fail "desktop-file-validate"

# --- a clean Debian 12 root -----------------------------------------------------------------
pids_in_root() {
    local p
    for p in /proc/[0-9]*; do
        [[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] && echo "${p#/proc/}"
    done
    return 0
}
cleanup() {
    local pids
    pids=$(pids_in_root)
    if [[ -n $pids ]]; then
        # shellcheck disable=SC2086
        kill -TERM $pids 2>/dev/null || true
        timeout 20 tail --pid="$(echo "$pids" | head -n1)" -f /dev/null 2>/dev/null || true
        pids=$(pids_in_root)
        # shellcheck disable=SC2086
        [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
    fi
    for m in var/cache/apt/archives sys proc dev; do
        mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
    done
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

remove_root() {
    # Never delete through a mount (the host's /dev, the apt cache).
    if grep -q " $root/" /proc/mounts; then
        fail "$root still has mounts; unmount them first"
    fi
    rm -rf --one-file-system "$root"
}
cleanup # a run killed before its trap ran
remove_root
if [[ ! -f $tarball ]]; then
    step "debootstrap --make-tarball (once; kept in $cache)"
    debootstrap --variant=minbase --make-tarball="$tarball.part" bookworm "$cache/tarball-work" "$mirror" \
        >"$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log"; fail "debootstrap --make-tarball"; }
    mv "$tarball.part" "$tarball"
    rm -rf "$cache/tarball-work"
fi
step "debootstrap --variant=minbase bookworm (from the cached tarball)"
debootstrap --variant=minbase --unpack-tarball="$tarball" bookworm "$root" "$mirror" \
    >"$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log"; fail "debootstrap"; }

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
# apt's downloads outlive the root, so a second run downloads nothing.
mount --bind "$cache/apt-archives" "$root/var/cache/apt/archives"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${SWARMTRAIN_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
EOF
# A throwaway root: dpkg need not fsync every file (minutes on a busy disk).
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
# Keep the downloaded packages for the next run.
echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' >"$root/etc/apt/apt.conf.d/01keep-debs"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

step "apt-get install ./swarmtrain_*.deb ./swarmtrain-coordinator_*.deb"
cp "$client_deb" "$coordinator_deb" "$root/tmp/"
in_root apt-get update -qq >"$cache/apt.log" 2>&1 || { tail -n 20 "$cache/apt.log"; fail "apt-get update"; }
if ! in_root sh -c "cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y ./$(basename "$client_deb") ./$(basename "$coordinator_deb")" \
    >>"$cache/apt.log" 2>&1; then
    tail -n 30 "$cache/apt.log"
    fail "apt-get install of the packages"
fi
grep -E '^(Need to get|After this operation)' "$cache/apt.log" | sed 's/^/   /' || true

step "the installed programs answer --help"
for command in "swarmtrain --headless --help" "swarmtrain-cli --help" "swarmtrain-coordinator --help"; do
    # shellcheck disable=SC2086
    help=$(in_root $command) || fail "$command"
    echo "   $command: ${help%%$'\n'*}"
done
in_root test -f /usr/share/man/man1/swarmtrain-coordinator.1.gz || fail "no man page"
in_root getent passwd swarmtrain-coordinator >/dev/null || fail "no swarmtrain-coordinator user"
# shellcheck disable=SC2016
in_root dpkg-query -W -f='${Conffiles}\n' swarmtrain-coordinator | grep -q /etc/swarmtrain/coordinator.json \
    || fail "/etc/swarmtrain/coordinator.json is not a conffile"

# --- the coordinator, as its unit runs it ---------------------------------------------------
unit=$root/usr/lib/systemd/system/swarmtrain-coordinator.service
user_unit=$root/usr/lib/systemd/user/swarmtrain.service
[[ -f $unit && -f $user_unit ]] || fail "the systemd units are not installed"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
unit_user=$(sed -n 's/^User=//p' "$unit")
work_dir=$(sed -n 's/^WorkingDirectory=//p' "$unit")
data_dir=$(sed -n 's/^ *"data": *"\([^"]*\)".*/\1/p' "$root/etc/swarmtrain/coordinator.json")
[[ -n $exec_start && -n $unit_user && -n $work_dir && -n $data_dir ]] || fail "cannot read the coordinator unit"
step "coordinator: $exec_start (as $unit_user)"
# A small text: the licenses every Debian system carries.
cat "$root"/usr/share/common-licenses/{GPL-3,LGPL-3,Apache-2.0} >"$root$data_dir/corpus.txt"
in_root chown "$unit_user:" "$data_dir/corpus.txt"
coordinator_log=$cache/coordinator.log
# Emptied here, not by the redirect below: that one runs in the background child, and the tail
# that reads the port could start first and find the last run's port in the old log.
: >"$coordinator_log"
# A small, fast swarm on loopback; flags after --config win over the file.
small_swarm=(--listen 127.0.0.1:0 --plain-http --n-layer 1 --n-head 2 --n-embd 32 --block-size 32 --batch-size 8
    --inner-steps 10 --rounds fixed --warmup-iters 10 --eval-iters 2 --shard-tokens 8192 --heartbeat-interval 1
    --gather-timeout 5 --round-deadline 30 --spot-check-rate 0 --spot-check-rate-new 0)
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$work_dir" /bin/sh -c \
    "cd '$work_dir' && exec setpriv --reuid='$unit_user' --regid='$unit_user' --init-groups -- $exec_start ${small_swarm[*]}" \
    >>"$coordinator_log" 2>&1 &
coordinator_pid=$!
port=""
while IFS= read -r line; do
    if [[ $line =~ ^listening\ on\ http://127\.0\.0\.1:([0-9]+) ]]; then
        port=${BASH_REMATCH[1]}
        break
    fi
done < <(timeout 120 tail -n +1 -F --pid="$coordinator_pid" "$coordinator_log" 2>/dev/null)
[[ -n $port ]] || { cat "$coordinator_log"; fail "the coordinator did not start"; }
echo "   listening on 127.0.0.1:$port"

# --- the headless client, as its user unit runs it ------------------------------------------
client_exec=$(sed -n 's/^ExecStart=//p' "$user_unit")
[[ $client_exec == *--headless* ]] || fail "the user unit does not run swarmtrain --headless"
in_root useradd --create-home --shell /bin/sh volunteer
step "client: $client_exec (as volunteer, no swarm given)"
client_log=$cache/client.log
: >"$client_log" # as the coordinator's log above
as_volunteer() {
    chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME=/home/volunteer /bin/sh -c \
        "cd && exec setpriv --reuid=volunteer --regid=volunteer --init-groups -- $*"
}
as_volunteer "$client_exec --listen 127.0.0.1:0 --threads 2" >>"$client_log" 2>&1 &
client_pid=$!
while IFS= read -r line; do
    [[ $line == "status: not in a swarm"* ]] && break
done < <(timeout 60 tail -n +1 -F --pid="$client_pid" "$client_log" 2>/dev/null)
grep -q "^status: not in a swarm" "$client_log" || { cat "$client_log"; fail "the client did not wait for a swarm"; }

step "swarmtrain-cli swarm join http://127.0.0.1:$port"
as_volunteer "swarmtrain-cli swarm join http://127.0.0.1:$port" || { cat "$client_log"; fail "swarmtrain-cli swarm join"; }
step "waiting for 3 rounds (deadline 600 s)"
if ! wait_for_rounds "$client_log" "$client_pid" 3 600; then
    echo "--- client"; tail -n 40 "$client_log"
    echo "--- coordinator"; tail -n 40 "$coordinator_log"
    fail "the packaged client did not train 3 rounds"
fi
kill -0 "$coordinator_pid" 2>/dev/null || fail "the coordinator exited"
as_volunteer "swarmtrain-cli status" | sed 's/^/   /' || fail "swarmtrain-cli status"

"$source_dir/installer/packaging-hash.sh" >"$cache/passed.sha256"
cleanup
trap - EXIT
remove_root # 1.5 GB; a failed run keeps it to look into
step "passed in $((SECONDS - started)) s; recorded $cache/passed.sha256"
