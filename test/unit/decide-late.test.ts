import { describe, expect, test } from 'vitest';

import { decide } from '../../src/core/supervise/decide.js';
import { endTimerAt } from '../../src/core/supervise/end-timer.js';
import type { Action, Observation } from '../../src/core/supervise/types.js';
import { at, done, ended, exited, observation, running, session, spec } from './builders.js';

// A late first pass after the end time (a laptop asleep, a reboot, no schedule): the synthesis gets
// its whole budget from when it starts. The night ends at 07:15 with a 30m budget (until 07:45);
// the first pass comes at 07:47, two minutes after that.

type Want = Partial<Action> & { kind: Action['kind'] };

describe('a synthesis that starts late has its whole budget', () => {
  const SYNTHESIS = { ...session('synthesis', 2), startedAt: at('07:47:10'), deadline: at('08:17:10') };

  test.each<{ name: string; obs: Observation; now: Date; want: Want }>([
    {
      name: 'the exploring agent still running at 07:47: stopped for the synthesis',
      obs: observation({ session: running(session()) }),
      now: at('07:47'),
      want: {
        kind: 'interrupt',
        cause: 'end-time',
        reason: 'end time reached: stopping exploration for the synthesis',
      },
    },
    {
      name: 'it ended on the interrupt: the synthesis until 08:17:10, and the reason says how late',
      obs: observation({ session: ended(session(), { exit: exited(130, at('07:47:05')) }) }),
      now: at('07:47:10'),
      want: {
        kind: 'start',
        mode: 'synthesis',
        deadline: at('08:17:10'),
        reason:
          'end time reached (killed by SIGINT (exit 130)); the synthesis starts 32m10s late, with its whole budget (30m)',
      },
    },
    {
      name: 'crashed in the night, first pass at 07:47: the same',
      obs: observation({ session: ended(session(), { exit: exited(1, at('03:00')) }) }),
      now: at('07:47'),
      want: {
        kind: 'start',
        mode: 'synthesis',
        deadline: at('08:17'),
        reason: 'end time reached (exit 1); the synthesis starts 32m late, with its whole budget (30m)',
      },
    },
    {
      name: 'on time (07:15:04): its budget from the start, nothing said',
      obs: observation({ session: ended(session(), { exit: exited(130, at('07:15:02')) }) }),
      now: at('07:15:04'),
      want: {
        kind: 'start',
        mode: 'synthesis',
        deadline: at('07:45:04'),
        reason: 'end time reached (killed by SIGINT (exit 130))',
      },
    },
    {
      name: 'the late synthesis writing at 08:00: left alone',
      obs: observation({ session: running(SYNTHESIS), outputAt: at('07:59') }),
      now: at('08:00'),
      want: { kind: 'none', reason: 'writing the report' },
    },
    {
      name: 'its tmux session refused: started again with the same deadline',
      obs: observation({ session: ended(SYNTHESIS, { started: false }) }),
      now: at('07:47:20'),
      want: { kind: 'start', mode: 'synthesis', again: true },
    },
    {
      name: 'still running at 08:17:10: its budget is out',
      obs: observation({ session: running(SYNTHESIS), outputAt: at('08:17') }),
      now: at('08:17:10'),
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        reason: 'report incomplete: the synthesis was still running when its budget ran out',
      },
    },
  ])('$name', ({ obs, now, want }) => {
    expect(decide(spec(), obs, now)).toMatchObject(want);
  });
});

describe('the end timer: a pass comes at the end time and at the deadline without a schedule', () => {
  const SYNTHESIS = { ...session('synthesis', 2), startedAt: at('07:47:10'), deadline: at('08:17:10') };
  const start = (over: Partial<Extract<Action, { kind: 'start' }>> = {}): Action => ({
    kind: 'start',
    cause: 'end-time',
    mode: 'synthesis',
    reason: 'end time reached (exit 130)',
    exit: 130,
    ...over,
  });

  test.each<{ name: string; obs: Observation; action: Action; now: Date; want: Date | null }>([
    {
      name: 'a live agent in the night: the end time',
      obs: observation({ session: running(session()) }),
      action: { kind: 'none', cause: 'working', reason: 'agent running' },
      now: at('03:00'),
      want: at('07:15'),
    },
    {
      name: 'a session started in the night: the end time',
      obs: observation(),
      action: { kind: 'start', cause: 'crash', mode: 'resume', reason: 'agent ended (exit 1)', exit: 1 },
      now: at('03:00'),
      want: at('07:15'),
    },
    {
      name: 'a wait arms its own timer',
      obs: observation(),
      action: { kind: 'wait', cause: 'backoff', until: at('03:05'), reason: 'backing off' },
      now: at('03:00'),
      want: null,
    },
    {
      name: 'paused: none',
      obs: observation({ paused: true, session: running(session()) }),
      action: { kind: 'none', cause: 'working', reason: 'paused' },
      now: at('03:00'),
      want: null,
    },
    {
      name: 'finished: none',
      obs: observation({ sentinel: done('finished') }),
      action: { kind: 'none', cause: 'working', reason: 'finished' },
      now: at('03:00'),
      want: null,
    },
    {
      name: 'the synthesis started on time: its budget end',
      obs: observation(),
      action: start(),
      now: at('07:15:04'),
      want: at('07:45'),
    },
    {
      name: 'the synthesis started late: its own deadline',
      obs: observation(),
      action: start({ deadline: at('08:17:10') }),
      now: at('07:47:10'),
      want: at('08:17:10'),
    },
    {
      name: 'the synthesis writing: its deadline',
      obs: observation({ session: running(SYNTHESIS) }),
      action: { kind: 'none', cause: 'working', reason: 'writing the report' },
      now: at('08:00'),
      want: at('08:17:10'),
    },
    {
      name: 'an exploring agent after the end time is interrupted first: none yet',
      obs: observation({ session: running(session()) }),
      action: { kind: 'interrupt', cause: 'end-time', reason: 'end time reached' },
      now: at('07:15:01'),
      want: null,
    },
  ])('$name', ({ obs, action, now, want }) => {
    expect(endTimerAt(spec(), obs, action, now)).toEqual(want);
  });
});
