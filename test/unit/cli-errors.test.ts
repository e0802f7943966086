import { describe, expect, test } from 'vitest';

import { parseStream } from '../../src/core/agent/stream.js';
import { kindsOf } from '../../src/core/notify/events.js';
import { decide } from '../../src/core/supervise/decide.js';
import { endOfSession } from '../../src/core/supervise/session-end.js';
import type { Action } from '../../src/core/supervise/types.js';
import { at, BEFORE_END, crashes, ended, exited, observation, restarts, session, spec } from './builders.js';

// The CLI's typed error causes that are no crash, from fake stream lines through to decide: those
// only the person can fix fail the run at once with the fix; a reply cut at the output-token cap
// continues like a clean stop. No restart is counted for either.

const marker = (n: number, mode: string) =>
  JSON.stringify({
    type: 'overnight_session',
    session: n,
    mode,
    conversation: 'c',
    at: '2026-11-22T02:00:00Z',
  });
/** The synthetic assistant message the CLI writes for an API error, with its typed cause. */
const synthetic = (error: string, text: string) =>
  JSON.stringify({
    type: 'assistant',
    message: { model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text }] },
    session_id: 'c',
    error,
  });
const result = (text: string, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: true,
    result: text,
    session_id: 'c',
    ...over,
  });
const text = (t: string) =>
  JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: t }] }, session_id: 'c' });

/** decide's action for a first session that printed `lines` and exited 1 at 02:59, with time left. */
function after(lines: string[], crashesBefore = 0): Action {
  const logs = parseStream([marker(1, 'initial'), ...lines].join('\n') + '\n');
  const end = endOfSession(logs, 1, at('02:59'), 0);
  const obs = observation({
    session: ended(session(), { exit: exited(1), ...end }),
    restarts: restarts(crashes(crashesBefore)),
  });
  return decide(spec(), obs, BEFORE_END);
}

describe('errors no restart fixes: FAILED at once, with the fix', () => {
  test.each<{ error: string; said: string; status?: number; what: RegExp; fix: RegExp }>([
    {
      error: 'account_on_hold',
      said: 'API Error: Your account is on hold',
      status: 403,
      what: /^the account is on hold/,
      fix: /claude\.ai/,
    },
    {
      error: 'verification_required',
      said: 'API Error: Verify your identity to continue',
      status: 403,
      what: /^the account must be verified/,
      fix: /verification/,
    },
    {
      error: 'oauth_org_not_allowed',
      said: 'Your organization does not allow OAuth sign-in',
      status: 403,
      what: /^the organization does not allow this sign-in/,
      fix: /ANTHROPIC_API_KEY/,
    },
    {
      error: 'model_not_found',
      said: 'API Error (claude-nonesuch): model not found. Run /model to pick a different model.',
      status: 404,
      what: /^the model is not available/,
      fix: /--model.*fallback_model/,
    },
    {
      error: 'cloud_credential_error',
      said: 'API Error: Could not load AWS credentials · expired. Check or refresh your AWS credentials.',
      what: /^the cloud provider credentials/,
      fix: /refresh or fix those credentials/,
    },
  ])('$error → FAILED', ({ error, said, status, what, fix }) => {
    const action = after([synthetic(error, said), result(said, status ? { api_error_status: status } : {})]);
    expect(action).toMatchObject({ kind: 'finish', sentinel: 'FAILED' });
    expect(action.reason).toMatch(what);
    expect(action.reason).toContain(`(${error}: ${said.slice(0, 40)}`);
    expect(action.reason).toMatch(/; no restart can fix that: /);
    expect(action.reason).toMatch(fix);
    // The person is told: the failure needs them.
    expect(kindsOf({ action: 'finish', to: 'failed', reason: action.reason }, false)).toEqual([
      'needs-you',
      'failed',
    ]);
  });

  test('a 403 that is on hold is not retried as a refused login', () => {
    const action = after([
      synthetic('account_on_hold', 'on hold'),
      result('Failed to authenticate. API Error: 403'),
    ]);
    expect(action).toMatchObject({ kind: 'finish', sentinel: 'FAILED' });
  });

  test('the model answering after an earlier error clears it: that session is judged as usual', () => {
    const action = after([synthetic('model_not_found', 'no such model'), text('switched'), result('boom')]);
    expect(action).toMatchObject({ kind: 'start', mode: 'resume', reason: 'agent ended (exit 1): boom' });
  });

  test('an error type overnight does not know stays a crash', () => {
    const action = after([synthetic('unknown', 'API Error: something'), result('API Error: something')]);
    expect(action).toMatchObject({ kind: 'start', mode: 'resume' });
  });
});

describe('a reply cut at the output-token cap: a normal stop, continued', () => {
  const said = 'API Error: Claude response exceeded the 32000 output token maximum. Try again.';
  test.each<{ name: string; lines: string[] }>([
    { name: 'named by the assistant event', lines: [synthetic('max_output_tokens', said), result(said)] },
    { name: 'named by the result only', lines: [result(said, { api_error: 'max_output_tokens' })] },
  ])('$name → continue, not counted', ({ lines }) => {
    // Even with the breaker's restarts used up, it continues: it is no crash.
    const action = after(lines, 5);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
    expect(action.reason).toMatch(/^reply cut at the output cap after /);
  });
});
