import { describe, expect, it } from 'vitest';

import { describeOwnerProblem, ownerProblem } from '../../src/core/run/owner.js';

describe('ownerProblem', () => {
  it('refuses what another user owns or can write, with the fix', () => {
    expect(ownerProblem({ path: '/r', uid: 1000, mode: 0o700 }, 1000)).toBeNull();
    expect(ownerProblem({ path: '/r', uid: 1000, mode: 0o755 }, 1000)).toBeNull();
    const open = ownerProblem({ path: '/r', uid: 1000, mode: 0o770 }, 1000);
    expect(open).toEqual({ kind: 'open', path: '/r', mode: 0o770 });
    expect(describeOwnerProblem('the runs root /r', open!)).toMatch(
      /0770: other users can write .*chmod 700 \/r$/,
    );
    const other = ownerProblem({ path: '/r', uid: 65534, mode: 0o700 }, 1000);
    expect(describeOwnerProblem('the runs root /r', other!)).toMatch(/belongs to uid 65534.*chown 1000 \/r/);
    expect(ownerProblem({ path: '/r', uid: 5, mode: 0o777 }, null)).toBeNull();
  });
});
