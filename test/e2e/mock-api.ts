// A loopback mock of the Anthropic Messages API, enough to drive the real Claude Code CLI:
// any `HEAD` (warm-up), `POST /v1/messages[?beta=true]` (SSE when body.stream, JSON otherwise),
// and a logged 404 for anything else (`unknown`). Every request is recorded. The scripted
// behaviour applies to the main conversation only; side requests get a short text.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}
export interface Message {
  role: string;
  content:
    string | { type: string; text?: string; content?: unknown; tool_use_id?: string; [k: string]: unknown }[];
}
export interface MessagesBody {
  model?: string;
  max_tokens?: number;
  stream?: boolean;
  system?: string | { type: string; text: string }[];
  tools?: { name: string }[];
  messages?: Message[];
}
export interface RecordedRequest {
  method: string;
  path: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: MessagesBody | null;
  main: boolean;
  at: number;
}

/** Response headers, on any reply: the unified rate-limit headers a subscription's replies carry. */
export type Headers = Record<string, string>;

export type Reply =
  | { kind: 'text'; text: string; usage?: Usage; headers?: Headers }
  | { kind: 'tool_use'; name: string; input: Record<string, unknown>; usage?: Usage; headers?: Headers }
  | { kind: 'error'; status: number; type: string; message: string; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface ScriptContext {
  /** 0 for the first main-conversation request this mock has seen, 1 for the next, ... */
  index: number;
  requests: readonly RecordedRequest[];
}
export type Script = (body: MessagesBody, ctx: ScriptContext) => Reply;

const USAGE: Usage = { input_tokens: 100, output_tokens: 20 };

export const reply = {
  text: (text: string, usage: Usage = USAGE): Reply => ({ kind: 'text', text, usage }),
  toolUse: (name: string, input: Record<string, unknown>, usage: Usage = USAGE): Reply => ({
    kind: 'tool_use',
    name,
    input,
    usage,
  }),
  write: (filePath: string, content: string): Reply =>
    reply.toolUse('Write', { file_path: filePath, content }),
  error: (status: number, type: string, message: string, headers?: Record<string, string>): Reply => ({
    kind: 'error',
    status,
    type,
    message,
    headers,
  }),
  authError: (): Reply => reply.error(401, 'authentication_error', 'invalid x-api-key'),
  rateLimited: (retryAfterSeconds?: number): Reply =>
    reply.error(
      429,
      'rate_limit_error',
      'Number of request tokens has exceeded your per-minute rate limit',
      retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) },
    ),
  overloaded: (): Reply => reply.error(529, 'overloaded_error', 'Overloaded'),
  /** What a Pro/Max subscription gets at its 5-hour (or weekly) limit. */
  subscriptionLimit: (resetEpochSeconds: number, claim = 'five_hour'): Reply =>
    reply.error(
      429,
      'rate_limit_error',
      "This request would exceed your account's rate limit. Please try again later.",
      {
        'anthropic-ratelimit-unified-status': 'rejected',
        'anthropic-ratelimit-unified-representative-claim': claim,
        'anthropic-ratelimit-unified-reset': String(resetEpochSeconds),
      },
    ),
  hang: (): Reply => ({ kind: 'hang' }),
  /** The same reply with these response headers (a success too, as the API sends them). */
  withHeaders: (r: Reply, headers: Headers): Reply =>
    r.kind === 'hang' ? r : { ...r, headers: { ...r.headers, ...headers } },
};

/**
 * `anthropic-ratelimit-unified-<name>` headers from `{ status: 'rejected', reset: … }`. With OAuth,
 * the CLI turns them into rate_limit_events: `status: rejected` with `overage-status: allowed` is
 * paid extra usage in use; `5h-utilization` and `7d-utilization` are the windows' readings.
 */
export function unified(fields: Record<string, string | number>): Headers {
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [`anthropic-ratelimit-unified-${k}`, String(v)]),
  );
}

/** The text of the last user message (text blocks and tool_result contents joined). */
export function lastUserText(body: MessagesBody | null): string {
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  return last ? messageText(last) : '';
}

export function messageText(m: Message): string {
  if (typeof m.content === 'string') return m.content;
  return m.content
    .map((b) =>
      typeof b.text === 'string'
        ? b.text
        : typeof b.content === 'string'
          ? b.content
          : JSON.stringify(b.content ?? ''),
    )
    .join('\n');
}

/** The tool_result blocks of the last user message (the CLI may put a `system` message after it). */
export function toolResults(
  body: MessagesBody | null,
): { tool_use_id?: string; content?: unknown; is_error?: unknown }[] {
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!last || typeof last.content === 'string') return [];
  return last.content.filter((b) => b.type === 'tool_result');
}

/**
 * Seen from 2.1.329 in `-p` with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: every request of the
 * conversation (first turn, tool_result turns, --resume) carries the agent's tool definitions
 * (12 of them), max_tokens 128000 and an `x-claude-code-session-id` header; no side request was
 * sent at all, nor with nonessential traffic on (only `HEAD /api/hello` then). Side requests of
 * other versions or modes (titles, quota probes with max_tokens 1, summaries) are tool-less, so
 * "has tools" tells the main conversation apart without depending on counts or prompts.
 */
export function isMainRequest(body: MessagesBody | null): boolean {
  return !!body && Array.isArray(body.tools) && body.tools.length > 0 && Array.isArray(body.messages);
}

/** Replies in order, one per main request; the last one repeats. */
export function sequence(...replies: Reply[]): Script {
  return (_body, { index }) => replies[Math.min(index, replies.length - 1)] ?? reply.text('OK');
}

/** Answers a tool_result with "Done.", anything else with "OK". */
export const defaultScript: Script = (body) => reply.text(toolResults(body).length > 0 ? 'Done.' : 'OK');

export interface MockApi {
  url: string;
  requests: RecordedRequest[];
  /** Main-conversation requests to /v1/messages only. */
  mainRequests(): RecordedRequest[];
  /** Paths of every request the mock did not know (for the log). */
  unknown: string[];
  setScript(script: Script): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(9).toString('hex')}`;

function sse(res: ServerResponse, headers: Headers, events: Record<string, unknown>[]): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': id('req'),
    ...headers,
  });
  for (const e of events) res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

function answer(
  res: ServerResponse,
  body: MessagesBody,
  r: Exclude<Reply, { kind: 'hang' | 'error' }>,
): void {
  const model = body.model ?? 'claude-mock';
  const usage = r.usage ?? USAGE;
  const block =
    r.kind === 'text'
      ? { type: 'text', text: r.text }
      : { type: 'tool_use', id: id('toolu'), name: r.name, input: r.input };
  const stopReason = r.kind === 'text' ? 'end_turn' : 'tool_use';
  const message = {
    id: id('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: [block],
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  const headers = r.headers ?? {};
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
    res.end(JSON.stringify(message));
    return;
  }
  const start = r.kind === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
  const delta =
    r.kind === 'text'
      ? { type: 'text_delta', text: r.text }
      : { type: 'input_json_delta', partial_json: JSON.stringify(r.input) };
  sse(res, headers, [
    {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    },
    { type: 'content_block_start', index: 0, content_block: start },
    { type: 'ping' },
    { type: 'content_block_delta', index: 0, delta },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: 'message_stop' },
  ]);
}

export async function startMockApi(script: Script = defaultScript): Promise<MockApi> {
  const requests: RecordedRequest[] = [];
  const unknown: string[] = [];
  let current = script;
  let mainCount = 0;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    let body: MessagesBody | null = null;
    try {
      body = raw ? (JSON.parse(raw) as MessagesBody) : null;
    } catch {
      body = null;
    }
    const isMessages = req.method === 'POST' && path === '/v1/messages';
    const main = isMessages && isMainRequest(body);
    requests.push({ method: req.method ?? '', path, url, headers: req.headers, body, main, at: Date.now() });

    if (req.method === 'HEAD') {
      // Warm-up: `HEAD /` in older versions, `HEAD /api/hello` in 2.1.329 (only with nonessential traffic on).
      res.writeHead(200).end();
      return;
    }
    if (!isMessages || !body) {
      unknown.push(`${req.method} ${url}`);
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `mock: no ${path}` } }),
        );
      return;
    }
    const r = main ? current(body, { index: mainCount++, requests }) : reply.text('Mock side reply');
    if (r.kind === 'hang') return; // never answered; close() drops the connection
    if (r.kind === 'error') {
      res.writeHead(r.status, { 'content-type': 'application/json', 'request-id': id('req'), ...r.headers });
      res.end(JSON.stringify({ type: 'error', error: { type: r.type, message: r.message } }));
      return;
    }
    answer(res, body, r);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unknown,
    mainRequests: () => requests.filter((r) => r.main),
    setScript(s: Script) {
      current = s;
      mainCount = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
