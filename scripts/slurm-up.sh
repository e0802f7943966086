#!/usr/bin/env bash
# Starts a private single-node Slurm (munged, slurmctld, slurmd) for tests and CI.
#
#   scripts/slurm-up.sh DIR     then: export SLURM_CONF=DIR/slurm.conf (printed on stdout)
#   scripts/slurm-down.sh DIR   stops it
#
# Runs as root on a machine without systemd; installs nothing (Debian: slurm-wlm and munge). Every
# file (slurm.conf, munge key and socket, state, spool, logs, pid files) is under DIR, so it never
# touches a system Slurm. Ports: SLURM_UP_PORT (default 16817) for slurmctld, the next for slurmd.
# Prints only `SLURM_CONF=…` on stdout; progress and errors go to stderr.
set -euo pipefail

say() { printf 'slurm-up: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

[ $# -eq 1 ] || die "usage: slurm-up.sh DIR (an empty or new directory)"
[ "$(id -u)" -eq 0 ] || die "must run as root (slurmd starts jobs as their users)"
for bin in munged slurmctld slurmd sinfo; do
  command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ] ||
    die "$bin not found: install slurm-wlm and munge"
done
export PATH="$PATH:/usr/sbin:/sbin"

mkdir -p "$1"
dir=$(cd "$1" && pwd -P)
[ -e "$dir/slurm.conf" ] && die "$dir/slurm.conf exists: is a cluster already up? (slurm-down.sh $dir)"
# Clients of any user reach the munge socket and read slurm.conf; state and spool are root's.
chmod 0755 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
chmod 0755 "$dir/munge"
chmod 0700 "$dir/state" "$dir/spool"

port=${SLURM_UP_PORT:-16817}
node=$(hostname -s)
cpus=$(nproc)
# Half the memory (MB) for jobs; each job gets 64 MB unless it asks (--mem).
mem=$(awk '/^MemTotal:/ { print int($2 / 2048) }' /proc/meminfo)

# munge: a fresh key and a private socket; slurm.conf names the socket for daemons and clients.
sock="$dir/munge/munge.socket"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --force \
  --key-file="$dir/munge/munge.key" \
  --socket="$sock" \
  --pid-file="$dir/run/munged.pid" \
  --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed"

cat >"$dir/slurm.conf" <<EOF
# Written by slurm-up.sh: a private single-node cluster for tests.
ClusterName=overnight-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: how long a requeued job is held (its old credential revoked): 2 minutes by default.
AuthInfo=socket=$sock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
# Pending jobs (a requeued one once its hold ends) start within seconds, not at the next of the
# default 30 s backfill or 60 s scheduling rounds.
SchedulerParameters=bf_interval=1,sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=64
# A lost node is noticed in seconds, not minutes, and comes back by itself when slurmd returns.
SlurmdTimeout=10
SlurmctldTimeout=10
ReturnToService=2
# Finished jobs stay visible to squeue for 5 minutes.
MinJobAge=300
KillWait=5
InactiveLimit=0
Waittime=0
JobRequeue=1
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:20
EOF
chmod 0644 "$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"

# -i: ignore any saved state (there is none: a fresh directory). Both daemonize and write pid files.
slurmctld -i
slurmd -N "$node"

# Poll with a deadline: the node is usually idle in under a second.
deadline=$((SECONDS + ${SLURM_UP_TIMEOUT:-30}))
state=''
while [ "$SECONDS" -lt "$deadline" ]; do
  state=$(sinfo -h -n "$node" -o '%T' 2>/dev/null || true)
  case "$state" in
  idle | mixed | allocated) break ;;
  esac
  sleep 0.2
done
case "$state" in
idle | mixed | allocated) ;;
*)
  say "node $node not idle within ${SLURM_UP_TIMEOUT:-30} s (state: ${state:-none}); logs in $dir/log"
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
  exit 1
  ;;
esac
say "node $node $state ($cpus CPUs, $mem MB for jobs)"
printf 'SLURM_CONF=%s\n' "$SLURM_CONF"
