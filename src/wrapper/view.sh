#!/bin/sh
# The live log in a run's tmux pane, for a person attached to it. The wrapper (agent.sh) starts
# this beside the agent, in its own process group; the run's tmux session has hooks (set when the
# backend starts it) that send that group SIGWINCH when a client attaches and SIGURG when the last
# one leaves. Meanwhile `overnight logs -f` runs here, its output in the pane. Both signals are
# ignored by default, so the wrapper, which traps neither, never sees them (its `wait` for the
# agent is never cut short), and nothing changes of what a pass sees: the pane's process is the
# wrapper. This ends with the wrapper: the wrapper stops it when the agent has ended, the pane
# closing hangs up the group, and a minute's check finds a wrapper killed outright.
# usage: view.sh ROOT ID NODE CLI WRAPPER_PID
# NODE and CLI come from the wrapper's command line, never from a file; ROOT is the runs root.
set -u
root=$1 id=$2 node=$3 cli=$4 wrapper=$5
follower='' sleeper=''

# A person is watching: the log, from the current session's tail, unless it is already shown.
# shellcheck disable=SC2317 # called by the WINCH trap
show() {
  if [ -n "$follower" ] && kill -0 "$follower" 2> /dev/null; then
    return 0
  fi
  OVERNIGHT_HOME=$root "$node" "$cli" logs -f "$id" < /dev/null &
  follower=$!
}

# Nobody is: the follower goes (a node process is not kept for nobody).
hide() {
  if [ -n "$follower" ]; then
    kill "$follower" 2> /dev/null
  fi
  follower=''
}

finish() {
  hide
  if [ -n "$sleeper" ]; then
    kill "$sleeper" 2> /dev/null
  fi
  exit 0
}

# From the runs root: the agent's directory (a repository run's worktree) may go, and node
# cannot start in a directory that is gone.
cd "$root" || cd /
trap show WINCH
trap hide URG
trap finish TERM HUP
while kill -0 "$wrapper" 2> /dev/null; do
  # A signal cuts the wait short; the sleep goes on, and is waited for again.
  if [ -z "$sleeper" ] || ! kill -0 "$sleeper" 2> /dev/null; then
    sleep 60 &
    sleeper=$!
  fi
  wait "$sleeper"
done
finish
