import { probeSandbox } from '../adapters/sandbox-probe.js';
import { sandboxFacts } from '../adapters/sandbox.js';
import type { Settings } from '../core/config/settings.js';
import { UsageError } from '../core/errors.js';
import type { RunSpec } from '../core/run/types.js';
import { agentSandbox, checkSandbox } from '../core/sandbox/available.js';
import { chooseSandbox } from '../core/sandbox/choice.js';
import type { SandboxSpec } from '../core/sandbox/policy.js';

// How a new run is confined, for launch and continue alike: the sandbox its agent's commands run in,
// bubblewrap for its check, and the probe that proves them before anything is made.

export interface Confinement {
  sandbox: SandboxSpec | null;
  /** bubblewrap for the check; null when the check runs unconfined (or there is none). */
  checkWith: string | null;
  /** What launch says of it, a line each. */
  notes: string[];
  /** bubblewrap to try the policy with; null where there is nothing to try (no sandbox, or not Linux). */
  probeWith: string | null;
}

/** A run launched now: the settings' wish and what this machine has; refused with the fix. */
export function confinementAtLaunch(settings: Settings, env: NodeJS.ProcessEnv): Confinement {
  const facts = sandboxFacts(env);
  const choice = chooseSandbox(
    {
      sandbox: settings.sandbox,
      network: settings.sandboxNetwork,
      write: settings.sandboxWrite,
      verify: settings.verify !== null,
      verifyUnconfined: settings.verifyUnconfined,
    },
    facts,
  );
  if (!choice.ok) throw new UsageError(choice.error);
  const probeWith = choice.checkWith ?? (choice.sandbox && facts.platform === 'linux' ? facts.bwrap : null);
  return { sandbox: choice.sandbox, checkWith: choice.checkWith, notes: choice.notes, probeWith };
}

/**
 * A follow-up (`continue`) keeps the earlier night's confinement: its agent had Bash only because it
 * had the sandbox, and its check ran confined unless the person said otherwise. What cannot hold
 * on this machine now is refused, never quietly dropped.
 */
export function confinementAgain(earlier: RunSpec, env: NodeJS.ProcessEnv): Confinement {
  const facts = sandboxFacts(env);
  const agent = agentSandbox(facts);
  if (earlier.sandbox && !agent.ok)
    throw new UsageError(
      `${earlier.id} ran in a sandbox, which cannot run here now: ${agent.why}; ${agent.fix}`,
    );
  const confined = earlier.verify && !earlier.verify.unconfined;
  const check = checkSandbox(facts);
  if (confined && !check.ok)
    throw new UsageError(
      `${earlier.id}'s check ran confined, which cannot be done here now: ${check.why}; ${check.fix}`,
    );
  const checkWith = confined ? facts.bwrap : null;
  const probeWith = checkWith ?? (earlier.sandbox && facts.platform === 'linux' ? facts.bwrap : null);
  return { sandbox: earlier.sandbox ?? null, checkWith, notes: [], probeWith };
}

/** The run's policy tried for real before anything is made (OperationalError when it leaks). */
export async function proveConfinement(root: string, c: Confinement, env: NodeJS.ProcessEnv): Promise<void> {
  if (c.probeWith) await probeSandbox(root, c.probeWith, c.sandbox ?? { network: [], write: [] }, env);
}
