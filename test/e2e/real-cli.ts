// The pinned Claude Code CLI, run directly against the mock API in a throwaway HOME and workspace.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** Pinned in devDependencies; the tests fail (never skip) when it is missing. */
export const CLAUDE = join(REPO, 'node_modules', '.bin', 'claude');
export const OAUTH_TOKEN = `sk-ant-oat01-${'x'.repeat(86)}-mockAA`;

export function assertClaudeInstalled(): void {
  if (!existsSync(CLAUDE))
    throw new Error(
      `the pinned Claude Code CLI is missing at ${CLAUDE}: run npm install (devDependency @anthropic-ai/claude-code)`,
    );
}

/** What the CLI needs to talk to the mock only, quickly, and to nothing else. */
export function cliEnv(
  baseUrl: string,
  home: string,
  auth: 'api-key' | 'oauth' = 'api-key',
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: baseUrl,
    ...(auth === 'api-key' ? { ANTHROPIC_API_KEY: 'sk-test' } : { CLAUDE_CODE_OAUTH_TOKEN: OAUTH_TOKEN }),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: '1',
    API_TIMEOUT_MS: '3000',
  };
}

export type StreamEvent = Record<string, unknown> & { type: string; subtype?: string };

/** stream-json lines; anything that is not a JSON object is dropped. */
export function parseStream(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const line of text.split('\n')) {
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && 'type' in v) events.push(v as StreamEvent);
    } catch {
      // not an event
    }
  }
  return events;
}

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  events: StreamEvent[];
  result: StreamEvent | undefined;
}

/** A temp HOME and workspace for direct runs. */
export function cliSandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'ovt-cli-'));
  const home = join(dir, 'home');
  const workspace = join(dir, 'ws');
  mkdirSync(home);
  mkdirSync(workspace);
  return {
    dir,
    home,
    workspace,
    async claude(args: string[], prompt: string, env: Record<string, string>): Promise<CliRun> {
      const base = ['-p', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits'];
      const r = await execa(CLAUDE, [...base, ...args, '--allowedTools', 'Write', 'Read'], {
        cwd: workspace,
        env,
        extendEnv: false,
        input: prompt,
        reject: false,
        timeout: 30_000,
      });
      const events = parseStream(String(r.stdout));
      return {
        exitCode: r.exitCode ?? -1,
        stdout: String(r.stdout),
        stderr: String(r.stderr),
        events,
        result: events.find((e) => e.type === 'result'),
      };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
