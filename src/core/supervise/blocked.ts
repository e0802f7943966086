// The CLI's typed causes of an error message (an assistant event's top-level `error`) that are no
// crash: those no restart can fix end the run at once with the fix in words; a reply cut at the
// output-token cap is a normal stop. Pure.

import type { Cause } from './causes.js';

/** Why the account or the setup refuses every request, and what the person does about it. */
export interface Blocker {
  /** The CLI's error type, as it said it. */
  type: string;
  cause: Cause;
  what: string;
  fix: string;
}

/** Error types that no restart fixes: only the person can. */
const BLOCKERS: Record<string, { cause: Cause; what: string; fix: string }> = {
  account_on_hold: {
    cause: 'account-on-hold',
    what: 'the account is on hold',
    fix: 'sign in at claude.ai to see why and lift the hold, then launch again',
  },
  verification_required: {
    cause: 'verification-required',
    what: 'the account must be verified before it can be used',
    fix: 'complete the verification the error names (sign in at claude.ai), then launch again',
  },
  oauth_org_not_allowed: {
    cause: 'oauth-not-allowed',
    what: 'the organization does not allow this sign-in (OAuth) for Claude Code',
    fix: 'use an ANTHROPIC_API_KEY, or ask an admin of the organization to allow it, then launch again',
  },
  model_not_found: {
    cause: 'model-not-found',
    what: 'the model is not available to this account or deployment',
    fix: 'choose a model it has (`--model`, the `model` setting) or a `fallback_model`, then launch again',
  },
  // A startup failure (CLAUDE_CODE_STARTUP_FAILURE_RESULTS): the sandbox the run was launched
  // with cannot start now (bubblewrap removed, user namespaces refused since), and no session may
  // run without it.
  sandbox_required_unavailable: {
    cause: 'sandbox-unavailable',
    what: "Claude Code could not start the run's sandbox",
    fix:
      'run `overnight doctor` to see what is missing (apt-get install bubblewrap socat, or user ' +
      'namespaces allowed), then `overnight continue` the run; it never runs the agent unconfined',
  },
  cloud_credential_error: {
    cause: 'cloud-credentials',
    what: 'the cloud provider credentials (Bedrock, Vertex) could not be loaded',
    fix: 'refresh or fix those credentials in the environment you launch from, then launch again',
  },
};

/** The cause a session ended on that no restart can fix, if its error type is one. */
export function blockerOf(errorType: string | null | undefined): Blocker | null {
  const b = errorType ? BLOCKERS[errorType] : undefined;
  return b && errorType ? { type: errorType, ...b } : null;
}

/** A reply cut off at the output-token cap: a normal stop, continued like a clean exit. */
export function isOutputCap(
  errorType: string | null | undefined,
  apiError: string | null | undefined,
): boolean {
  return errorType === 'max_output_tokens' || apiError === 'max_output_tokens';
}

/** The reason a blocked run fails with: what was refused, the CLI's words, and the fix. */
export function blockedReason(b: Blocker, said: string | null): string {
  return `${b.what} (${b.type}${said ? `: ${said}` : ''}); no restart can fix that: ${b.fix}`;
}
