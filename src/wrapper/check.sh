#!/bin/sh
# overnight's check wrapper: runs the run's check command (`launch --verify`) once, detached (the
# pass starts it with setsid), so it can be killed as a whole.
# usage: check.sh RECORDS STEP CWD MAX_BYTES TIMEOUT JUNIT NODE CLI MODE INPUT -- ARGV...
# INPUT (empty for none): a file in the records given to ARGV on its standard input (the review's
# prompt); otherwise it reads nothing.
# ARGV is what runs: the check's command as `/bin/sh -c COMMAND`, behind the sandbox that confines it
# (`bwrap ... -- /bin/sh -c COMMAND`) or `setsid`. MODE says how its processes are ended as a whole:
#   bwrap   everything the check starts lives in bubblewrap's namespace and dies with it;
#   setsid  the command leads a process group of its own;
#   jobs    no setsid here (macOS): sh's job control gives it one.
# JUNIT (empty for none): the JUnit XML file the command writes, relative to CWD (verify_junit);
# removed before the command runs, and copied after it (its first 4 MB) into the records when it
# is a regular file below CWD (no symbolic link, no directory outside CWD on its way).
# A watchdog here ends the command at TIMEOUT seconds (the step is marked timed out first); it never
# depends on job control, ends with the command, and cannot mark a check that has finished: the
# first of the two to make check-STEP.end decides how the step ended. A pass kills the whole group
# too if this wrapper is gone.
# ARGV comes from the pass (the person's command from run.yaml, never a file the agent can write).
# It runs with exactly the environment captured at launch, in the agent's directory.
set -u
umask 077

# start_time and atomic: the crash-safety helpers both wrappers share.
# shellcheck source=src/wrapper/common.sh
. "${0%/*}/common.sh"

state=$1 step=$2 cwd=$3 max=$4 timeout=$5 junit=$6 node=$7 cli=$8 mode=$9
shift 9
input=${1:-}
shift
[ -n "$input" ] || input=/dev/null
[ "${1:-}" = "--" ] && shift
id=$(basename "$state")
root=$(dirname "$(dirname "$state")")
log="$state/check-$step.log"
envfile="$root/.agent-env/$id.env"
claim="$state/check-$step.end"

atomic "$state/check-$step.pid" "$$ $(start_time "$$")" || exit 1

# The JUnit file, when it is a regular file in a directory below CWD (resolved, links and all).
junit_file() {
  [ -n "$junit" ] || return 1
  top=$(cd "$cwd" 2> /dev/null && pwd -P) || return 1
  dir=$(cd "$cwd" 2> /dev/null && cd "$(dirname -- "$junit")" 2> /dev/null && pwd -P) || return 1
  case "$dir/" in
    "$top"/*) ;;
    *) return 1 ;;
  esac
  file="$dir/$(basename -- "$junit")"
  [ -f "$file" ] && [ ! -L "$file" ] || return 1
  printf '%s\n' "$file"
}
# A file left from before (an earlier check, the agent) is not this check's result.
if old=$(junit_file); then rm -f -- "$old"; fi

# What a signal must reach to end the check: bubblewrap itself (its namespace dies with it), or the
# command's process group.
target() {
  if [ "$mode" = bwrap ]; then echo "$1"; else echo "-$1"; fi
}

header='# overnight: the environment captured at launch (sh, sourced by the wrapper)'
first=
[ -r "$envfile" ] && IFS= read -r first < "$envfile"
if [ "$first" != "$header" ]; then
  printf 'overnight: %s is missing or not written by overnight; the check was not run\n' "$envfile" >> "$log"
  status=127
else
  [ "$mode" = jobs ] && set -m
  # The environment file is read here, outside any sandbox (overnight's records are hidden in it).
  # shellcheck disable=SC2016 # expanded by the inner sh, as intended
  env -i /bin/sh -c '. "$1" && cd "$2" && shift 2 && exec "$@"' overnight-check "$envfile" "$cwd" "$@" \
    < "$input" >> "$log" 2>&1 &
  child=$!
  [ "$mode" = jobs ] && set +m
  if [ "$mode" = bwrap ]; then
    atomic "$state/check-$step.group" "process $child"
  else
    atomic "$state/check-$step.group" "group $child"
  fi
  # The watchdog counts the seconds itself (no long sleep to orphan) and stops as soon as the
  # step has ended: a finished check is never marked, whatever the shell.
  (
    n=0
    while [ "$n" -lt "$timeout" ]; do
      [ -d "$claim" ] && exit 0
      sleep 1
      n=$((n + 1))
    done
    mkdir "$claim" 2> /dev/null || exit 0
    atomic "$state/check-$step.timeout" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    kill -TERM -- "$(target "$child")" 2> /dev/null
    sleep 3
    kill -KILL -- "$(target "$child")" 2> /dev/null
  ) < /dev/null > /dev/null 2>&1 &
  watchdog=$!
  atomic "$state/check-$step.watchdog" "process $watchdog"
  wait "$child"
  status=$?
  mkdir "$claim" 2> /dev/null
  kill -TERM "$watchdog" 2> /dev/null
  # Whatever the command left behind (a server it started) ends with it.
  kill -KILL -- "$(target "$child")" 2> /dev/null
fi

# The output is bounded: its last MAX_BYTES are kept.
size=$(wc -c < "$log" 2> /dev/null || echo 0)
if [ "$size" -gt "$max" ]; then
  tail -c "$max" "$log" > "$log.tmp.$$" && mv -f "$log.tmp.$$" "$log"
fi
if file=$(junit_file); then
  head -c 4194304 -- "$file" > "$state/check-$step.junit.tmp.$$" 2> /dev/null &&
    mv -f "$state/check-$step.junit.tmp.$$" "$state/check-$step.junit"
  rm -f "$state/check-$step.junit.tmp.$$"
fi
atomic "$state/check-$step.exit" "$status $(date +%s)"

cd "$root" || cd /
OVERNIGHT_HOME=$root nohup "$node" "$cli" reconcile --retry-lock 5000 >> "$root/reconcile.log" 2>&1 < /dev/null &
exit 0
