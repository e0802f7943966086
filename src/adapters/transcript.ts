import { mkdirSync, readdirSync, realpathSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { parseAgentEnv } from '../core/run/agent-env.js';
import type { RunPaths } from '../core/run/paths.js';
import { readText } from './files.js';

// Where Claude Code keeps a session's transcript, and its archive when overnight starts afresh.

/** Java's String.hashCode, as Claude Code uses for project directories of long paths. */
function javaHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(31, h) + text.charCodeAt(i)) | 0;
  return h;
}

/** `<config>/projects/<enc>/`: enc is the real cwd with every character outside [A-Za-z0-9] as `-`. */
export function projectDir(configDir: string, cwd: string): string {
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // not there (yet): the path as given
  }
  let enc = real.replace(/[^A-Za-z0-9]/g, '-');
  if (enc.length > 200) enc = `${enc.slice(0, 200)}-${Math.abs(javaHash(real)).toString(36)}`;
  return join(configDir, 'projects', enc);
}

/** The agent's CLAUDE_CONFIG_DIR (or ~/.claude), from the environment captured at launch. */
export function agentConfigDir(paths: RunPaths, env: NodeJS.ProcessEnv): string {
  const captured = parseAgentEnv(readText(paths.agentEnv) ?? '');
  const get = (name: string) => captured.get(name) ?? env[name];
  return get('CLAUDE_CONFIG_DIR') || join(get('HOME') || homedir(), '.claude');
}

/** CLAUDE_CONFIG_DIR (or ~/.claude) of an environment about to be captured. */
export function configDirOf(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

/**
 * Session `id`'s transcript and its size: under the project directory of `cwd`, else under any
 * project directory of `configDir` (where the CLI finds a conversation to resume); null when none.
 */
export function findTranscript(
  configDir: string,
  cwd: string,
  id: string,
): { path: string; bytes: number } | null {
  const size = (path: string) => {
    try {
      const st = statSync(path);
      return st.isFile() ? { path, bytes: st.size } : null;
    } catch {
      return null;
    }
  };
  const expected = size(join(projectDir(configDir, cwd), `${id}.jsonl`));
  if (expected) return expected;
  let dirs: string[];
  try {
    dirs = readdirSync(join(configDir, 'projects'));
  } catch {
    return null;
  }
  for (const d of dirs) {
    const found = size(join(configDir, 'projects', d, `${id}.jsonl`));
    if (found) return found;
  }
  return null;
}

/** `cwd`: the agent's working directory (a repository run's worktree), which the CLI files it under. */
export function transcriptFile(
  paths: RunPaths,
  cwd: string,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): string {
  return join(projectDir(agentConfigDir(paths, env), cwd), `${sessionId}.jsonl`);
}

/** Size in bytes of a session's transcript, or null when there is none. */
export function transcriptSize(
  paths: RunPaths,
  cwd: string,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): number | null {
  try {
    return statSync(transcriptFile(paths, cwd, sessionId, env)).size;
  } catch {
    return null;
  }
}

/** Moves the transcript into the run's archive (never deleted); returns where it went, if anywhere. */
export function archiveTranscript(
  paths: RunPaths,
  cwd: string,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): string | null {
  const from = transcriptFile(paths, cwd, sessionId, env);
  const to = join(paths.state, 'transcripts', `${sessionId}.jsonl`);
  try {
    mkdirSync(join(paths.state, 'transcripts'), { recursive: true, mode: 0o700 });
    renameSync(from, to);
    return to;
  } catch {
    return null; // missing, or on another filesystem: left where it is
  }
}
