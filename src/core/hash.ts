// 48 bits of a fast string hash (cyrb53's mixing) for fingerprints that only need to tell things apart: not
// node:crypto, whose loading costs every command that imports it ~10 ms at startup.

function mix(next: (i: number) => number, length: number): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < length; i++) {
    const c = next(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return ((h2 >>> 0) & 0xffff).toString(16).padStart(4, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

export const hashText = (text: string): string => mix((i) => text.charCodeAt(i), text.length);

export const hashBytes = (bytes: Uint8Array): string => mix((i) => bytes[i] as number, bytes.length);
