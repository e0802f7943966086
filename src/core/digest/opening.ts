// What `digest --open` says when no browser can show the page: why, where the page is, and what
// the person can do instead here. Pure: the adapter finds the facts.

export interface OpenFacts {
  /** `open` (macOS) or `xdg-open`. */
  opener: string;
  page: string;
  /** This machine's name, for the copy command. */
  host: string;
  /** How the person runs overnight (`npx overnight` under npx). */
  cmd: string;
}

export type OpenFailure =
  { kind: 'no-opener' } | { kind: 'no-display' } | { kind: 'no-start' } | { kind: 'exit'; status: number };

/** xdg-open's status when it found no browser ("no method available"). */
const NO_METHOD = 3;

export function openFailureMessage(failure: OpenFailure, f: OpenFacts): string {
  const text = `read the digest as text with \`${f.cmd} digest\``;
  const elsewhere = `copy the page to a machine with a browser (scp ${f.host}:${f.page} .) and open it there`;
  const here = `the page is ${f.page}`;
  switch (failure.kind) {
    case 'no-display':
      return (
        'cannot open the digest: there is no display here (DISPLAY and WAYLAND_DISPLAY are unset, as ' +
        `over SSH or in a container); ${here}: ${elsewhere}, or ${text}`
      );
    case 'no-opener':
      return (
        `cannot open the digest: ${f.opener} is not on PATH (xdg-utils has it); ${here}: ` +
        `open it in a browser yourself, or ${text}`
      );
    case 'no-start':
      return (
        `cannot open the digest: ${f.opener} could not be started; ${here}: ` +
        `open it in a browser yourself, or ${text}`
      );
    case 'exit':
      if (failure.status === NO_METHOD && f.opener === 'xdg-open')
        return (
          `cannot open the digest: xdg-open found no browser (it exited with status ${NO_METHOD}); ` +
          `${here}: install a browser or set BROWSER to one, ${elsewhere}, or ${text}`
        );
      return (
        `cannot open the digest: ${f.opener} could not open it (it exited with status ${failure.status}); ` +
        `${here}: open it in a browser yourself, or ${text}`
      );
  }
}
