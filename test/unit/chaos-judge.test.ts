import { describe, expect, test } from 'vitest';

import { measureNight, wastedAfter } from '../../chaos/night.mjs';
import { checkGoals, summarize } from '../../chaos/summary.mjs';

// The chaos judge fed synthetic nights: each broken supervisor must show in its figures and miss
// a goal; a night as a working supervisor makes it must meet them all.

type Night = Parameters<typeof measureNight>[0];
type Agent = Night['agents'][number];
type Inputs = Parameters<typeof summarize>[0];

const T0 = Date.parse('2026-11-21T23:00:00Z');
const s = (seconds: number) => T0 + seconds * 1000;
const BUDGET = 60;

let nextPid = 1000;
const agent = (from: number, to: number | null, how = 'clean', synthesis = false): Agent => ({
  pid: nextPid++,
  startedAt: s(from),
  endedAt: to === null ? null : s(to),
  how,
  synthesis,
});

/**
 * A 40-second night as a working supervisor makes it: killed at 10 s and resumed 2 s later,
 * interrupted at the end time, a synthesis that writes the report, DONE 3 s after the end.
 */
function goodNight(id: string, change: (n: Night) => Night = (n) => n): Night {
  return change({
    id,
    launchAt: s(0),
    endsAt: s(40),
    finishedAt: s(43),
    sentinel: 'DONE',
    report: true,
    agents: [agent(0.5, 10, 'killed'), agent(12, 40.2, 'interrupted'), agent(41, 42.5, 'clean', true)],
    excused: [],
    findings: { written: 2, intact: 2 },
    canaryIntact: true,
    wasted: 0,
  });
}

const FAULTS = {
  agents: 20,
  wrappers: 5,
  tmux: 1,
  passes: 3,
  stops: 2,
  pauses: 2,
  fullDisks: 1,
  synthesisFailures: 4,
};

function inputs(change: Partial<Inputs> = {}, nights = 20): Inputs {
  return {
    nights: Array.from({ length: nights }, (_, i) => goodNight(`run-${i}`)),
    stopped: [],
    orphans: [],
    duplicates: 0,
    faults: FAULTS,
    now: s(200),
    ...change,
  };
}

const missed = (i: Inputs) =>
  checkGoals(summarize(i), { synthesisBudget: BUDGET, canFillDisk: true })
    .filter((g) => !g.ok)
    .map((g) => g.name);

/** Twenty good nights, one of them replaced. */
const withOne = (bad: Night): Inputs => {
  const i = inputs();
  return { ...i, nights: [bad, ...i.nights.slice(1)] };
};

describe('the chaos judge', () => {
  test('nights as a working supervisor makes them meet every goal', () => {
    const summary = summarize(inputs());
    expect(summary.resume).toMatchObject({ p50: 2, p95: 2, max: 2, never: 0 });
    expect(summary.worked.median).toBeCloseTo(0.94, 2);
    expect(summary.late).toEqual({ p95: 3, max: 3 });
    expect(missed(inputs())).toEqual([]);
  });

  test.each<[string, Inputs, string[]]>([
    [
      'a crashed agent never resumed (only the synthesis starts, at the end time)',
      inputs({
        nights: Array.from({ length: 20 }, (_, i) =>
          goodNight(`run-${i}`, (n) => ({
            ...n,
            agents: [agent(0.5, 10, 'crash'), agent(41, 42.5, 'clean', true)],
          })),
        ),
      }),
      ['resume p95', 'never resumed', 'worked p5'],
    ],
    [
      'a report 10 minutes late (no interrupt at the end time)',
      withOne(goodNight('late', (n) => ({ ...n, finishedAt: s(40 + 600) }))),
      ['late max'],
    ],
    [
      'a run that never ended (the harness gave up on it)',
      withOne(goodNight('never', (n) => ({ ...n, finishedAt: null, sentinel: null, report: false }))),
      ['DONE with REPORT.md', 'late max'],
    ],
    [
      'an orphan wrapper after the run ended',
      inputs({ orphans: [{ pid: 4242, kind: 'wrapper', when: 'after the end' }] }),
      ['orphans'],
    ],
    [
      'no faults injected',
      inputs({ faults: { ...FAULTS, agents: 0, wrappers: 0, tmux: 0, passes: 0, stops: 0, pauses: 0 } }),
      ['faults injected'],
    ],
    ['two agents of one run at once', inputs({ duplicates: 1 }), ['duplicates']],
    [
      'a finding lost',
      withOne(goodNight('lost', (n) => ({ ...n, findings: { written: 2, intact: 1 } }))),
      ['findings intact'],
    ],
    [
      'the canary lost',
      withOne(goodNight('canary', (n) => ({ ...n, canaryIntact: false }))),
      ['lost canaries'],
    ],
    [
      'a night that ended without its report',
      withOne(goodNight('no-report', (n) => ({ ...n, report: false }))),
      ['DONE with REPORT.md'],
    ],
  ])('%s', (_, given, expected) => {
    expect(missed(given)).toEqual(expected);
  });

  test('the same pid seen twice is one orphan', () => {
    const s1 = summarize(
      inputs({
        orphans: [
          { pid: 7, kind: 'child', when: 'after stop' },
          { pid: 7, kind: 'child', when: 'after the end' },
        ],
      }),
    );
    expect(s1.orphans).toBe(1);
    expect(s1.orphanKinds.children).toBe(1);
  });

  test('a pause or a full disk is not held against the resume; a limit is not work owed', () => {
    const night = goodNight('excused', (n) => ({
      ...n,
      agents: [
        agent(0.5, 5, 'limit'),
        agent(15, 20, 'killed'),
        agent(30, 40.2, 'interrupted'),
        agent(41, 42.5, 'clean', true),
      ],
      excused: [[s(19), s(29)]],
    }));
    const f = measureNight(night, s(200));
    // Killed at 20 s, paused 19–29 s, resumed at 30 s: 1 s of the gap was the supervisor's.
    expect(f.resumeGaps.map((g) => Math.round(g * 1000) / 1000)).toEqual([1]);
    expect(f.never).toBe(0);
    // Owed: 40 s less the limit's wait (5–15) and the pause (19–29): 20 s, of which 18.5 worked.
    expect(f.worked).toBeCloseTo(18.5 / 20, 3);
  });

  test('an end seen late in /proc, after its successor started, is a resume at once', () => {
    // Killed by the supervisor at about 10 s, first seen gone at 10.4 s; the next agent at 10.2 s.
    const night = goodNight('lagging', (n) => ({
      ...n,
      agents: [agent(0.5, 10.4, 'killed'), agent(10.2, 40.2, 'interrupted'), agent(41, 42.5, 'clean', true)],
    }));
    const f = measureNight(night, s(200));
    expect(f.resumeGaps).toEqual([0]);
    expect(f.never).toBe(0);
  });

  test('a death with too little owed time left is not "never resumed": a full disk took the rest', () => {
    // Night of 40 s; killed at 20 s; the disk full from 21 s to the end: 1 s owed, under the margin.
    const full = goodNight('full', (n) => ({
      ...n,
      agents: [agent(0.5, 20, 'killed'), agent(41, 42.5, 'clean', true)],
      excused: [[s(21), s(40)]],
    }));
    expect(measureNight(full, s(200)).never).toBe(0);
    // The same death with the disk fine: 20 s owed, never resumed.
    const fine = goodNight('fine', (n) => ({ ...n, agents: full.agents, excused: [] }));
    expect(measureNight(fine, s(200)).never).toBe(1);
  });
});

describe('wasted restarts', () => {
  test.each([
    ['clean', true],
    ['limit', true],
    ['auth', true],
    ['never started', true],
    ['crash', false],
    ['killed', false],
    ['oom', false],
    // Its agent could not record itself (a full disk): the wrapper's exit 1 is a failure to back off from.
    ['unrecorded', false],
  ])('a crash restart after a session that ended %s: wasted %s', (how, wasted) => {
    expect(wastedAfter(how)).toBe(wasted);
  });
});
