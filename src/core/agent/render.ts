// stream-json rendered for a person: one line per thing that happened. Pure. Everything the
// stream says is made safe for a terminal before the palette adds colour of its own.
import type { LocalTime } from '../local-time.js';
import { sessionHeader, type SessionNote } from '../status/log-notes.js';
import { oneLine, safeText } from '../text.js';

export interface Palette {
  dim: (s: string) => string;
  bold: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
}

const plain = (s: string) => s;
export const NO_COLOR: Palette = { dim: plain, bold: plain, red: plain, yellow: plain, cyan: plain };
const sgr = (code: number) => (s: string) => `\x1b[${code}m${s}\x1b[0m`;
export const ANSI: Palette = { dim: sgr(2), bold: sgr(1), red: sgr(31), yellow: sgr(33), cyan: sgr(36) };

/** The argument that says what a tool call is about. */
const MAIN_ARG = ['file_path', 'command', 'url', 'query', 'pattern', 'path', 'description', 'prompt'];

function mainArgument(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const rec = input as Record<string, unknown>;
  for (const key of MAIN_ARG) if (typeof rec[key] === 'string') return oneLine(rec[key] as string, 100);
  return '';
}

type Block = {
  type?: string;
  text?: string;
  name?: string;
  input?: unknown;
  is_error?: boolean;
  content?: unknown;
};

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((c: Block) => (typeof c?.text === 'string' ? c.text : '')).join(' ');
  return '';
}

/** The top-level type of a stream-json line, or null for anything else (whatever its key order). */
export function eventType(raw: string): string | null {
  try {
    const e = JSON.parse(raw) as { type?: unknown; subtype?: unknown };
    return typeof e.type === 'string'
      ? typeof e.subtype === 'string'
        ? `${e.type}/${e.subtype}`
        : e.type
      : null;
  } catch {
    return null;
  }
}

/** Lines for one line of output.log; none for events a person does not need (deltas, status). */
/** What the night's story adds to the lines: clock text in local time, why each session started. */
export interface RenderContext {
  clock?: LocalTime;
  sessions?: ReadonlyMap<number, SessionNote>;
}

export function renderLine(raw: string, palette: Palette, ctx: RenderContext = {}): string[] {
  const safe = (paint: (s: string) => string) => (s: string) => paint(safeText(s));
  const p: Palette = {
    dim: safe(palette.dim),
    bold: safe(palette.bold),
    red: safe(palette.red),
    yellow: safe(palette.yellow),
    cyan: safe(palette.cyan),
  };
  const plainText = safe(plain);
  if (raw.trim() === '') return [];
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return [p.dim(raw)];
  }
  const message = (e.message ?? {}) as { content?: Block[] };
  switch (e.type) {
    case 'overnight_session': {
      const note = typeof e.session === 'number' ? ctx.sessions?.get(e.session) : undefined;
      if (!ctx.clock) return ['', p.bold(`── session ${e.session} (${e.mode}) · ${e.at} ──`)];
      return ['', p.bold(sessionHeader(e.session, e.mode, e.at, note, ctx.clock))];
    }
    case 'system':
      if (e.subtype === 'init') return [p.dim(`session ${e.session_id} · model ${e.model}`)];
      if (e.subtype === 'api_retry')
        return [
          p.yellow(
            `API retry ${e.attempt}/${e.max_retries}: ${e.error_status ?? ''} ${e.error ?? ''}`.trim(),
          ),
        ];
      return [];
    case 'assistant':
      return (message.content ?? []).flatMap((b) => {
        if (b.type === 'text' && b.text) return [plainText(b.text)];
        if (b.type === 'tool_use')
          return [p.cyan(`→ ${b.name ?? 'tool'} ${mainArgument(b.input)}`.trimEnd())];
        return [];
      });
    case 'user':
      return (message.content ?? [])
        .filter((b) => b.type === 'tool_result' && b.is_error)
        .map((b) => p.red(`  ✗ ${oneLine(contentText(b.content))}`));
    case 'rate_limit_event': {
      const info = (e.rate_limit_info ?? {}) as Record<string, unknown>;
      if (info.status !== 'rejected') return [];
      const resets = typeof info.resetsAt === 'number' ? new Date(info.resetsAt * 1000) : null;
      const at = !resets ? 'unknown' : ctx.clock ? ctx.clock.human(resets) : resets.toISOString();
      return [p.yellow(`usage limit (${info.rateLimitType ?? 'unknown'}), resets ${at}`)];
    }
    case 'result': {
      const cost = typeof e.total_cost_usd === 'number' ? ` · $${e.total_cost_usd.toFixed(4)}` : '';
      const turns = typeof e.num_turns === 'number' ? ` · ${e.num_turns} turns` : '';
      const text = oneLine(
        typeof e.result === 'string' ? e.result : Array.isArray(e.errors) ? e.errors.join('; ') : '',
      );
      // The CLI says `success` for API and auth errors too: is_error is what tells.
      if (e.is_error) {
        const status = typeof e.api_error_status === 'number' ? ` (API ${e.api_error_status})` : '';
        const kind = e.subtype === 'success' ? '' : ` ${String(e.subtype)}`;
        return [p.red(`■ error${kind}${status}${turns}${cost}: ${text}`)];
      }
      const head = `■ result ${e.subtype}${turns}${cost}`;
      return [p.bold(head) + (text ? plainText(`: ${text}`) : '')];
    }
    default:
      return [];
  }
}
