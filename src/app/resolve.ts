import { listRunIds, readSpec } from '../adapters/store.js';
import { UsageError } from '../core/errors.js';
import { mayBeNamed, resolveRunName, type NamedRun } from '../core/run/naming.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import type { Io } from './io.js';

// The one resolver of the run a person names: every command that takes a run uses it.

/** Where to look: the runs the dashboard shows, the archived ones, or both. */
export type Where = 'active' | 'archived' | 'any';

export interface ResolvedRun {
  id: string;
  /** The directory the run lives in: the runs root, or its archive. */
  root: string;
  archived: boolean;
}

/**
 * A full id, a name given at launch, or a unique prefix of an id. A name shared by several runs
 * names the newest (a note on stderr says so); anything else that does not name one run is a
 * usage error listing what it matched.
 */
export async function resolveRun(
  handle: string,
  runsRoot: string,
  io: Io,
  where: Where = 'active',
  strict = false,
): Promise<ResolvedRun> {
  const archive = rootPaths(runsRoot).archive;
  const active = where === 'archived' ? [] : listRunIds(runsRoot);
  const archived = where === 'active' ? [] : listRunIds(archive).filter((id) => !active.includes(id));
  const rootOf = (id: string) => (active.includes(id) ? runsRoot : archive);
  const ids = [...active, ...archived];
  // Only runs whose id could come from that name are read (the id's slug is made from it).
  const named: NamedRun[] = [];
  const unreadable: { id: string; file: string }[] = [];
  for (const id of mayBeNamed(handle, ids)) {
    const paths = runPaths(rootOf(id), id);
    try {
      const spec = await readSpec(paths);
      if (spec.name) named.push({ id, name: spec.name, startedAt: spec.startedAt });
    } catch (err) {
      // a run whose run.yaml cannot be used is still found by its id, and by its slug below
      unreadable.push({ id, file: `${paths.runYaml} (${(err as Error).message})` });
    }
  }
  const r = resolveRunName(handle, ids, { named, cmd: io.cmd, strict });
  // The name's slug is the id's, but its run.yaml cannot say its name: that run, said so, naming
  // the broken file; a command that ends or deletes a run does not guess.
  if (('error' in r || r.byWords) && unreadable.length > 0 && named.length === 0) {
    const [only] = unreadable;
    if (only && unreadable.length === 1 && !strict) {
      const note = `note: taking ${only.id} as the run named "${handle}"`;
      io.stderr(`${note}, though its run.yaml cannot be read: ${only.file}`);
      return { id: only.id, root: rootOf(only.id), archived: !active.includes(only.id) };
    }
    const files = unreadable.map((u) => `${u.id}: ${u.file}`).join('; ');
    throw new UsageError(
      `"${handle}" may name a run whose run.yaml cannot be read (${files}); ` +
        'restore that file, or name the run by its id',
    );
  }
  if ('error' in r) throw new UsageError(r.error);
  if (r.note) io.stderr(`note: ${r.note}`);
  return { id: r.id, root: rootOf(r.id), archived: !active.includes(r.id) };
}
