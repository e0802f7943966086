// A 1 MB brief from a file, through overnight and the real Claude Code CLI against the mock API:
// the whole of it reaches the model once (in CLAUDE.md, not repeated in the prompt).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { reply, startMockApi, toolResults, type MessagesBody } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

describe('a 1 MB brief with the real claude binary', () => {
  it('reaches the model whole, once, and the run ends with its report', async ({ sb }) => {
    assertClaudeInstalled();
    const brief = `# Brief START-OF-BRIEF\n${'Survey module after module, carefully. '.repeat(27_000)}\nEND-OF-BRIEF\n`;
    expect(Buffer.byteLength(brief)).toBeGreaterThan(1024 * 1024);
    writeFileSync(join(sb.dir, 'brief.md'), brief);
    let workspace = '';
    const api = await startMockApi((body: MessagesBody) =>
      toolResults(body).length === 0
        ? reply.write(join(workspace, 'REPORT.md'), '# Report\n\nRead the whole brief.\n')
        : reply.text('Done.'),
    );
    try {
      const env = { ...cliEnv(api.url, sb.home), PATH: process.env.PATH, OVERNIGHT_CLAUDE: CLAUDE };
      const r = await sb.run(['launch', '--json', '--task-file', join(sb.dir, 'brief.md')], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      workspace = (JSON.parse(r.stdout) as { workspace: string }).workspace;
      await waitFor(() => sb.read(join(workspace, 'DONE')), { timeout: 40_000, what: 'DONE' });
      await sb.quiesce();

      const first = JSON.stringify(api.mainRequests()[0]?.body?.messages);
      expect(first.split('START-OF-BRIEF')).toHaveLength(2);
      expect(first.split('END-OF-BRIEF')).toHaveLength(2);
      expect(first).toContain(JSON.stringify(brief).slice(1, -1));
      expect(sb.read(join(workspace, 'DONE'))).toMatch(/^finished: REPORT\.md written/);
    } finally {
      await api.close();
    }
  });
});
