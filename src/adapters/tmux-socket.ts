/** The name of overnight's own tmux server: `tmux -L overnight`, never the person's default one. */
export const SOCKET_NAME = 'overnight';

/** The socket `tmux -L overnight` uses in this environment: $TMUX_TMPDIR (or /tmp)/tmux-<uid>/overnight. */
export function overnightSocket(env: NodeJS.ProcessEnv): string {
  return `${env.TMUX_TMPDIR || '/tmp'}/tmux-${process.getuid?.() ?? 0}/${SOCKET_NAME}`;
}
