// Runs a program without a shell, with input on stdin, in exactly the environment given, and a
// deadline for its whole process group (a child it left behind must not keep us waiting).

export type CommandResult =
  | { exitCode: number; signal: string | null; stdout: string; stderr: string }
  | { error: string; missing?: boolean };

export async function runWithInput(
  file: string,
  args: string[],
  env: Record<string, string | undefined>,
  input: string,
  timeoutMs: number,
): Promise<CommandResult> {
  const { execa } = await import('execa');
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const sub = execa(file, args, {
      env,
      extendEnv: false,
      reject: false,
      input,
      detached: true,
      maxBuffer: 64 * 1024,
    });
    timer = setTimeout(() => {
      timedOut = true;
      try {
        if (sub.pid !== undefined) process.kill(-sub.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    const r = await sub;
    if (timedOut) return { error: `no answer within ${Math.round(timeoutMs / 100) / 10}s` };
    const code = (r as { code?: string }).code;
    if (code === 'ENOENT') return { error: 'not found', missing: true };
    if (code === 'EACCES') return { error: 'not executable (chmod +x it)', missing: true };
    if (r.exitCode === undefined && !r.signal) return { error: r.shortMessage ?? 'could not be started' };
    return {
      exitCode: r.exitCode ?? 128,
      signal: r.signal ?? null,
      stdout: String(r.stdout ?? ''),
      stderr: String(r.stderr ?? ''),
    };
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0] ?? 'could not be started' };
  } finally {
    clearTimeout(timer);
  }
}
