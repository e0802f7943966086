import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

import { OperationalError } from '../core/errors.js';
import { recordsRoot } from '../core/run/paths.js';
import { bwrapArgs, pathsToLook } from '../core/sandbox/bwrap.js';
import { runPolicy, type SandboxSpec } from '../core/sandbox/policy.js';
import { PROBE_SCRIPT, probeProblems } from '../core/sandbox/probe.js';
import { writeFileAtomic } from './files.js';
import { kindsOf, overnightConfigDir } from './sandbox.js';

// launch's probe: the run's policy (its runs root hidden, the person's secrets hidden, no network)
// tried with bubblewrap, the tool that confines the check and, on Linux, Claude Code's own sandbox.

const PROBE_TIMEOUT_MS = 20_000;

/** Refuses (OperationalError) when the sandbox does not hold; returns quietly when it does. */
export async function probeSandbox(
  root: string,
  bwrap: string,
  spec: SandboxSpec,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const home = env.HOME || homedir();
  const tag = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const secret = randomBytes(12).toString('hex');
  const records = join(recordsRoot(root), `.probe-${tag}`);
  // Beside the runs root: neither a writable place of the run nor hidden.
  const outside = join(dirname(root), `.overnight-probe-${tag}`);
  mkdirSync(recordsRoot(root), { recursive: true, mode: 0o700 });
  writeFileAtomic(records, `${secret}\n`);
  const listener = await listen();
  try {
    const places = {
      root,
      runDir: join(root, `.probe-run-${tag}`),
      worktree: null,
      tmp: join(root, `.probe-tmp-${tag}`),
      home,
    };
    const policy = runPolicy(spec, { ...places, configDir: overnightConfigDir(env, home) });
    const args = bwrapArgs({
      policy: { ...policy, network: [] },
      cwd: '/',
      tmp: null,
      kinds: kindsOf(pathsToLook(policy)),
    });
    const r = await execa(
      bwrap,
      [
        ...args,
        '--',
        '/bin/sh',
        '-c',
        PROBE_SCRIPT,
        'probe',
        outside,
        records,
        process.execPath,
        String(listener.port),
      ],
      {
        reject: false,
        timeout: PROBE_TIMEOUT_MS,
        stdin: 'ignore',
        extendEnv: false,
        env: { PATH: env.PATH ?? '/usr/bin:/bin' },
      },
    );
    const out = String(r.stdout);
    const ran = out.includes('PROBE-RAN');
    const problems = probeProblems(
      {
        wrote: existsSync(outside),
        read: out.includes(secret),
        connected: listener.connections() > 0 || out.includes('PROBE-CONNECTED'),
        failed: ran ? null : (String(r.stderr).split('\n')[0] || `exit ${r.exitCode}`).slice(0, 200),
      },
      { outside, records },
    );
    if (problems.length > 0)
      throw new OperationalError(
        `the sandbox did not hold when tried: ${problems.join('; ')}. Nothing was launched; ` +
          'fix bubblewrap here (overnight doctor says what it sees), or launch with --no-sandbox ' +
          '(and verify_unconfined for a check) to run unconfined, knowingly',
      );
  } finally {
    rmSync(records, { force: true });
    // Made by this probe, under a name only it uses: never the person's.
    rmSync(outside, { force: true });
    listener.close();
  }
}

async function listen(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let n = 0;
  const server: Server = createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, connections: () => n, close: () => server.close() };
}
