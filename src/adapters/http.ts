// One HTTP POST with a deadline, answered in words: Node's fetch, nothing more.

export type HttpAnswer =
  | { status: number; statusText: string; body: string }
  /** It never got an answer: said in words, with the host, never the URL's path. */
  | { error: string };

const BODY_CHARS = 200;

/** Node's network error codes in words (the person reads them in `status`). */
const WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'the host name could not be looked up (no network or DNS?)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection was closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
};

export async function postHttp(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<HttpAnswer> {
  const host = hostOf(url);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'User-Agent': 'overnight', ...headers },
      body,
      // A redirected POST may arrive as a GET without its body: say so rather than follow it.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    let text = '';
    try {
      text = (await res.text()).slice(0, BODY_CHARS * 4);
    } catch {
      // the answer's status is what counts
    }
    return { status: res.status, statusText: res.statusText, body: text };
  } catch (err) {
    return { error: inWords(err, host, timeoutMs) };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the host';
  }
}

function inWords(err: unknown, host: string, timeoutMs: number): string {
  const e = err as {
    name?: string;
    message?: string;
    cause?: { code?: string; name?: string; message?: string };
  };
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError' || e.name === 'AbortError')
    return `no answer from ${host} within ${Math.round(timeoutMs / 100) / 10}s`;
  const code = e.cause?.code ?? '';
  const words = WORDS[code];
  if (words) return `${words} (${host})`;
  // Whatever else: its message, without the error code that opens some of them.
  const said = (e.cause?.message ?? e.message ?? '')
    .replace(/^[A-Z_]+:\s*/, '')
    .replace(/\b(?:E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b\s*/g, '')
    .trim();
  return `${said || 'the request failed'} (${host})`;
}
