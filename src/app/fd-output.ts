import { writeSync } from 'node:fs';

// Output written straight to its file descriptor. process.stdout and process.stderr are streams
// made on first use, and on a pipe (how a program reads `status --json`) making one loads the net
// and stream modules: milliseconds of a command that prints one document. The stream is made only
// when asked for (a terminal's width, whether it is one) or when the descriptor would block.

export interface FdOutput {
  write(data: string | Uint8Array): void;
  /** The stream, made on first use; every later write goes through it, in order. */
  stream(): NodeJS.WriteStream;
  /** Calls back once everything written has left (at once when it was all written directly). */
  flush(done: () => void): void;
}

export function fdOutput(fd: number, make: () => NodeJS.WriteStream): FdOutput {
  let stream: NodeJS.WriteStream | null = null;
  const open = (): NodeJS.WriteStream => {
    if (stream) return stream;
    stream = make();
    // A reader that went away (`status | head`), a full disk: not an error worth a stack trace.
    stream.on('error', () => {});
    return stream;
  };
  return {
    write(data) {
      if (stream) {
        stream.write(data);
        return;
      }
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
      } catch (err) {
        // A descriptor that would block (a non-blocking pipe): the stream waits for it instead.
        // Any other failure (a reader gone, a full disk) drops this output, as the stream did.
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') open().write(bytes.subarray(done));
      }
    },
    stream: open,
    flush(done) {
      if (stream) stream.write('', done);
      else done();
    },
  };
}
