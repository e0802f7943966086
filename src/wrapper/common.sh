# shellcheck shell=sh
# The crash-safety helpers agent.sh and check.sh share, sourced by both from beside them (the
# package's own folder, never a file the agent can write).

# Process identity is (pid, start time), so that a recycled pid is never taken for the process.
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

# Temp file, flushed to disk, renamed: a crash never leaves half a record, and a write that fails
# (a full disk) leaves no temp file. Only that file is flushed where sync takes one (a whole-system
# sync can take seconds on a busy machine).
atomic() {
  partial="$1.tmp.$$"
  if printf '%s\n' "$2" > "$partial" && { sync "$partial" 2> /dev/null || sync; } && mv -f "$partial" "$1"; then
    return 0
  fi
  rm -f "$partial"
  return 1
}

