// The run's launch environment (`.agent-env/<id>.env`, written by launch for the wrapper), read
// back for the few values a notification target names. Two spellings are understood: today's
// `NAME=value` lines, exported literally by the wrapper, and `export NAME='value'` lines in sh
// single quotes (which keep newlines). A file with any `export` line is read as the latter.

export function parseLaunchEnv(text: string): Record<string, string> {
  return /^export\s/m.test(text) ? parseQuoted(text) : parsePlain(text);
}

function parsePlain(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1] as string] = m[2] as string;
  }
  return out;
}

/** `export NAME='it'\''s'`: single-quoted parts, backslash-escaped characters, plain words. */
function parseQuoted(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const head = /(?:^|\n)[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=/g;
  let m: RegExpExecArray | null;
  while ((m = head.exec(text))) {
    let i = head.lastIndex;
    let value = '';
    while (i < text.length && text[i] !== '\n') {
      const c = text[i] as string;
      if (c === "'") {
        const end = text.indexOf("'", i + 1);
        if (end < 0) break;
        value += text.slice(i + 1, end);
        i = end + 1;
      } else if (c === '\\' && i + 1 < text.length) {
        value += text[i + 1];
        i += 2;
      } else if (c === ' ' || c === '\t' || c === ';') {
        break;
      } else {
        value += c;
        i++;
      }
    }
    out[m[1] as string] = value;
    head.lastIndex = i;
  }
  return out;
}
