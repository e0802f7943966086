import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import { resolveSettings, type ConfigProblem, type Settings } from '../core/config/settings.js';
import { readText } from './files.js';
import { loadYaml } from './yaml.js';

// Reads config.yaml and the environment; validation itself is pure (core/config).

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  const base = env.XDG_CONFIG_HOME || join(home, '.config');
  return join(base, 'overnight', 'config.yaml');
}

export async function loadSettings(
  flags: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ settings: Settings; problems: ConfigProblem[]; chosen: string[] }> {
  const home = env.HOME || homedir();
  const path = configPath(env);
  const problems: ConfigProblem[] = [];
  let data: unknown = undefined;
  try {
    const text = readText(path);
    // yaml is loaded only when there is a file to read: startup is most of a reconcile pass.
    if (text !== null) data = (await loadYaml()).parse(text);
  } catch (err) {
    problems.push({
      key: '',
      source: path,
      value: undefined,
      message: `cannot be read as YAML (${(err as Error).message.split('\n')[0]}); fix or remove it`,
    });
  }
  const resolved = resolveSettings({
    home,
    env,
    flags,
    file: data === undefined ? undefined : { path, data },
  });
  // Agents, wrappers and cron all run elsewhere: the runs root is always absolute.
  const settings = { ...resolved.settings, runsDir: resolve(resolved.settings.runsDir) };
  return { settings, problems: [...problems, ...resolved.problems], chosen: resolved.chosen };
}
