import { agentSandbox, checkSandbox, type SandboxFacts } from '../sandbox/available.js';
import type { CheckResult } from './checks.js';

// Doctor's line on the sandbox: whether the agent's commands and the check can be confined here,
// and what a run gets when they cannot. Pure.

export function checkSandboxes(
  f: SandboxFacts,
  wanted: boolean | null,
  verifyUnconfined: boolean,
): CheckResult[] {
  const agent = agentSandbox(f);
  const check = checkSandbox(f);
  const out: CheckResult[] = [];
  if (wanted === false)
    out.push({
      name: 'sandbox',
      status: 'warning',
      detail:
        "sandbox: false in the config: the agent's commands run unconfined, and it gets no Bash by default",
      fix: 'remove sandbox: false to confine them',
    });
  else if (agent.ok) {
    const how = f.platform === 'darwin' ? 'Seatbelt' : `bubblewrap ${f.bwrap}, socat ${f.socat}`;
    out.push({
      name: 'sandbox',
      status: 'ok',
      detail: `the agent's commands run in Claude Code's sandbox (${how}), so runs get Bash`,
    });
  } else
    out.push({
      name: 'sandbox',
      status: wanted === true ? 'problem' : 'warning',
      detail:
        `no sandbox: ${agent.why}; runs get no Bash, and overnight commits a repository run's ` +
        'work for it',
      fix: agent.fix,
    });
  if (check.ok)
    out.push({ name: 'verify', status: 'ok', detail: `a --verify check runs confined (bubblewrap)` });
  else
    out.push({
      name: 'verify',
      status: 'warning',
      detail: verifyUnconfined
        ? `a --verify check runs unconfined, as you (verify_unconfined): ${check.why}`
        : `a --verify check cannot be confined (${check.why}): launch refuses one unless ` +
          'verify_unconfined is set',
      fix: check.fix,
    });
  return out;
}
