'use strict';

// Loads the bundle: each chunk of dist/ (a CommonJS function expression, see scripts/build.mjs)
// is read, compiled with vm.Script and run, once, when first required. V8's code cache of the
// chunks (their bytecode, with every function the commands ran) is kept per build and Node
// version, in a file of its own for a pass and for status (run every few minutes, and every
// morning; `status --json` has one too) and one for every other command, so that a command reads
// and deserializes only what it runs: beside the chunks in dist/, or, where dist/ cannot be
// written, in the user's own cache folder. A cache is used only for the build and Node it was made
// by (and V8 rejects it otherwise too); it is rewritten, atomically, when a chunk was missing from
// it (or, for the shared file, a command not seen yet ran).

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

/** What a command is called for the cache's list: `status`, `reconcile`; never a user's argument. */
function commandOf(argv) {
  const first = argv.find((a) => !a.startsWith('-'));
  return first && /^[a-z]{2,20}$/.test(first) ? first : '-';
}

/** Commands with a cache of their own; the others share one. */
const OWN_CACHE = new Set(['reconcile', 'status']);

/**
 * The cache a command's run uses: its own, or the shared one. `status --json` runs other code than
 * the table does (a thousand rows printed as they were cached, no table), and a cache made by one
 * would leave the other to compile its own functions on every run.
 */
function groupOf(command, argv) {
  if (!OWN_CACHE.has(command)) return 'other';
  return command === 'status' && argv.includes('--json') ? 'status-json' : command;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The user's own cache folder, made private; null when it is not safely ours. */
function userCacheDir(make) {
  const home = process.env.HOME;
  const base = process.env.XDG_CACHE_HOME || (home ? path.join(home, '.cache') : null);
  if (!base || !path.isAbsolute(base)) return null;
  const dir = path.join(base, 'overnight');
  try {
    if (make) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    // Another user able to write here could plant bytecode: such a folder is not used.
    return st.isDirectory() && st.uid === uid && (st.mode & 0o022) === 0 ? dir : null;
  } catch {
    return null;
  }
}

/** The cache's blobs by chunk, and the commands it has seen; null when there is none for this build. */
function readCache(file, key, checkOwner) {
  let data;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
      if (checkOwner && (st.uid !== uid || (st.mode & 0o022) !== 0)) return null;
      data = Buffer.allocUnsafe(st.size);
      if (fs.readSync(fd, data, 0, st.size, 0) !== st.size) return null;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  const nl = data.indexOf(0x0a);
  let head;
  try {
    head = JSON.parse(data.subarray(0, nl).toString('utf8'));
  } catch {
    return null;
  }
  if (!head || head.key !== key || !Array.isArray(head.chunks) || !Array.isArray(head.commands)) return null;
  const blobs = new Map();
  let at = nl + 1;
  for (const [name, length] of head.chunks) {
    if (typeof name !== 'string' || !Number.isInteger(length) || at + length > data.length) return null;
    blobs.set(name, data.subarray(at, at + length));
    at += length;
  }
  return { blobs, commands: head.commands, typical: head.typical === true };
}

function writeCache(file, key, commands, blobs, typical) {
  const chunks = [...blobs].map(([name, b]) => [name, b.length]);
  const head = JSON.stringify({ key, commands, typical, chunks });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(head + '\n'), ...blobs.values()]), { mode: 0o644 });
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

/** Runs the bundle from its entry chunk. */
function start(dist, entry) {
  const build = readJson(path.join(dist, 'build.json'));
  const command = commandOf(process.argv.slice(2));
  const group = groupOf(command, process.argv.slice(2));
  const version = `${process.version}-${process.arch}`;
  const key = build && typeof build.id === 'string' ? `${build.id} ${group} ${version}` : null;
  const name = `code-cache-${group}-${version}.bin`;
  const userName = () => `code-cache-${build.id}-${group}-${version}.bin`;
  let cache = null;
  let userFile = null;
  if (key) {
    cache = readCache(path.join(dist, name), key, false);
    if (!cache) {
      const dir = userCacheDir(false);
      userFile = dir ? path.join(dir, userName()) : null;
      cache = userFile ? readCache(userFile, key, true) : null;
    }
  }
  let stale = !cache || !cache.commands.includes(command);

  const modules = new Map();
  const scripts = new Map();
  const load = (chunk) => {
    const loaded = modules.get(chunk);
    if (loaded) return loaded.exports;
    const file = path.join(dist, chunk);
    const cachedData = cache ? cache.blobs.get(chunk) : undefined;
    // A function expression of (exports, require, module, __filename, __dirname, __import, __importMeta).
    const script = new vm.Script(fs.readFileSync(file, 'utf8'), {
      filename: file,
      cachedData,
    });
    const used = cachedData !== undefined && !script.cachedDataRejected;
    if (!used) stale = true;
    scripts.set(chunk, { script, used });
    const module = { exports: {} };
    modules.set(chunk, module);
    const req = (spec) => (spec.startsWith('./') ? load(spec.slice(2)) : require(spec));
    const imp = (spec) => Promise.resolve().then(() => req(spec));
    // A chunk's own URL is made only if it asks (a few do, for paths beside the bundle).
    const meta = {
      get url() {
        return pathToFileURL(file).href;
      },
    };
    script.runInThisContext().call(module.exports, module.exports, req, module, file, dist, imp, meta);
    return module.exports;
  };

  if (key) {
    // A cache that cannot be written costs the next start its speed, never this command its exit.
    process.on('exit', () => {
      try {
        saveCache();
      } catch {
        // no cache this time
      }
    });
    const saveCache = () => {
      // Every function run so far is in a script's cache now; chunks not loaded keep their old one.
      // A pass's or status's file keeps the blobs it has rather than grow to hold every function
      // any later run compiled (a pass that acted, say), which every steady pass would deserialize.
      // It is made from a run its command calls typical (a pass over live runs that acted on
      // none: src/app/code-cache.ts). A blob made by a run that was given one holds the old one's
      // functions too: such a run drops the blobs of the chunks it loaded, and the next typical
      // run, compiling them afresh, makes them. The other commands' shared file takes each one's in.
      const own = group !== 'other';
      const typical = own && globalThis[Symbol.for('overnight.typicalRun')] === true;
      const remake = typical && !(cache && cache.typical);
      if (!stale && !remake) return;
      const blobs = new Map(cache ? cache.blobs : []);
      let made = cache !== null && cache.typical;
      if (remake) {
        // Made from source in this run, or to be, all of them, by the next typical one.
        made = ![...scripts.values()].some((s) => s.used);
        for (const [chunk, { script }] of scripts)
          if (made) blobs.set(chunk, script.createCachedData());
          else blobs.delete(chunk);
      } else {
        for (const [chunk, { script, used }] of scripts)
          if (!used || !own) blobs.set(chunk, script.createCachedData());
      }
      const commands = [...new Set([...(cache ? cache.commands : []), command])];
      if (writeCache(path.join(dist, name), key, commands, blobs, made)) return;
      const dir = userCacheDir(true);
      if (!dir) return;
      const file = userFile ?? path.join(dir, userName());
      if (!writeCache(file, key, commands, blobs, made)) return;
      // Caches of earlier builds are of no use: this build's for this Node version are kept.
      const mine = (f) => f.startsWith(`code-cache-${build.id}-`) && f.endsWith(`-${version}.bin`);
      for (const old of fs.readdirSync(dir))
        if (old.startsWith('code-cache-') && !mine(old)) fs.rmSync(path.join(dir, old), { force: true });
    };
  }
  load(entry);
}

module.exports = { start };
