import type { Policy } from './policy.js';

// The settings file every session of a run starts with (`claude --settings <file>`), kept in the
// run's records: Claude Code's sandbox for the agent's commands, and permission rules for its file
// tools, which run inside Claude Code and are not sandboxed. Pure.

/** A Read rule for an absolute path (`//` marks one in Claude Code's rules): the path and below. */
const readDenied = (path: string) => [`Read(/${path})`, `Read(/${path}/**)`];

export interface SettingsInput {
  /** The run's policy; null when the run has no sandbox (its Read rules still hold). */
  policy: Policy | null;
  /** What the file tools may not read: the denied paths, with every other run named one by one. */
  unreadable: string[];
  /**
   * What this session may not change though it works there: the worktree, for the synthesis, so
   * that the branch in the morning is exactly what the final check ran on.
   */
  readOnly?: string[];
}

const WRITERS = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];

export function claudeSettings(s: SettingsInput): Record<string, unknown> {
  const readOnly = s.readOnly ?? [];
  const permissions = {
    deny: [
      ...s.unreadable.flatMap(readDenied),
      ...readOnly.flatMap((p) => WRITERS.map((w) => `${w}(/${p}/**)`)),
    ],
    // The file tools write only below the working directories (the run's, the worktree, the
    // directories given with --add-dir), whatever rule the tools list holds.
    blockWritesOutsideWorkingDirectories: true,
  };
  if (!s.policy) return { permissions };
  const p = s.policy;
  return {
    sandbox: {
      enabled: true,
      // No session runs unconfined: a sandbox that cannot start is a typed startup failure.
      failIfUnavailable: true,
      autoAllowBashIfSandboxed: true,
      // A command that fails in the sandbox is never run again outside it.
      allowUnsandboxedCommands: false,
      filesystem: {
        allowWrite: p.write,
        denyRead: p.denyRead,
        allowRead: p.allowRead,
        ...(readOnly.length > 0 ? { denyWrite: readOnly } : {}),
      },
      // Without strictAllowlist an allowlist of domains does not hold (reported upstream).
      network: { allowedDomains: p.network, strictAllowlist: true },
    },
    permissions,
  };
}
