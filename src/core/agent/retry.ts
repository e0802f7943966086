// A storm of API retries as the stream tells it: the CLI's api_retry events since the model last
// answered. Pure.

export interface RetryStreak {
  count: number;
  /** The latest retry's HTTP status and the CLI's word for it (`rate_limit`, `overloaded`, …). */
  status: number | null;
  error: string | null;
  /** What the CLI waited between the tries, in all: how long the storm has lasted, at least. */
  delayMs: number;
  /** The first retry's own time (ISO 8601), when its line carries one; text, as the index keeps it. */
  at: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The streak with one more api_retry event. */
export function retried(streak: RetryStreak | null, e: Record<string, unknown>): RetryStreak {
  const at = new Date(str(e.timestamp) ?? '');
  return {
    count: (streak?.count ?? 0) + 1,
    status: num(e.error_status),
    error: str(e.error),
    delayMs: (streak?.delayMs ?? 0) + (num(e.retry_delay_ms) ?? 0),
    at: streak ? streak.at : Number.isNaN(at.getTime()) ? null : at.toISOString(),
  };
}
