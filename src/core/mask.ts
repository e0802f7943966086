// Secrets in URLs, masked wherever a URL (or an error that may quote one) is shown or recorded:
// the password of `user:password@`, a lone `token@`, every query value and the fragment. The host
// and path stay, so the person can tell which target it was. Pure and linear-time: one scan for
// `://`, each URL walked once, no backtracking regular expression.

const MASK = '***';
/** Longest scheme looked for before `://` (walked back at most this far). */
const MAX_SCHEME = 32;

const isSchemeChar = (c: string) => /[A-Za-z0-9+.-]/.test(c);
/** Where a URL written in prose, JSON, YAML or a log line ends. */
const ENDS_URL = new Set([' ', '\t', '\n', '\r', '"', "'", '`', '<', '>', '\\', '{', '}', '|', '^']);

const TRAILING = new Set([')', ']', '.', ',', ';', ':', '!']);

/** One URL (scheme, `://`, the rest) with its secrets masked. */
export function maskUrl(url: string): string {
  const sep = url.indexOf('://');
  if (sep < 0) return url;
  const head = url.slice(0, sep + 3);
  const rest = url.slice(sep + 3);
  let end = rest.length;
  for (const c of ['/', '?', '#']) {
    const i = rest.indexOf(c);
    if (i >= 0 && i < end) end = i;
  }
  const authority = rest.slice(0, end);
  const at = authority.lastIndexOf('@');
  let shownAuthority = authority;
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(':');
    const user = colon >= 0 ? `${userinfo.slice(0, colon)}:${MASK}` : MASK;
    shownAuthority = `${user}${authority.slice(at)}`;
  }
  return head + shownAuthority + maskTail(rest.slice(end));
}

/** The path as it is; each query value and the fragment masked. */
function maskTail(tail: string): string {
  const q = tail.indexOf('?');
  const h = tail.indexOf('#');
  const pathEnd = q >= 0 ? q : h >= 0 ? h : tail.length;
  let out = tail.slice(0, pathEnd);
  if (q >= 0) {
    const queryEnd = h > q ? h : tail.length;
    const query = tail.slice(q + 1, queryEnd);
    out +=
      '?' +
      query
        .split('&')
        .map((part) => {
          if (part === '') return part;
          const eq = part.indexOf('=');
          // `?token` alone may be the secret itself.
          return eq < 0 ? MASK : `${part.slice(0, eq)}=${eq === part.length - 1 ? '' : MASK}`;
        })
        .join('&');
  }
  const frag = h >= 0 && (q < 0 || h > q) ? h : -1;
  if (frag >= 0) out += frag === tail.length - 1 ? '#' : `#${MASK}`;
  return out;
}

/** Every URL in `text` masked (maskUrl); the rest of the text unchanged. */
export function maskSecrets(text: string): string {
  if (!text.includes('://')) return text;
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const sep = text.indexOf('://', from);
    if (sep < 0) break;
    let start = sep;
    while (start > copied && sep - start < MAX_SCHEME && isSchemeChar(text[start - 1] as string)) start--;
    let end = sep + 3;
    while (end < text.length && !ENDS_URL.has(text[end] as string)) end++;
    // Punctuation closing the sentence or bracket around a URL is not part of it.
    while (end > sep + 3 && TRAILING.has(text[end - 1] as string)) end--;
    if (start < sep) {
      out += text.slice(copied, start) + maskUrl(text.slice(start, end));
      copied = end;
    }
    from = Math.max(end, sep + 3);
  }
  return out + text.slice(copied);
}
