'use strict';
/**
 * Git helpers for the git-hosting benchmark: run the system git as an async child with a
 * deadline, give it an isolated environment, and generate large histories quickly with
 * `git fast-import` fed from a stream we write ourselves.
 *
 * The generated content is incompressible on purpose (random bytes from a xorshift PRNG,
 * far faster than crypto.randomBytes): a pack of N bytes then really is N bytes on the wire
 * and on disk, and neither zlib nor delta compression can make the transfer cheaper than it
 * looks. Trees stay small (FILES files spread over DIRS directories), so each commit adds one
 * blob, one small subtree, one small root tree and a commit.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const FILES = 500;
const DIRS = 25;
const IDENTITY = { name: 'Bench', email: 'bench@example.com' };
const BASE_TIME = 1_700_000_000;

/** The environment every client-side git runs in: its own HOME and no system config, so nothing on the machine changes what is measured. */
function gitEnv(home, extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(GIT_|HEARTH)/i.test(key)) env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    LANG: 'C',
    ...extra,
  };
}

/**
 * Run `git <args>` and resolve { code, stdout, stderr, ms } (ms: spawn to exit). Rejects when
 * git exits non-zero (unless allowFail) or is still running after timeoutMs (it is killed).
 * `input`: a string/Buffer, or an async iterable of Buffers written with back-pressure.
 */
function git(args, { env, cwd, input, timeoutMs = 60_000, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('git', args, { env, cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out = [];
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => {
      stderr += c.toString();
      if (stderr.length > 8192) stderr = stderr.slice(-8192);
    });
    const guard = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(guard);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const result = { code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr, ms };
      if (timedOut) reject(new Error(`git ${args.join(' ')}: still running after ${timeoutMs} ms (killed)\n${stderr.trim()}`));
      else if (code !== 0 && !allowFail)
        reject(new Error(`git ${args.join(' ')} exited ${code ?? signal}\n${stderr.trim().split('\n').slice(-5).join('\n')}`));
      else resolve(result);
    });
    if (input !== undefined) {
      child.stdin.on('error', () => undefined); // git may exit early; its exit code tells why
      if (typeof input === 'string' || Buffer.isBuffer(input)) child.stdin.end(input);
      else feed(child.stdin, input).catch(() => child.kill('SIGKILL'));
    }
  });
}

async function feed(stdin, chunks) {
  for await (const chunk of chunks) {
    if (stdin.destroyed) return;
    if (!stdin.write(chunk))
      await new Promise((resolve) => {
        const done = () => {
          stdin.off('drain', done);
          stdin.off('close', done);
          resolve();
        };
        stdin.once('drain', done);
        stdin.once('close', done);
      });
  }
  stdin.end();
}

/** xorshift32: a fast, seedable PRNG; fills a buffer with incompressible bytes. */
function makeRandom(seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const fill = (buf) => {
    const words = new Uint32Array(buf.buffer, buf.byteOffset, buf.length >> 2);
    for (let i = 0; i < words.length; i++) words[i] = next();
    for (let i = words.length << 2; i < buf.length; i++) buf[i] = next() & 0xff;
    return buf;
  };
  return { next, fill };
}

/** The path of generated file n (0 ≤ n < FILES): "dNN/fNNN.bin". */
function filePath(n) {
  return `d${String(n % DIRS).padStart(2, '0')}/f${String(n).padStart(3, '0')}.bin`;
}

/**
 * A fast-import stream of `count` commits on `ref`, commit i (from `first`) rewriting file
 * i % FILES with blobSize random bytes. `from`: the parent of the first commit (a sha), or
 * none for a root commit. Chunks are ~1 MB so the pipe into git stays busy.
 */
async function* importStream({ ref, count, first = 0, from, blobSize, seed }) {
  const rnd = makeRandom(seed);
  const parts = [];
  let size = 0;
  for (let i = first; i < first + count; i++) {
    const when = `${BASE_TIME + i * 60} +0000`;
    const message = `Change ${i}: rewrite ${filePath(i % FILES)}\n`;
    let head =
      `commit ${ref}\n` +
      `author ${IDENTITY.name} <${IDENTITY.email}> ${when}\n` +
      `committer ${IDENTITY.name} <${IDENTITY.email}> ${when}\n` +
      `data ${Buffer.byteLength(message)}\n${message}`;
    if (i === first && from) head += `from ${from}\n`;
    head += `M 100644 inline ${filePath(i % FILES)}\ndata ${blobSize}\n`;
    const blob = rnd.fill(Buffer.allocUnsafe(blobSize));
    parts.push(Buffer.from(head), blob, Buffer.from('\n'));
    size += head.length + blobSize + 1;
    if (size >= 1 << 20) {
      yield Buffer.concat(parts);
      parts.length = 0;
      size = 0;
    }
  }
  parts.push(Buffer.from('done\n'));
  yield Buffer.concat(parts);
}

/**
 * Append `count` generated commits to `ref` in the repository at gitDir (bare), on top of `from`
 * (a sha, or none). Resolves with the new tip.
 */
async function generateCommits({ gitDir, env, ref, count, first = 0, from, blobSize, seed, timeoutMs = 120_000 }) {
  await git(['--git-dir', gitDir, 'fast-import', '--quiet', '--done'], {
    env,
    input: importStream({ ref, count, first, from, blobSize, seed }),
    timeoutMs,
  });
  return (await git(['--git-dir', gitDir, 'rev-parse', ref], { env })).stdout.trim();
}

/** Total size in bytes of the packs of a bare repository, and how many there are. */
function packStats(gitDir) {
  const dir = path.join(gitDir, 'objects', 'pack');
  let bytes = 0;
  let packs = 0;
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!name.endsWith('.pack')) continue;
    bytes += fs.statSync(path.join(dir, name)).size;
    packs++;
  }
  return { bytes, packs };
}

/** Total size in bytes of a directory tree (for the clones' on-disk size). */
function dirBytes(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(p);
    else if (entry.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

module.exports = { FILES, DIRS, gitEnv, git, makeRandom, filePath, importStream, generateCommits, packStats, dirBytes };
