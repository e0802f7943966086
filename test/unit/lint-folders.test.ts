import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';

// The folder rule of eslint.config.js, on code planted in src/'s folders: a static import, a
// re-export, a type import and a dynamic import() are held to the same direction, and an import()
// lint cannot read is refused.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'overnight/folder-imports')
    .map((m) => m.message);
}

const DOWN = 'src/adapters may import only core (eslint.config.js).';

describe('the folder rule', () => {
  test.each<{ name: string; file: string; code: string; want: string[] }>([
    {
      name: 'a dynamic import() up the order',
      file: 'src/adapters/planted.ts',
      code: "export const f = () => import('../reconcile/run.js');\n",
      want: [DOWN],
    },
    {
      name: 'a static import up the order',
      file: 'src/adapters/planted.ts',
      code: "import { reconcileRun } from '../reconcile/run.js';\nexport const f = reconcileRun;\n",
      want: [DOWN],
    },
    {
      name: 'a type import and a re-export',
      file: 'src/adapters/backend/planted.ts',
      code: "export type T = typeof import('../../read/observe.js');\nexport * from '../../runs/stop.js';\n",
      want: [DOWN, DOWN],
    },
    {
      name: 'an import() lint cannot read',
      file: 'src/read/planted.ts',
      code: "const at = '../reconcile/run.js';\nexport const f = () => import(at);\n",
      want: ['import() takes a literal path: the folder rule must see it.'],
    },
    {
      name: 'I/O in the pure core, dynamically',
      file: 'src/core/status/planted.ts',
      code: "export const f = async () => (await import('node:fs')).readFileSync;\n",
      want: ['src/core is pure: I/O belongs in src/adapters.'],
    },
    {
      name: 'a command importing another',
      file: 'src/commands/planted.ts',
      code: "export const f = () => import('./status.js');\n",
      want: ['A command imports no other command: shared work belongs in src/runs or src/app.'],
    },
    {
      name: 'the entry, from a folder',
      file: 'src/runs/planted.ts',
      code: "export const f = () => import('../main.js');\n",
      want: ['src/runs may not import src/main.js: it is the entry, above every folder.'],
    },
    {
      name: 'down the order, dynamically, and a package',
      file: 'src/reconcile/planted.ts',
      code: "export const f = () => [import('../notify/queue.js'), import('../core/text.js'), import('execa')];\n",
      want: [],
    },
    {
      name: 'within its own folder',
      file: 'src/core/supervise/planted.ts',
      code: "export const f = () => import('../status/fit.js');\n",
      want: [],
    },
  ])('$name', async ({ file, code, want }) => {
    expect(await problems(file, code)).toEqual(want);
  });
});
