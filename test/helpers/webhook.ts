// A loopback HTTP server that records every request, for the notification tests. A path can be
// told to hold its answers (until `release`) or to answer with another status.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Webhook {
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  received(path?: string): Received[];
  /** Requests to `path` get no answer until `release(path)`. */
  hold(path: string): void;
  release(path: string): void;
  /** Requests to `path` are answered with this status (and body), after `delayMs`. */
  answer(path: string, status: number, body?: string, delayMs?: number): void;
  close(): Promise<void>;
}

const OK = { status: 200, body: '{"ok":true}' };

export async function startWebhook(): Promise<Webhook> {
  const received: Received[] = [];
  const held = new Map<string, ServerResponse[]>();
  const answers = new Map<string, { status: number; body: string; delayMs?: number }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const waiting = held.get(path);
      if (waiting) waiting.push(res);
      else reply(res, answers.get(path));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const reply = (res: ServerResponse, a: { status: number; body: string; delayMs?: number } = OK) => {
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(a.status, { 'Content-Type': 'application/json' });
      res.end(a.body);
    };
    if (a.delayMs) setTimeout(send, a.delayMs);
    else send();
  };
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) => received.filter((r) => path === undefined || r.path === path),
    hold: (path) => void held.set(path, held.get(path) ?? []),
    release(path) {
      const waiting = held.get(path) ?? [];
      held.delete(path);
      for (const res of waiting) if (!res.destroyed) reply(res, answers.get(path));
    },
    answer: (path, status, body = '', delayMs = 0) => void answers.set(path, { status, body, delayMs }),
    async close() {
      for (const path of [...held.keys()]) held.delete(path);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A loopback port nothing listens on: connections to it are refused. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
