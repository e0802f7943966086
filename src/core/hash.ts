// 48 bits of a fast string hash (cyrb53's mixing) for fingerprints that only need to tell things apart: not
// node:crypto, whose loading costs every command that imports it ~10 ms at startup.

// Two loops, not one over a closure per character: a pass hashes a few KB per run once, cold,
// where a call per byte costs more than all the rest of reading a run's index.
const M1 = 2654435761;
const M2 = 1597334677;

function finish(a: number, b: number): string {
  const h1 = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  const h2 = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return ((h2 >>> 0) & 0xffff).toString(16).padStart(4, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

export function hashText(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, M1);
    h2 = Math.imul(h2 ^ c, M2);
  }
  return finish(h1, h2);
}

export function hashBytes(bytes: Uint8Array): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    h1 = Math.imul(h1 ^ c, M1);
    h2 = Math.imul(h2 ^ c, M2);
  }
  return finish(h1, h2);
}
