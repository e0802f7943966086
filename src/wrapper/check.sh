#!/bin/sh
# overnight's check wrapper: runs the run's check command (`launch --verify`) once, detached, in
# its own process group (the pass starts it with setsid), so it can be killed as a whole.
# usage: check.sh RECORDS STEP CWD MAX_BYTES TIMEOUT JUNIT NODE CLI -- COMMAND
# JUNIT (empty for none): the JUnit XML file the command writes, relative to CWD (verify_junit);
# removed before the command runs, and copied after it (its first 4 MB) into the records when it
# is a regular file below CWD (no symbolic link, no directory outside CWD on its way).
# The command gets a process group of its own, killed at TIMEOUT seconds by a watchdog here (the
# step is marked timed out first); a pass kills it too if this wrapper is gone.
# The command comes from run.yaml (the person's launch or config), never from a file the agent
# can write. It runs with exactly the environment captured at launch, in the agent's directory.
set -u
umask 077

start_time() {
  if [ -r "/proc/$1/stat" ]; then
    read -r line < "/proc/$1/stat" || return 0
    rest=${line##*') '}
    # shellcheck disable=SC2086
    set -- $rest
    shift 19
    echo "$1"
  else
    ps -o lstart= -p "$1" 2>/dev/null | sed 's/^ *//; s/ *$//; s/   */ /g; s/  */ /g'
  fi
}

atomic() {
  partial="$1.tmp.$$"
  if printf '%s\n' "$2" > "$partial" && { sync "$partial" 2> /dev/null || sync; } && mv -f "$partial" "$1"; then
    return 0
  fi
  rm -f "$partial"
  return 1
}

state=$1 step=$2 cwd=$3 max=$4 timeout=$5 junit=$6 node=$7 cli=$8
shift 8
[ "${1:-}" = "--" ] && shift
command=$1
id=$(basename "$state")
root=$(dirname "$(dirname "$state")")
log="$state/check-$step.log"
envfile="$root/.agent-env/$id.env"

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

header='# overnight: the environment captured at launch (sh, sourced by the wrapper)'
first=
[ -r "$envfile" ] && IFS= read -r first < "$envfile"
if [ "$first" != "$header" ]; then
  printf 'overnight: %s is missing or not written by overnight; the check was not run\n' "$envfile" >> "$log"
  status=127
else
  # One compound command from the start to the status (see agent.sh): sh forgets finished jobs
  # only between top-level commands.
  set -m
  {
    # shellcheck disable=SC2016 # expanded by the inner sh, as intended
    env -i /bin/sh -c '. "$1" && cd "$2" && exec /bin/sh -c "$3"' overnight-check "$envfile" "$cwd" "$command" \
      < /dev/null >> "$log" 2>&1 &
    child=$!
    atomic "$state/check-$step.group" "$child"
    {
      sleep "$timeout"
      atomic "$state/check-$step.timeout" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
      kill -TERM -- "-$child" 2> /dev/null
      sleep 3
      kill -KILL -- "-$child" 2> /dev/null
    } < /dev/null > /dev/null 2>&1 &
    watchdog=$!
    atomic "$state/check-$step.watchdog" "$watchdog"
    wait "$child"
    status=$?
    kill -KILL -- "-$watchdog" 2> /dev/null
  }
  set +m
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
