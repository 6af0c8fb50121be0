#!/usr/bin/env bash
# A real one-node Slurm cluster for the tests, started and stopped by this script.
#
#   tests/slurm/cluster.sh start DIR   install slurm-wlm and munge if missing (as root, apt),
#                                      write a munge key and a one-node slurm.conf under DIR,
#                                      start munged, slurmctld and slurmd, wait for the node
#   tests/slurm/cluster.sh stop DIR    stop the three daemons started for DIR
#
# After `start`, `export SLURM_CONF=DIR/slurm.conf` points sbatch, squeue and scontrol at
# the cluster. Everything the daemons write (state, spool, logs, pid files, the munge
# socket) stays under DIR; nothing under /etc or /run is used, so a machine's own Slurm is
# left alone. Needs root: slurmd starts jobs as their user and munged runs as the daemon
# user. Ports are picked free at start.
set -euo pipefail

usage() {
    echo "usage: $0 start|stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
dir=$(realpath -m "$2")

log() { echo "slurm harness: $*" >&2; }

install_if_missing() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return
    fi
    if [ "$(id -u)" != 0 ]; then
        log "slurm-wlm and munge are not installed, and only root can install them"
        exit 1
    fi
    log "installing slurm-wlm and munge (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q slurm-wlm munge >/dev/null
}

# Two free TCP ports on the loopback interface, for slurmctld and slurmd.
free_ports() {
    python3 - <<'EOF'
import socket
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

write_config() {
    local host cpus mem ports
    host=$(hostname -s)
    cpus=$(nproc)
    # slurmd refuses to register a node that claims more memory than it has: state what
    # slurmd itself measures.
    mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
    read -r ctld_port d_port <<<"$(free_ports)"
    cat >"$dir/slurm.conf" <<EOF
# One-node cluster for posfilter's tests (tests/slurm/cluster.sh); everything under $dir.
ClusterName=posfilter-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups in a container: processes are tracked by their parent pid, tasks not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
# Quick turnover for short test jobs.
MinJobAge=300
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    mkdir -p "$dir/munge"
    chmod 0700 "$dir/munge"
    # A key of 1024 random bytes, readable by the daemon's user only.
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$dir/munge/munge.key"
    # --force: munged otherwise refuses a socket directory it cannot prove private (the
    # temporary directory's parents are world-writable with the sticky bit).
    munged --force \
        --key-file="$dir/munge/munge.key" \
        --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed"
    local i
    for i in $(seq 50); do
        [ -S "$dir/munge/munge.socket" ] && return
        sleep 0.1
    done
    log "munged did not create its socket; its log:"
    cat "$dir/munge/munged.log" >&2 || true
    exit 1
}

wait_for_node() {
    local i state
    for i in $(seq 120); do
        state=$(sinfo -h -N -o '%t' 2>/dev/null | head -1 || true)
        case "$state" in
        idle | mix | alloc) return ;;
        esac
        sleep 0.5
    done
    log "the node did not become idle (state: '${state:-none}'); the logs:"
    tail -n 30 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    exit 1
}

start() {
    install_if_missing
    if [ -e "$dir/slurm.conf" ]; then
        log "$dir already holds a cluster; stop it first ($0 stop $dir)"
        exit 1
    fi
    mkdir -p "$dir/state" "$dir/spool"
    write_config
    start_munge
    export SLURM_CONF="$dir/slurm.conf"
    # -c: a fresh cluster, no state recovered from a previous one.
    slurmctld -c -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    wait_for_node
    log "cluster up: SLURM_CONF=$SLURM_CONF ($(sinfo -h -o '%N %c CPUs %m MB'))"
}

# Stops the daemon whose pid file is $1 (if it is running) and waits for it to end.
stop_pid_file() {
    local pid i
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null || true
    for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    log "pid $pid ($1) did not stop on SIGTERM; sending SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
}

stop() {
    if [ -e "$dir/slurm.conf" ]; then
        # Jobs still running are cancelled first, so that slurmd leaves no job behind.
        SLURM_CONF="$dir/slurm.conf" scancel --full --quiet --user=root 2>/dev/null || true
    fi
    stop_pid_file "$dir/slurmd.pid"
    stop_pid_file "$dir/slurmctld.pid"
    stop_pid_file "$dir/munge/munged.pid"
    rm -f "$dir/slurm.conf"
}

case "$action" in
start) start ;;
stop) stop ;;
*) usage ;;
esac
