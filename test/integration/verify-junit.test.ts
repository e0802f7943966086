import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// verify_junit: the check's counts and names come from the JUnit XML file its command writes,
// read back only when the command wrote it this time, as a regular file below its directory.

const XML =
  '<testsuite><testcase classname="calc" name="adds"/>' +
  '<testcase classname="calc" name="divides"><failure/></testcase></testsuite>';

async function untilDone(sb: Sandbox, workspace: string): Promise<string> {
  return waitFor(
    async () => {
      await sb.run(['reconcile', '--retry-lock', '2000']);
      return sb.read(join(workspace, 'DONE'));
    },
    { timeout: 40_000, interval: 300, what: 'DONE' },
  );
}

/** result.json's verify, once the settled run has it. */
async function verifyOf(sb: Sandbox, workspace: string): Promise<Record<string, unknown>> {
  const text = await waitFor(() => sb.read(join(workspace, 'result.json')), { what: 'result.json' });
  return (JSON.parse(text) as { verify: Record<string, unknown> }).verify;
}

describe('a check that writes a JUnit file', () => {
  it('its counts and names come from the file, whatever the output and exit say', async ({ sb }) => {
    sb.setBehaviour([{ work: 30 }, { report: true }]);
    const cmd = `mkdir -p out && printf '%s' '${XML}' > out/junit.xml && echo all good`;
    const run = await sb.launch('Survey', [
      '--duration',
      '3s',
      '--verify',
      cmd,
      '--verify-junit',
      'out/junit.xml',
    ]);
    const done = await untilDone(sb, run.workspace);
    expect(done).toMatch(/NOT verified: 1 new failure: calc divides/);
    expect(await verifyOf(sb, run.workspace)).toMatchObject({
      final: { passed: 1, failed: 1, failures: ['calc divides'], exit: 0 },
    });
  });

  it('a file left from before, or one through a link out of the directory, is not read', async ({ sb }) => {
    const outside = join(sb.dir, 'elsewhere');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'junit.xml'), XML);
    // The agent leaves a file of its own where the check's would be; the check writes none.
    sb.setBehaviour([{ plant: { 'junit.xml': XML }, work: 30 }, { report: true }]);
    const stale = await sb.launch('Survey', [
      '--duration',
      '3s',
      '--verify',
      'true',
      '--verify-junit',
      'junit.xml',
    ]);
    expect(await untilDone(sb, stale.workspace)).toMatch(/; verified by exit code alone/);
    expect(await verifyOf(sb, stale.workspace)).toMatchObject({ final: { passed: null, failed: null } });
    expect(sb.read(join(stale.workspace, 'junit.xml'))).toBeNull();

    // A directory on the way that links out of the working directory.
    const cmd = `ln -sfn '${outside}' out`;
    const linked = await sb.launch('Survey', [
      '--duration',
      '3s',
      '--verify',
      cmd,
      '--verify-junit',
      'out/junit.xml',
    ]);
    expect(await untilDone(sb, linked.workspace)).toMatch(/; verified by exit code alone/);
    expect(await verifyOf(sb, linked.workspace)).toMatchObject({ final: { passed: null, failed: null } });
    expect(sb.read(join(outside, 'junit.xml'))).toBe(XML);
  });

  it('a path outside the working directory is refused at launch, with the fix', async ({ sb }) => {
    const r = await sb.run(['launch', '--verify', 'true', '--verify-junit', '../junit.xml', 'Survey']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/verify_junit.*\.\.\/junit\.xml.*relative to the check's working directory/);
  });
});
