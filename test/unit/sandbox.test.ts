import { describe, expect, test } from 'vitest';

import { resolveSettings } from '../../src/core/config/settings.js';
import { specFromDoc, specToDoc } from '../../src/core/run/records.js';
import { agentSandbox, checkSandbox, type SandboxFacts } from '../../src/core/sandbox/available.js';
import { bwrapArgs, checkPolicy } from '../../src/core/sandbox/bwrap.js';
import { chooseSandbox, SANDBOXED_TOOLS } from '../../src/core/sandbox/choice.js';
import { claudeSettings } from '../../src/core/sandbox/claude-settings.js';
import { domainProblem, runPolicy } from '../../src/core/sandbox/policy.js';
import { probeProblems } from '../../src/core/sandbox/probe.js';
import { spec } from './builders.js';

const PLACES = {
  root: '/home/ada/overnight-runs',
  runDir: '/home/ada/overnight-runs/r1',
  worktree: '/home/ada/overnight-runs/worktrees/r1',
  tmp: '/home/ada/overnight-runs/.run-tmp/r1',
  home: '/home/ada',
  configDir: '/home/ada/.config/overnight',
};

describe('a run’s policy', () => {
  const p = runPolicy({ network: ['packages.example.com'], write: ['/home/ada/.cache/pip'] }, PLACES);
  test('writable: its directory, worktree and temp directory, and what the person adds', () => {
    expect(p.write).toEqual([PLACES.runDir, PLACES.worktree, PLACES.tmp, '/home/ada/.cache/pip']);
  });
  test('unreadable: the whole runs root (records, other runs), the secrets, overnight’s config', () => {
    expect(p.denyRead).toContain(PLACES.root);
    for (const s of [
      '.ssh',
      '.aws',
      '.gnupg',
      '.config/gh',
      '.netrc',
      '.npmrc',
      '.docker/config.json',
      '.kube',
    ])
      expect(p.denyRead).toContain(`/home/ada/${s}`);
    expect(p.denyRead).toContain(PLACES.configDir);
  });
  test('readable again inside the root: the run’s own directories only', () => {
    expect(p.allowRead).toEqual([PLACES.runDir, PLACES.worktree, PLACES.tmp]);
    expect(p.network).toEqual(['packages.example.com']);
  });
});

describe("Claude Code's settings for every session", () => {
  const policy = runPolicy({ network: [], write: [] }, PLACES);
  test('the sandbox on, no fallback, an allowlist that holds', () => {
    const s = claudeSettings({ policy, unreadable: ['/home/ada/.ssh'] }) as {
      sandbox: Record<string, unknown>;
      permissions: { deny: string[]; blockWritesOutsideWorkingDirectories: boolean };
    };
    expect(s.sandbox).toMatchObject({
      enabled: true,
      failIfUnavailable: true,
      autoAllowBashIfSandboxed: true,
      allowUnsandboxedCommands: false,
      network: { allowedDomains: [], strictAllowlist: true },
    });
    expect(s.permissions.deny).toEqual(['Read(//home/ada/.ssh)', 'Read(//home/ada/.ssh/**)']);
    expect(s.permissions.blockWritesOutsideWorkingDirectories).toBe(true);
  });
  test('without a sandbox the Read rules and the write block still hold', () => {
    expect(claudeSettings({ policy: null, unreadable: ['/x'] })).toEqual({
      permissions: { deny: ['Read(//x)', 'Read(//x/**)'], blockWritesOutsideWorkingDirectories: true },
    });
  });
});

describe("the check's bubblewrap", () => {
  const agent = runPolicy({ network: [], write: [] }, PLACES);
  const policy = checkPolicy(agent, PLACES.worktree, PLACES.tmp);
  const kinds = new Map<string, 'dir' | 'file'>([
    [PLACES.root, 'dir'],
    [PLACES.worktree, 'dir'],
    [PLACES.tmp, 'dir'],
    ['/home/ada/.ssh', 'dir'],
    ['/home/ada/.netrc', 'file'],
  ]);
  const args = bwrapArgs({ policy, cwd: `${PLACES.worktree}/lib`, tmp: PLACES.tmp, kinds });
  const at = (...a: string[]) => {
    for (let i = 0; i <= args.length - a.length; i++) if (a.every((x, j) => args[i + j] === x)) return i;
    return -1;
  };
  test('read-only system, own namespaces, no network, everything dies with it', () => {
    for (const f of ['--die-with-parent', '--unshare-pid', '--unshare-net', '--new-session'])
      expect(args).toContain(f);
    expect(at('--ro-bind', '/', '/')).toBeGreaterThanOrEqual(0);
  });
  test('the root hidden, then the worktree and temp directory shown, writable; the rest of the run hidden', () => {
    expect(at('--tmpfs', PLACES.root)).toBeGreaterThan(0);
    expect(at('--bind', PLACES.worktree, PLACES.worktree)).toBeGreaterThan(at('--tmpfs', PLACES.root));
    expect(at('--bind', PLACES.tmp, PLACES.tmp)).toBeGreaterThan(at('--tmpfs', PLACES.root));
    expect(args).not.toContain(PLACES.runDir);
  });
  test('secrets hidden as what they are; what does not exist is not mounted', () => {
    expect(at('--tmpfs', '/home/ada/.ssh')).toBeGreaterThan(0);
    expect(at('--ro-bind', '/dev/null', '/home/ada/.netrc')).toBeGreaterThan(0);
    expect(args).not.toContain('/home/ada/.aws');
  });
  test('a writable place above a secret does not show it again', () => {
    const wide = {
      ...policy,
      write: [...policy.write, '/home/ada'],
      allowRead: [...policy.allowRead, '/home/ada'],
    };
    const a = bwrapArgs({
      policy: wide,
      cwd: '/',
      tmp: null,
      kinds: new Map([...kinds, ['/home/ada', 'dir']]),
    });
    const home = a.indexOf('/home/ada');
    const ssh = a.lastIndexOf('/home/ada/.ssh');
    expect(ssh).toBeGreaterThan(home);
  });
  test('starts where the agent works, with its own TMPDIR', () => {
    expect(at('--setenv', 'TMPDIR', PLACES.tmp)).toBeGreaterThan(0);
    expect(args.slice(-2)).toEqual(['--chdir', `${PLACES.worktree}/lib`]);
  });
});

const LINUX: SandboxFacts = {
  platform: 'linux',
  bwrap: '/usr/bin/bwrap',
  socat: '/usr/bin/socat',
  sandboxExec: null,
  bwrapError: null,
};

describe('whether this machine can confine a run', () => {
  test.each<{ name: string; f: SandboxFacts; agent: RegExp | null; check: RegExp | null }>([
    { name: 'Linux with both', f: LINUX, agent: null, check: null },
    { name: 'no socat', f: { ...LINUX, socat: null }, agent: /socat not found/, check: null },
    {
      name: 'no bubblewrap',
      f: { ...LINUX, bwrap: null },
      agent: /bubblewrap \(bwrap\) not found/,
      check: /not found/,
    },
    {
      name: 'user namespaces refused',
      f: { ...LINUX, bwrapError: 'Operation not permitted' },
      agent: /cannot start here/,
      check: /cannot start here/,
    },
    {
      name: 'macOS',
      f: { ...LINUX, platform: 'darwin', bwrap: null, socat: null, sandboxExec: '/usr/bin/sandbox-exec' },
      agent: null,
      check: /verify_unconfined/,
    },
    {
      name: 'Windows',
      f: { ...LINUX, platform: 'win32' },
      agent: /no sandbox on win32/,
      check: /bubblewrap/,
    },
  ])('$name', ({ f, agent, check }) => {
    const a = agentSandbox(f);
    const c = checkSandbox(f);
    if (agent) expect(a.ok ? '' : `${a.why}; ${a.fix}`).toMatch(agent);
    else expect(a.ok).toBe(true);
    if (check) expect(c.ok ? '' : `${c.why}; ${c.fix}`).toMatch(check);
    else expect(c.ok).toBe(true);
  });
});

describe("launch's choice", () => {
  const wish = { sandbox: null, network: [], write: [], verify: false, verifyUnconfined: false };
  test('available: on, with Bash by default', () => {
    expect(chooseSandbox(wish, LINUX)).toEqual({
      ok: true,
      sandbox: { network: [], write: [] },
      checkWith: null,
      notes: [],
    });
    expect(SANDBOXED_TOOLS).toContain('Bash');
  });
  test('not available: off, said with the fix; asked for explicitly: refused', () => {
    const off = chooseSandbox(wish, { ...LINUX, bwrap: null });
    expect(off).toMatchObject({
      ok: true,
      sandbox: null,
      notes: [expect.stringMatching(/no Bash .*apt-get install bubblewrap socat/)],
    });
    expect(chooseSandbox({ ...wish, sandbox: true }, { ...LINUX, bwrap: null })).toMatchObject({
      ok: false,
      error: /sandbox: true, but/,
    });
  });
  test('turned off: said what that grants', () => {
    expect(chooseSandbox({ ...wish, sandbox: false }, LINUX)).toMatchObject({
      ok: true,
      sandbox: null,
      notes: [/runs as you, unconfined/],
    });
  });
  test('a check is confined by bubblewrap, refused where it cannot be, unless unconfined is chosen', () => {
    expect(chooseSandbox({ ...wish, verify: true }, LINUX)).toMatchObject({
      ok: true,
      checkWith: '/usr/bin/bwrap',
    });
    const mac = { ...LINUX, platform: 'darwin', bwrap: null, sandboxExec: '/usr/bin/sandbox-exec' };
    expect(chooseSandbox({ ...wish, verify: true }, mac)).toMatchObject({
      ok: false,
      error: /--verify runs code the night writes/,
    });
    expect(chooseSandbox({ ...wish, verify: true, verifyUnconfined: true }, mac)).toMatchObject({
      ok: true,
      checkWith: null,
      notes: [/the check runs unconfined/],
    });
  });
});

describe('the probe’s judgement', () => {
  const where = { outside: '/home/ada/.overnight-probe-1', records: '/r/.overnight/.probe-1' };
  test.each([
    [{ wrote: false, read: false, connected: false, failed: null }, []],
    [
      { wrote: true, read: true, connected: true, failed: null },
      [/wrote \/home\/ada/, /read overnight's records/, /loopback port/],
    ],
    [
      { wrote: false, read: false, connected: false, failed: 'uid map' },
      [/could not run the run's policy \(uid map\)/],
    ],
  ])('%j', (seen, want) => {
    const got = probeProblems(seen, where);
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });
});

describe('settings and run.yaml', () => {
  test('domains and directories from the config file, the environment, a flag', () => {
    const { settings, problems } = resolveSettings({
      home: '/home/ada',
      env: { OVERNIGHT_SANDBOX_NETWORK: 'Pkgs.Example.org, files.example.org' },
      file: { path: 'c.yaml', data: { sandbox_write: ['~/.cache/pip', '/opt/cache/'], sandbox: false } },
    });
    expect(problems).toEqual([]);
    expect(settings.sandboxNetwork).toEqual(['pkgs.example.org', 'files.example.org']);
    expect(settings.sandboxWrite).toEqual(['/home/ada/.cache/pip', '/opt/cache']);
    expect(settings.sandbox).toBe(false);
  });
  test.each(['https://pkgs.example.org', 'pkgs.example.org:443', 'pkgs.example.org/simple', '*', 'a..b', ''])(
    '%j is not a domain',
    (d) => {
      expect(domainProblem(d)).toMatch(/is not a domain/);
    },
  );
  test('a relative or root directory is refused by name', () => {
    const { problems } = resolveSettings({
      home: '/h',
      env: {},
      file: { path: 'c', data: { sandbox_write: ['cache'] } },
    });
    expect(problems[0]?.message).toMatch(/"cache" is not an absolute directory/);
  });
  test('run.yaml keeps the sandbox and the check’s confinement; a bad one is refused', () => {
    const s = {
      ...spec(),
      sandbox: { network: ['pkgs.example.org'], write: ['/opt/x'] },
      paths: { ...spec().paths, bwrap: '/usr/bin/bwrap' },
    };
    const back = specFromDoc(specToDoc(s));
    expect(back.sandbox).toEqual(s.sandbox);
    expect(back.paths.bwrap).toBe('/usr/bin/bwrap');
    const doc = specToDoc(s);
    expect(() => specFromDoc({ ...doc, sandbox: { network: ['x y'], write: [] } })).toThrow(
      /sandbox.network/,
    );
    expect(() => specFromDoc({ ...doc, sandbox: { network: [], write: ['relative'] } })).toThrow(
      /sandbox.write/,
    );
    expect(specFromDoc({ ...doc, sandbox: undefined }).sandbox).toBeUndefined();
  });
});
