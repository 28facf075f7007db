import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Hearth } from './helpers/kernel';
import { createTestDatabase, type TestDatabase } from './helpers/database';
import { cloneUrl, gitSandbox } from './helpers/git';
import { waitFor } from './helpers/wait';

/**
 * Crash leftovers: git quarantine directories of pushes and temporary files of uploads that a
 * killed server never removed. A restart removes those untouched for the grace period (one hour)
 * and keeps younger ones; `hearth doctor` reports them (exit 1) and `--fix` removes them.
 */
const ROOT = { name: 'root', password: 'root-password-1', email: 'root@example.com' };
const CLI = path.join(__dirname, '..', 'core', 'kernel', 'dist', 'cli.js');
const TWO_HOURS_AGO = new Date(Date.now() - 2 * 3600 * 1000);

let database: TestDatabase;
let dataDir: string;
let sandbox: ReturnType<typeof gitSandbox>;
const logged: Array<{ level: number; msg: string; removed?: Array<{ path: string }> }> = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-leftovers-'));
  sandbox = gitSandbox();
});
afterAll(async () => {
  sandbox.cleanup();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function boot(maintenance: Record<string, number> = {}): Promise<{ kernel: Hearth; url: string }> {
  const kernel = await Hearth.create({
    config: {
      env: {},
      overrides: {
        server: { HTTP_PORT: 0, HTTP_ADDR: '127.0.0.1', DATA_DIR: dataDir },
        database: { URL: database.url },
        log: { LEVEL: 'info', REQUESTS: false },
        security: { SCRYPT_COST: 1024 },
        maintenance,
      },
    },
    env: { HEARTH_ADMIN_USERNAME: ROOT.name, HEARTH_ADMIN_PASSWORD: ROOT.password, HEARTH_ADMIN_EMAIL: ROOT.email },
    logDestination: { write: (line: string) => void logged.push(JSON.parse(line)) },
  });
  return { kernel, url: await kernel.listen() };
}

const auth = `Basic ${Buffer.from(`${ROOT.name}:${ROOT.password}`).toString('base64')}`;
const call = (url: string, method: string, p: string, body?: unknown) =>
  fetch(new URL(p.startsWith('/api/') ? p.slice(1) : `api/v1${p}`, url), {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const repoDir = (name: string) => path.join(dataDir, 'repositories', ROOT.name, `${name}.git`);

/** Write a file of 64 bytes, and its folders. */
function plant(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, crypto.randomBytes(64));
}

/** Set the modification time of a file, or of a directory and everything in it. */
function age(target: string, when: Date): void {
  if (fs.statSync(target).isDirectory()) for (const name of fs.readdirSync(target)) age(path.join(target, name), when);
  fs.utimesSync(target, when, when);
}

function hearth(args: string[], extra: Record<string, string> = {}) {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HEARTH_DATA_DIR: dataDir,
    HEARTH__SECURITY__SCRYPT_COST: '1024',
    ...(database.url ? { HEARTH_DATABASE_URL: database.url } : {}),
    ...extra,
  };
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 30000 });
}

/** A new commit pushed to `branch` with the real git client over smart HTTP. */
async function push(url: string, remotePath: string, file: string, branch = 'main'): Promise<void> {
  const work = fs.mkdtempSync(path.join(sandbox.dir, 'work-'));
  expect((await sandbox.git(['init', '-q', work])).status).toBe(0);
  fs.writeFileSync(path.join(work, file), `${file}\n`);
  expect((await sandbox.git(['add', file], work)).status).toBe(0);
  expect((await sandbox.git(['commit', '-q', '-m', `add ${file}`], work)).status).toBe(0);
  const pushed = await sandbox.git(['push', '-q', cloneUrl(url, remotePath, ROOT.name, ROOT.password), `HEAD:refs/heads/${branch}`], work);
  expect(pushed.stderr).toBe('');
  expect(pushed.status).toBe(0);
}

test(
  'a restart removes quarantine directories and upload temp files untouched for an hour and ' +
    'keeps younger ones; doctor reports them and --fix removes them',
  async () => {
    const first = await boot();
    try {
      expect((await call(first.url, 'POST', '/user/repos', { name: 'proj' })).status).toBe(201);
      await push(first.url, `${ROOT.name}/proj.git`, 'README.md');
      await push(first.url, `${ROOT.name}/proj.wiki.git`, 'Home.md');
      expect((await call(first.url, 'PUT', `/api/packages/${ROOT.name}/generic/tool/1.0.0/tool.txt`, 'bytes')).status).toBe(201);
    } finally {
      await first.kernel.close();
    }

    const objects = path.join(repoDir('proj'), 'objects');
    const wikiObjects = path.join(dataDir, 'repositories', ROOT.name, 'proj.wiki.git', 'objects');
    // As a killed push or upload leaves them: current git's quarantine, older git's, a wiki's; staged uploads; an archive being built.
    const stale = [
      path.join(objects, 'tmp_objdir-incoming-Old001'),
      path.join(objects, 'incoming-Old002'),
      path.join(wikiObjects, 'tmp_objdir-incoming-Old003'),
      path.join(dataDir, 'packages', 'tmp', 'upload-old-1'),
      path.join(dataDir, 'attachments', 'tmp', 'upload-old-2'),
      path.join(dataDir, 'archives', '1', '.tmp-old-3'),
    ];
    const plantStale = () => {
      plant(path.join(stale[0], 'pack', 'tmp_pack_abc'));
      plant(path.join(stale[1], 'ab', 'cdef0123'));
      plant(path.join(stale[2], 'pack', 'tmp_idx_abc'));
      for (const file of stale.slice(3)) plant(file);
      for (const leftover of stale) age(leftover, TWO_HOURS_AGO);
    };
    // A push or upload that may still be running: recent, or an old directory with a recent write inside.
    const fresh = [
      path.join(objects, 'tmp_objdir-incoming-New001'),
      path.join(objects, 'tmp_objdir-incoming-Busy01'),
      path.join(dataDir, 'packages', 'tmp', 'upload-new-1'),
    ];
    plantStale();
    plant(path.join(fresh[0], 'pack', 'tmp_pack_new'));
    plant(path.join(fresh[1], 'pack', 'tmp_pack_growing'));
    age(fresh[1], TWO_HOURS_AGO);
    fs.utimesSync(path.join(fresh[1], 'pack', 'tmp_pack_growing'), new Date(), new Date());
    plant(fresh[2]);

    const second = await boot();
    try {
      for (const leftover of stale) expect(fs.existsSync(leftover)).toBe(false);
      for (const kept of fresh) expect(fs.existsSync(kept)).toBe(true);
      const sweep = logged.find((line) => line.msg.startsWith('removed 6 leftover'));
      expect(sweep?.removed?.map((l) => l.path).sort()).toEqual([...stale].sort());
      // The repository and its wiki work as before.
      await push(second.url, `${ROOT.name}/proj.git`, 'second.md', 'second');
      const cloned = await sandbox.git([
        'clone',
        '-q',
        cloneUrl(second.url, `${ROOT.name}/proj.wiki.git`, ROOT.name, ROOT.password),
        'wiki-clone',
      ]);
      expect(cloned.status).toBe(0);
    } finally {
      await second.kernel.close();
    }

    plantStale();
    const found = hearth(['doctor']);
    expect(found.stdout).toMatch(
      /^FAIL +leftovers: 6 of interrupted pushes, uploads or archives \(384 B\); `hearth doctor --fix` removes them$/m,
    );
    for (const leftover of stale) expect(found.stdout).toContain(path.relative(dataDir, leftover));
    for (const kept of fresh) expect(found.stdout).not.toContain(path.relative(dataDir, kept));
    expect(found.status).toBe(1);
    for (const leftover of stale) expect(fs.existsSync(leftover)).toBe(true);

    const fixed = hearth(['doctor', '--fix']);
    expect(fixed.stdout).toMatch(/^ok +leftovers: removed 6 of interrupted pushes, uploads or archives \(384 B\)$/m);
    expect(fixed.status).toBe(0);
    for (const leftover of stale) expect(fs.existsSync(leftover)).toBe(false);
    for (const kept of fresh) expect(fs.existsSync(kept)).toBe(true);

    const clean = hearth(['doctor']);
    expect(clean.stdout).toMatch(/^ok +leftovers: none older than the grace period of 3600 s/m);
    expect(clean.status).toBe(0);
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  },
  120000,
);

/** A pkt-line of git's protocol. */
const pktLine = (text: string) => (text.length + 4).toString(16).padStart(4, '0') + text;

/** Start an HTTP request whose body is only partly sent: the server is mid-way through reading it. */
function hold(url: string, method: string, p: string, headers: Record<string, string>, partial: Buffer): http.ClientRequest {
  const req = http.request(new URL(p, url), { method, headers: { Authorization: auth, ...headers } });
  req.on('error', () => undefined); // the server dies under it
  req.write(partial);
  return req;
}

test(
  'SIGKILL during a push and an upload: the quarantine and the temp file stay; once ' +
    'untouched for the grace period a start removes them, and the repository takes pushes again',
  async () => {
    let child: ChildProcess | null = spawn(process.execPath, [CLI, 'start'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        HEARTH_DATA_DIR: dataDir,
        HEARTH_HTTP_ADDR: '127.0.0.1',
        PORT: '0',
        ...(database.url ? { HEARTH_DATABASE_URL: database.url } : {}),
        HEARTH__SECURITY__SCRYPT_COST: '1024',
        HEARTH__LOG__LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: SIGKILL takes git with it, as a container stop or the OOM killer would
    });
    try {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      const url = (await waitFor('the server to listen', () => /is listening on (http:\/\/\S+)/.exec(out), 30000))[1].replace(
        '://localhost:',
        '://127.0.0.1:',
      );
      expect((await call(url, 'POST', '/user/repos', { name: 'killed' })).status).toBe(201);

      // A pack of a commit with 1 MiB of random bytes; the server gets the commands and half the pack.
      const work = fs.mkdtempSync(path.join(sandbox.dir, 'big-'));
      expect((await sandbox.git(['init', '-q', work])).status).toBe(0);
      fs.writeFileSync(path.join(work, 'big.bin'), crypto.randomBytes(1 << 20));
      expect((await sandbox.git(['add', 'big.bin'], work)).status).toBe(0);
      expect((await sandbox.git(['commit', '-q', '-m', 'big'], work)).status).toBe(0);
      const commit = (await sandbox.git(['rev-parse', 'HEAD'], work)).stdout.trim();
      const pack = spawnSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work, input: `${commit}\n` }).stdout;
      const commands = pktLine(`${'0'.repeat(40)} ${commit} refs/heads/main\0 report-status\n`) + '0000';
      const pushing = hold(
        url,
        'POST',
        `${ROOT.name}/killed.git/git-receive-pack`,
        { 'Content-Type': 'application/x-git-receive-pack-request' },
        Buffer.concat([Buffer.from(commands), pack.subarray(0, pack.length >> 1)]),
      );
      const uploads = path.join(dataDir, 'packages', 'tmp'); // made by the first test
      const earlier = new Set(fs.readdirSync(uploads));
      const uploading = hold(
        url,
        'PUT',
        `api/packages/${ROOT.name}/generic/big/1.0.0/big.bin`,
        { 'Content-Length': String(1 << 20) },
        crypto.randomBytes(1 << 19),
      );
      const objects = path.join(repoDir('killed'), 'objects');
      const quarantine = await waitFor('the push quarantine', () =>
        fs.readdirSync(objects).find((n) => n.startsWith('tmp_objdir-') || n.startsWith('incoming-')),
      );
      const staged = await waitFor('the staged upload', () =>
        fs.readdirSync(uploads).find((n) => n.startsWith('upload-') && !earlier.has(n)),
      );

      process.kill(-child.pid!, 'SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));
      child = null;
      pushing.destroy();
      uploading.destroy();
      const leftovers = [path.join(objects, quarantine), path.join(uploads, staged)];
      for (const leftover of leftovers) expect(fs.existsSync(leftover)).toBe(true);

      // Right after the crash they are younger than the grace period: a start keeps them.
      const soon = await boot();
      await soon.kernel.close();
      for (const leftover of leftovers) expect(fs.existsSync(leftover)).toBe(true);

      for (const leftover of leftovers) age(leftover, TWO_HOURS_AGO);
      const later = await boot();
      try {
        for (const leftover of leftovers) expect(fs.existsSync(leftover)).toBe(false);
        await push(later.url, `${ROOT.name}/killed.git`, 'after.md');
      } finally {
        await later.kernel.close();
      }
    } finally {
      if (child) {
        process.kill(-child.pid!, 'SIGKILL');
        await new Promise((resolve) => child!.once('exit', resolve));
      }
    }
  },
  120000,
);

test('a running server sweeps again every LEFTOVER_SWEEP_INTERVAL seconds', async () => {
  const running = await boot({ LEFTOVER_SWEEP_INTERVAL: 1 });
  try {
    const leftover = path.join(dataDir, 'attachments', 'tmp', 'upload-while-running');
    plant(leftover);
    age(leftover, TWO_HOURS_AGO);
    await waitFor('the periodic sweep', () => !fs.existsSync(leftover), 10000);
  } finally {
    await running.kernel.close();
  }
});

test('the grace period and the sweep interval are validated', () => {
  const short = hearth(['doctor'], { HEARTH__MAINTENANCE__LEFTOVER_GRACE_PERIOD: '5' });
  expect(short.stdout).toContain('maintenance.LEFTOVER_GRACE_PERIOD = 5: must be >= 60');
  expect(short.status).toBe(1);
  const long = hearth(['doctor'], { HEARTH__MAINTENANCE__LEFTOVER_SWEEP_INTERVAL: '9999999' });
  expect(long.stdout).toContain('maintenance.LEFTOVER_SWEEP_INTERVAL = 9999999: must be <= 604800');
  expect(long.status).toBe(1);
});
