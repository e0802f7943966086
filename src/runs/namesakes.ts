import { liveRunIds } from '../adapters/run-index.js';
import { listRunIds, readSpec } from '../adapters/store.js';
import { mayBeNamed } from '../core/run/naming.js';
import { runPaths } from '../core/run/paths.js';

// A live run that already has the name a new run is given: `stop`, `finish` and `rm` will then ask
// for the id, so launch says so now.

export async function liveNamesakes(root: string, name: string): Promise<string[]> {
  const live = liveRunIds(root) ?? listRunIds(root);
  const out: string[] = [];
  for (const id of mayBeNamed(name, live)) {
    try {
      const spec = await readSpec(runPaths(root, id));
      if (spec.name === name) out.push(id);
    } catch {
      // a run whose spec cannot be read names nothing
    }
  }
  return out;
}
