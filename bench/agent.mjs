// The bench's agent stand-in, a POSIX sh script (cheap enough for 20 of them): it takes the
// prompt from stdin like `claude -p`, keeps a transcript where Claude Code keeps it (so that a
// crash is followed by the real `--resume` path), prints the CLI's init event, then appends
// stream-json to its output at $BENCH_STREAM_KB kilobytes a second (as a working agent's log
// grows: assistant text of 1 KB a line, or tool results of 64 KB a line from 64 KB/s up), or
// idles with none.

/** The environment that makes a run's agent stream `kb` kilobytes a second. */
export const streamEnv = (kb) => ({ BENCH_STREAM_KB: String(kb) });

export const AGENT_SCRIPT = `#!/bin/sh
# overnight bench agent: reads the prompt, keeps a transcript, streams stream-json
cat > /dev/null
sid=00000000-0000-4000-8000-000000000000
prev=
for a in "$@"; do
  case "$prev" in --session-id | --resume) sid=$a ;; esac
  prev=$a
done
dir="\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/$(pwd -P | sed 's/[^A-Za-z0-9]/-/g')"
mkdir -p "$dir"
printf '{"type":"user","sessionId":"%s","message":{"role":"user","content":"bench"}}\\n' "$sid" >> "$dir/$sid.jsonl"
printf '{"type":"system","subtype":"init","session_id":"%s","model":"claude-bench","cwd":"%s","tools":["Read"]}\\n' "$sid" "$PWD"
kb=\${BENCH_STREAM_KB:-0}
[ "$kb" -gt 0 ] || exec sleep 3600
if [ "$kb" -ge 64 ]; then
  n=$((kb / 64))
  pad=$(printf '%65400s' '')
  line='{"type":"user","session_id":"'"$sid"'","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_bench","content":"'"$pad"'"}]}}'
else
  n=$kb
  pad=$(printf '%900s' '')
  line='{"type":"assistant","session_id":"'"$sid"'","message":{"role":"assistant","model":"claude-bench","content":[{"type":"text","text":"'"$pad"'"}]}}'
fi
while :; do
  i=0
  while [ "$i" -lt "$n" ]; do
    printf '%s\\n' "$line"
    i=$((i + 1))
  done
  printf '{"type":"assistant","session_id":"%s","message":{"role":"assistant","content":[{"type":"text","text":"tick"}]}}\\n' "$sid" >> "$dir/$sid.jsonl"
  sleep 1
done
`;
