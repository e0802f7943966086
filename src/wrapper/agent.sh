#!/bin/sh
# overnight's agent wrapper. It lives all night in the run's session (tmux, or detached in a
# process group of its own), so it is sh, not node.
# It records the agent's pid and start time, feeds the prompt file on stdin, records the exit
# status, then asks for a reconcile pass so that a crash is handled in seconds.
# usage: agent.sh RECORDS SESSION NODE CLI -- AGENT [ARG...]
# RECORDS is the run's records directory (<runs root>/.overnight/<run id>), which the agent cannot
# write; NODE and CLI come from the pass that starts it, never from a file.
set -u
umask 077

# start_time and atomic: the crash-safety helpers both wrappers share.
# shellcheck source=src/wrapper/common.sh
. "${0%/*}/common.sh"

# The agent's own process, started by the wrapper below as `agent.sh --exec-agent PIDFILE RECORDS AGENT...`:
# it records its pid before it becomes the agent (exec keeps the pid and its start time), so no
# agent ever runs unrecorded, whatever happens to the wrapper; and it becomes the agent only if the
# run has not finished meanwhile. `overnight stop` writes DONE, then reads this record: either it
# sees the pid and stops the agent, or this check sees DONE and nothing starts.
# The record is linked into place, which fails if one exists: a second wrapper started for the
# same session (the first thought lost) never starts a second agent. No record, no agent.
if [ "${1:-}" = "--exec-agent" ]; then
  pidfile=$2 records=$3
  shift 3
  tmp="$pidfile.tmp.$$"
  if ! { printf '%s\n' "$$ $(start_time "$$")" > "$tmp" && { sync "$tmp" 2> /dev/null || sync; }; }; then
    rm -f "$tmp"
    exit 1
  fi
  if ! ln "$tmp" "$pidfile" 2> /dev/null; then
    rm -f "$tmp"
    exit 0
  fi
  rm -f "$tmp"
  if [ -e "$records/DONE" ] || [ -e "$records/FAILED" ]; then
    exit 0
  fi
  exec "$@"
fi

state=$1 n=$2 node=$3 cli=$4
shift 4
[ "${1:-}" = "--" ] && shift
# RECORDS is absolute, `<root>/.overnight/<id>` (no trailing slash): cut without basename and
# dirname, a process each at every start on a machine that may be busy.
id=${state##*/}
root=${state%/*}
root=${root%/*}
log="$state/output.log"

# The wrapper's own record: a pass that finds it gone knows its exit record, if any, is written
# (no grace to wait), and one that lost the tmux server sees the wrapper still at work. One write
# of one line (readers believe only a whole line); without it, passes wait out the exit race.
printf '%s %s\n' "$$" "$(start_time "$$")" > "$state/wrapper-$n.pid" 2> /dev/null

# The environment captured at launch: `export NAME='value'` lines that overnight wrote, each value
# single-quoted (never evaluated). The agent gets exactly these variables: it starts from an empty
# environment, so nothing of tmux's, cron's or launchd's reaches it. The file lives outside the
# run's directory and the worktree, which the agent itself can read, and nothing but a file in this format is sourced.
envfile="$root/.agent-env/$id.env"
header='# overnight: the environment captured at launch (sh, sourced by the wrapper)'
first=
[ -r "$envfile" ] && IFS= read -r first < "$envfile"
if [ "$first" != "$header" ]; then
  printf 'overnight: %s is missing or not written by overnight; the agent was not started\n' \
    "$envfile" >> "$log"
  set -- /bin/sh -c 'exit 127'
  envfile=/dev/null
fi

# A Slurm job (the slurm backend) runs on any node, and Slurm runs it again after losing its node
# (a requeue, SLURM_RESTART_COUNT set). Pid identity is per node: whether the agent recorded here
# still runs on another node cannot be seen from this one. So a job that finds its session's agent
# already recorded never starts another. A requeued one records that agent's end as a kill (137):
# Slurm ran this job again because its first run (the agent's) was lost with its node; the pass
# below then resumes the conversation in a new job, counted once as a crash. Any other job finding
# a record (a second job of one session) records nothing: that agent may well be at work.
skip=
if [ -n "${SLURM_JOB_ID:-}" ] && [ -e "$state/agent-$n.pid" ]; then
  printf 'overnight: Slurm job %s (restart %s): session %s already started its agent; not starting another\n' \
    "$SLURM_JOB_ID" "${SLURM_RESTART_COUNT:-0}" "$n" | tee -a "$log"
  skip=1
  if [ "${SLURM_RESTART_COUNT:-0}" != 0 ] && [ ! -e "$state/agent-$n.exit" ]; then
    atomic "$state/agent-$n.exit" "137 $n $(date +%s)"
  fi
fi

# A person attached to the tmux pane sees the agent's log there, live (view.sh, started only where
# there is a pane: in the wrapper's own process group, where tmux's hooks signal it, and before
# the wrapper ignores SIGHUP, which the view is to get when the pane closes).
view=''
if [ -n "${TMUX:-}" ] && [ -z "$skip" ]; then
  /bin/sh "${0%/*}/view.sh" "$root" "$id" "$node" "$cli" "$$" &
  view=$!
fi

# Job control gives the agent its own process group (so it can be signalled as a whole)
# and keeps SIGINT at its default in it; the final pass gets its own too, so the pane closing
# as this script ends does not hang it up. One compound command from the agent's start to its
# exit record: sh reports (and forgets) finished jobs only between top-level commands, and a
# job forgotten before `wait` would be recorded as 127 instead of the agent's status.
set -m
[ -z "$skip" ] && {
  # shellcheck disable=SC2016 # expanded by the inner sh, as intended
  env -i /bin/sh -c '. "$1" && shift && exec "$@"' overnight-agent "$envfile" \
    /bin/sh "$0" --exec-agent "$state/agent-$n.pid" "$state" "$@" < "$state/prompt.md" >> "$log" 2>&1 &
  pid=$!
  # Ctrl-C by someone watching the pane must not end the wrapper and orphan the agent, and tmux
  # closing the pane (its server gone, or `stop` removing the session) must not keep the agent's
  # end from being recorded. Set only now: the agent starts with SIGINT and SIGHUP at their
  # defaults; SIGINT is how `overnight stop` asks it to end.
  trap '' INT HUP
  printf 'overnight: run %s, session %s, agent pid %s\n' "$id" "$n" "$pid"
  # Only a person attached to tmux can press keys here (detached, these lines go to wrapper.log).
  if [ -n "$view" ]; then
    printf 'Its log follows here while you are attached (anywhere: overnight logs -f %s).\n' "$id"
    printf 'Ctrl-C here does not stop the run (overnight stop %s does); detach with Ctrl-b d.\n' "$id"
  else
    printf 'The agent writes to output.log; follow it with: overnight logs -f %s\n' "$id"
  fi
  wait "$pid"
  status=$?
  atomic "$state/agent-$n.exit" "$status $n $(date +%s)"
  # What the agent started in its process group dies with it: a child of an agent killed with
  # SIGKILL would otherwise outlive the session (and the run). Without a terminal (the detached
  # backend) job control gives the agent no group of its own: it shares the wrapper's, whose
  # session this is, so that group is signalled with the wrapper itself deaf to it.
  if ! kill -s TERM -- "-$pid" 2> /dev/null; then
    trap '' TERM
    kill -s TERM 0 2> /dev/null
  fi
  if [ -n "$view" ]; then
    kill -s TERM "$view" 2> /dev/null
  fi
}

# Recovery within seconds; cron, launchd or systemd stay the backstop. From the runs root: the
# agent's directory (a repository run's worktree) may be gone, and node cannot start in it then.
cd "$root" || cd /
# The request is left before node starts (seconds on a loaded machine): a pass that holds the lock
# meanwhile serves this run next, and runs another round if it has served it already.
mkdir -p "$root/.pass-requests" 2> /dev/null && : > "$root/.pass-requests/$id" 2> /dev/null
: > "$root/.pass-requested" 2> /dev/null
if [ -n "${SLURM_JOB_ID:-}" ]; then
  # Slurm ends every process of a job once its batch script exits: the pass runs before this does.
  OVERNIGHT_HOME=$root "$node" "$cli" reconcile --retry-lock 5000 --for-run "$id" >> "$root/reconcile.log" 2>&1 < /dev/null
else
  OVERNIGHT_HOME=$root nohup "$node" "$cli" reconcile --retry-lock 5000 --for-run "$id" >> "$root/reconcile.log" 2>&1 < /dev/null &
fi
exit 0
