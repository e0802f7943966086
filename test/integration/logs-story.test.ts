import { execa } from 'execa';
import { describe, expect } from 'vitest';

import { BIN, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// logs tells the night around the stream: each session's header in local time with why it
// started, overnight's own interrupt said as such, an error result as an error, and -f ending
// with how the run ended.

describe('logs: the story around the stream', () => {
  it('headers in local time with why, the end-time interrupt by overnight, an error as an error, -f ends with the state', async ({
    sb,
  }) => {
    sb.setBehaviour([
      { work: 0, apiError: { status: 500, type: 'api_error' } },
      { work: 60 },
      { report: true },
    ]);
    const { id, endsAt } = await sb.launch('Work past the end', ['--duration', '4s'], { TZ: 'Asia/Tokyo' });
    await sb.agentPid(id, 2);
    const follower = execa(process.execPath, [BIN, 'logs', '--all', '-f', id], {
      env: { ...sb.env, TZ: 'Asia/Tokyo' },
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    await waitFor(() => Date.now() > new Date(endsAt).getTime() + 200, { what: 'end time passed' });
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    // The interrupt at the end time: this pass's, or the end timer's (armed by the wrapper's pass,
    // whose environment has no OVERNIGHT_END_TIMER=0) a moment before it.
    await waitFor(
      () => /"action":"interrupt","cause":"end-time"/.test(sb.read(sb.state(id, 'events.jsonl')) ?? ''),
      {
        what: 'the end-time interrupt',
      },
    );
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 20_000, what: 'DONE' });

    const followed = await follower;
    expect(followed.exitCode, followed.stderr).toBe(0);
    const text = String(followed.stdout);
    expect(text).toMatch(
      /^── session 1 · \w{3} \d+ \w{3} \d{4}, \d\d:\d\d:\d\d \(UTC\+09:00\) · first session ──$/m,
    );
    expect(text).toMatch(/^■ error \(API 500\) · 1 turns · \$0\.0100: API Error: 500 api_error \(fake\)$/m);
    expect(text).not.toMatch(/result success \(error\)/);
    expect(text).toMatch(
      /^── session 2 · .* \(UTC\+09:00\) · retried: the API failed|^── session 2 · .* · (resumed|continued|retried)/m,
    );
    expect(text).toMatch(/^■ interrupted by overnight: interrupted at the end time$/m);
    // Followed, a session just started may not have its reason recorded yet.
    expect(text).toMatch(/^── session 3 · .* · the synthesis( ──|: end time reached)/m);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^■ the run is DONE: finished: REPORT\.md written/);

    // Without -f, the same story.
    const again = await sb.run(['logs', '--all', id], { env: { TZ: 'Asia/Tokyo' } });
    expect(again.stdout).toMatch(/^■ interrupted by overnight: interrupted at the end time$/m);
    expect(again.stdout).toMatch(/^── session 3 · .* · the synthesis: end time reached/m);
  });
});

describe('logs of a failed run', () => {
  it('begins with the first session’s header; the last session’s "no result" is where it ended', async ({
    sb,
  }) => {
    // Killed without a result (as out of memory): each session ends in a "no result" line.
    sb.setBehaviour({ work: 1, oom: true });
    const { id } = await sb.launch('Fail at once', ['--duration', '1h', '--max-restarts', '1']);
    await waitFor(() => sb.read(sb.ws(id, 'FAILED')), { timeout: 30_000, what: 'FAILED' });
    await sb.quiesce();
    for (const args of [['--all'], []]) {
      const r = await sb.run(['logs', id, ...args]);
      expect(r.exitCode, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0], r.stdout).toMatch(/^── session \d+ · /);
      expect(lines.at(-1)).toMatch(/^■ the run is FAILED: circuit breaker/);
      // Each "no result" closes its own session: right before the next header, or the run's end.
      const shown = lines.filter((l) => l !== '');
      shown.forEach((l, i) => {
        if (l.startsWith('■ no result')) expect(shown[i + 1] ?? '').toMatch(/^(── session|■ the run is)/);
      });
      expect(lines.at(-2)).toMatch(/^■ no result: killed by SIGKILL \(exit 137\)/);
    }
  });
});
