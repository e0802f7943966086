#!/usr/bin/env bash
# Stops the private cluster scripts/slurm-up.sh started in DIR: slurmd, slurmctld, munged, by the
# pids in DIR/run (checked to be that program first), and cancels nothing else. With --clean, DIR's
# slurm.conf is removed too, so slurm-up.sh can start afresh there.
set -euo pipefail

say() { printf 'slurm-down: %s\n' "$*" >&2; }

clean=no
if [ "${1:-}" = --clean ]; then
  clean=yes
  shift
fi
[ $# -eq 1 ] || {
  say "usage: slurm-down.sh [--clean] DIR"
  exit 1
}
dir=$1

# The pid file's process, if it still runs that program (a recycled pid is left alone).
pid_of() {
  local file="$dir/run/$1.pid" pid
  [ -r "$file" ] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && printf '%s' "$pid"
}

stop() {
  local pid i
  pid=$(pid_of "$1") || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do
    [ -d "/proc/$pid" ] || {
      say "$1 stopped"
      return 0
    }
    [ "$i" -eq 30 ] && kill -KILL "$pid" 2>/dev/null
    sleep 0.1
  done
  say "$1 ($pid) did not stop"
  return 1
}

status=0
# Jobs first (with the daemons up), so no job's processes outlive the cluster.
if [ -r "$dir/slurm.conf" ] && pid_of slurmctld >/dev/null; then
  SLURM_CONF="$dir/slurm.conf" timeout 10 scancel --full --partition=debug 2>/dev/null || true
fi
stop slurmd || status=1
stop slurmctld || status=1
stop munged || status=1
if [ "$clean" = yes ]; then rm -f "$dir/slurm.conf"; fi
exit "$status"
