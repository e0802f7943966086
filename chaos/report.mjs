// What the harness prints: the figures against their goals (stderr), the summary (stdout, one
// JSON object with --json), and the story of a run that ended without its report.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkGoals, summarize } from './summary.mjs';
import { SYNTHESIS_BUDGET_S } from './world.mjs';

const readText = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/**
 * Prints the figures and the goals; true when every goal is met.
 * @param {{ judged: Array<{ run: any, night: import('./night.mjs').Night }>,
 *   orphans: import('./summary.mjs').Orphan[], duplicates: number,
 *   monkey: import('./monkey.mjs').Monkey, started: number, log: (line: string) => void,
 *   json: boolean, canFillDisk: boolean, hasTmux?: boolean }} args
 */
export function report({ judged, orphans, duplicates, monkey, started, log, json, canFillDisk, hasTmux }) {
  const summary = summarize({
    nights: judged.filter((j) => !j.run.stopped).map((j) => j.night),
    stopped: judged.filter((j) => j.run.stopped).map((j) => j.night),
    orphans,
    duplicates,
    faults: monkey.counts,
    now: Date.now(),
  });
  const goals = checkGoals(summary, { synthesisBudget: SYNTHESIS_BUDGET_S, canFillDisk, hasTmux });
  const missed = goals.filter((g) => !g.ok).map((g) => g.name);
  const f = summary.faults;
  log(
    `${summary.runNights} run-nights (+${judged.length - summary.runNights} stopped on purpose) in ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s; faults: ${f.agents} agents, ${f.wrappers} wrappers, ` +
      `${f.tmux} tmux servers and ${f.passes} passes killed, ${f.stops} stops, ${f.pauses} pauses, ` +
      `${f.fullDisks} full disks, ${f.synthesisFailures} synthesis failures`,
  );
  const width = Math.max(...goals.map((g) => g.name.length));
  for (const g of goals)
    log(`  ${g.ok ? '✓' : '✗'} ${g.name.padEnd(width)}  ${g.value.padEnd(14)} goal ${g.goal}`);
  const r = summary.resume;
  log(
    `  resume after ${r.deaths} deaths: p50 ${r.p50} s, max ${r.max} s; worked median ` +
      `${summary.worked.median}; late p95 ${summary.late.p95} s; orphans ${JSON.stringify(summary.orphanKinds)}`,
  );
  if (json) process.stdout.write(JSON.stringify({ ...summary, missed }) + '\n');
  else process.stdout.write(`${JSON.stringify({ ...summary, missed }, null, 2)}\n`);
  return missed.length === 0;
}

/** The last records and passes about a run that ended without its report. */
export function explain(world, id, schedulerLog, log) {
  for (const file of ['restart.log', 'events.jsonl'])
    log(
      `  ${file}:\n${(readText(join(world.runs, '.overnight', id, file)) ?? '').trimEnd().split('\n').slice(-12).join('\n')}`,
    );
  const passes = [...schedulerLog, ...(readText(join(world.runs, 'reconcile.log')) ?? '').split('\n')]
    .flatMap((entry) => entry.split('\n'))
    .filter((l) => l.includes(id) || /^\d{4}-.*exit [1-9]/.test(l));
  log(`  passes about it:\n${passes.slice(-25).join('\n')}`);
}
