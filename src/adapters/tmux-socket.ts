/** The socket tmux itself would use for this environment: $TMUX_TMPDIR (or /tmp)/tmux-<uid>/default. */
export function defaultSocket(env: NodeJS.ProcessEnv): string {
  return `${env.TMUX_TMPDIR || '/tmp'}/tmux-${process.getuid?.() ?? 0}/default`;
}
