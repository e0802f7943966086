import { agentSandbox, checkSandbox, type SandboxFacts } from './available.js';
import type { SandboxSpec } from './policy.js';

// Launch's choice: whether the run's agent works in a sandbox (and so gets Bash by default), and
// how its check runs. Said at launch in a line each; what cannot hold is refused with its fix. Pure.

/** A plain or repository run's tools when none were chosen and the agent's commands are confined. */
export const SANDBOXED_TOOLS = ['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch', 'Bash'];

export interface SandboxWish {
  /** `sandbox` as set: true, false, or null (on where available). */
  sandbox: boolean | null;
  network: string[];
  write: string[];
  /** The run has a check (`verify`), and whether it may run unconfined. */
  verify: boolean;
  verifyUnconfined: boolean;
}

export type SandboxChoice =
  | {
      ok: true;
      sandbox: SandboxSpec | null;
      /** bubblewrap for the check; null when the check runs unconfined (or there is none). */
      checkWith: string | null;
      notes: string[];
    }
  | { ok: false; error: string };

export function chooseSandbox(w: SandboxWish, f: SandboxFacts): SandboxChoice {
  const agent = agentSandbox(f);
  const check = checkSandbox(f);
  const notes: string[] = [];
  let sandbox: SandboxSpec | null = null;
  if (w.sandbox === false)
    notes.push(
      'note: the sandbox is off (sandbox: false): any Bash you give the agent runs as you, unconfined, ' +
        "and a repository run's work is committed by overnight after each session",
    );
  else if (!agent.ok) {
    if (w.sandbox === true)
      return {
        ok: false,
        error: `sandbox: true, but the sandbox cannot run here: ${agent.why}; ${agent.fix}`,
      };
    notes.push(
      `note: no sandbox here (${agent.why}), so the agent gets no Bash and overnight commits a ` +
        `repository run's work after each session; to give it Bash in a sandbox, ${agent.fix}`,
    );
  } else sandbox = { network: [...w.network], write: [...w.write] };
  if (!w.verify) return { ok: true, sandbox, checkWith: null, notes };
  if (check.ok) return { ok: true, sandbox, checkWith: f.bwrap, notes };
  if (!w.verifyUnconfined)
    return {
      ok: false,
      error:
        `--verify runs code the night writes (its tests, scripts, configs), and it cannot be confined ` +
        `here: ${check.why}; ${check.fix}, or set verify_unconfined: true (--verify-unconfined) to run it ` +
        'as you, unconfined',
    };
  notes.push(
    'note: the check runs unconfined (verify_unconfined): the tests and scripts the night writes run ' +
      'as you, with everything you can read and write',
  );
  return { ok: true, sandbox, checkWith: null, notes };
}
