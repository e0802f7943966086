import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor, type Call, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

const arg = (c: Call | undefined, flag: string) =>
  c && c.argv.includes(flag) ? c.argv[c.argv.indexOf(flag) + 1] : undefined;

describe('a fresh session when resuming cannot work', () => {
  const transcripts = (sb: Sandbox) => {
    const projects = join(sb.env.HOME as string, '.claude', 'projects');
    return readdirSync(projects).flatMap((d) =>
      readdirSync(join(projects, d)).map((f) => join(projects, d, f)),
    );
  };

  it('a missing transcript is never resumed: a new --session-id with the hand-over prompt and the task', async ({
    sb,
  }) => {
    // A first session that ends cleanly (its last words: "done"), a second killed with its transcript gone.
    sb.setBehaviour([{ work: 0 }, { work: 30 }, { work: 60 }]);
    const { id } = await sb.launch('Survey CRDT libraries', ['--duration', '1h'], {
      OVERNIGHT_MIN_UPTIME: '0s',
    });
    const pid = await sb.agentPid(id, 2);
    // Stopped first: the fake appends to its transcript as it works, which would recreate it.
    process.kill(pid, 'SIGSTOP');
    for (const t of transcripts(sb)) rmSync(t);
    process.kill(pid, 'SIGKILL');
    const second = await waitFor(() => sb.calls()[2], { timeout: 10_000, what: 'the fresh session' });
    const first = sb.calls()[0];
    expect(second.stdin).toContain("The previous session's last words were:\n\ndone\n");
    expect(arg(second, '--resume')).toBeUndefined();
    expect(arg(second, '--session-id')).not.toBe(arg(first, '--session-id'));
    expect(second.stdin).toMatch(/^You are continuing an unattended overnight run in a fresh session/);
    expect(second.stdin).toContain('Survey CRDT libraries');
    expect(sb.read(sb.state(id, 'run.yaml'))).toContain(`session_id: ${arg(second, '--session-id')}`);
    expect(sb.read(sb.state(id, 'restart.log'))).toMatch(
      /starting a fresh session: the transcript is missing/,
    );
  });

  it('a transcript over max_transcript is archived (moved, not deleted) and the run goes on afresh', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 30 }, { work: 60 }]);
    const { id } = await sb.launch('Talk a lot', ['--duration', '1h'], { OVERNIGHT_MAX_TRANSCRIPT: '10' });
    const pid = await sb.agentPid(id);
    const uuid = arg(sb.calls()[0], '--session-id') as string;
    process.kill(pid, 'SIGKILL');
    const second = await waitFor(() => sb.calls()[1], { timeout: 10_000, what: 'the fresh session' });
    expect(arg(second, '--session-id')).toBeTruthy();
    const archived = join(sb.state(id, 'transcripts'), `${uuid}.jsonl`);
    expect(existsSync(archived)).toBe(true);
    expect(sb.read(archived)).toContain('You are running unattended');
    expect(transcripts(sb).some((t) => t.endsWith(`${uuid}.jsonl`))).toBe(false);
  });
});
