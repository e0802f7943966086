import { describe, expect, it } from 'vitest';

import { maskSecrets, maskUrl } from '../../src/core/mask.js';

describe('maskUrl', () => {
  it('masks the password and every query value, keeps the user, host and path', () => {
    expect(maskUrl('https://user:token@host/topic?auth=abc')).toBe('https://user:***@host/topic?auth=***');
    expect(maskUrl('https://host/a?x=1&y=&z#frag')).toBe('https://host/a?x=***&y=&***#***');
    expect(maskUrl('https://tok3n@host:8080/p')).toBe('https://***@host:8080/p');
    expect(maskUrl('http://host:8080/plain/path')).toBe('http://host:8080/plain/path');
  });
});

describe('maskSecrets', () => {
  it('masks every URL in a text, whatever surrounds it', () => {
    const text =
      'TypeError: Request cannot be constructed from a URL that includes credentials: ' +
      'https://user:s3cret@ntfy.example/topic?auth=abc (ntfy.example); see "http://a:b@c/d".';
    const out = maskSecrets(text);
    expect(out).not.toContain('s3cret');
    expect(out).not.toContain('auth=abc');
    expect(out).toContain('https://user:***@ntfy.example/topic?auth=*** (ntfy.example)');
    expect(out).toContain('"http://a:***@c/d".');
    expect(maskSecrets('(https://h/x?k=v).')).toBe('(https://h/x?k=***).');
    expect(maskSecrets('no url here: a://')).toBe('no url here: a://');
    expect(maskSecrets('plain text')).toBe('plain text');
  });

  it('is linear on hostile input: a megabyte of letters, of "://", of "a://b@"', () => {
    for (const unit of ['a', '://', 'a://b@', 'x:'.repeat(3) + '//u:p@h?']) {
      const big = unit.repeat(Math.ceil(1_000_000 / unit.length));
      const t0 = performance.now();
      maskSecrets(big);
      expect(performance.now() - t0).toBeLessThan(1500);
    }
  });
});
