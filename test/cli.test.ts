import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './helpers/database';

const CLI = path.join(__dirname, '..', 'core', 'kernel', 'dist', 'cli.js');

let dataDir: string;
let database: TestDatabase;

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-cli-'));
  database = await createTestDatabase();
});
afterEach(async () => {
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A clean environment: only what a shell user would set, so the host's HEARTH_* never leak in. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HEARTH_DATA_DIR: dataDir,
    HEARTH__SECURITY__SCRYPT_COST: '1024',
    ...(database.url ? { HEARTH_DATABASE_URL: database.url } : {}),
    ...extra,
  };
}

function hearth(args: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env: env(extra), encoding: 'utf8', timeout: 30000 });
}

/** Start `hearth start` and resolve with its URL once it prints it. */
function startProcess(extra: Record<string, string> = {}): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: env({ PORT: '0', HEARTH_HTTP_ADDR: '127.0.0.1', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 20 s:\n${output}`)), 20000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /is listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          stop: () =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
  });
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

test('done-when: a CLI-made admin creates a scoped token over basic auth and uses it; a token without user gets 403', async () => {
  const created = hearth([
    'admin',
    'user',
    'create',
    '--username',
    'root-admin',
    '--password',
    'correct-horse-1',
    '--email',
    'root@example.com',
    '--admin',
  ]);
  expect(created.stderr).not.toMatch(/"level":(50|60)/); // logs go to stderr; no errors among them
  expect(created.stdout).toContain('created site administrator "root-admin"');
  expect(created.status).toBe(0);

  const server = await startProcess();
  try {
    const mint = async (scopes: string[]) => {
      const res = await fetch(`${server.url}api/v1/users/root-admin/tokens`, {
        method: 'POST',
        headers: { Authorization: basic('root-admin', 'correct-horse-1'), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: scopes.join('+'), scopes }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { sha1: string }).sha1;
    };
    const userToken = await mint(['read:user']);
    const me = await fetch(`${server.url}api/v1/user`, { headers: { Authorization: `token ${userToken}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ login: 'root-admin', is_admin: true, email: 'root@example.com' });
    const repoToken = await mint(['write:repository']);
    const denied = await fetch(`${server.url}api/v1/user`, { headers: { Authorization: `token ${repoToken}` } });
    expect(denied.status).toBe(403);
  } finally {
    expect(await server.stop()).toBe(0);
  }
});

test('first run: HEARTH_ADMIN_* creates the first admin; a second start beside it needs only PORT and the data dir', async () => {
  const first = await startProcess({
    HEARTH_ADMIN_USERNAME: 'boss',
    HEARTH_ADMIN_PASSWORD: 'boss-password-1',
    HEARTH_ADMIN_EMAIL: 'boss@example.com',
  });
  const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-cli-second-'));
  const second = await startProcess({ HEARTH_DATA_DIR: otherDir, HEARTH_DATABASE_URL: '' });
  try {
    const me = await fetch(`${first.url}api/v1/user`, { headers: { Authorization: basic('boss', 'boss-password-1') } });
    expect(me.status).toBe(200);
    expect(second.url).not.toBe(first.url);
    expect((await fetch(`${second.url}api/v1/version`)).status).toBe(200);
    expect((await fetch(`${second.url}api/v1/user`, { headers: { Authorization: basic('boss', 'boss-password-1') } })).status).toBe(401);
  } finally {
    await first.stop();
    await second.stop();
    fs.rmSync(otherDir, { recursive: true, force: true });
  }
});

test('a config with an unknown plugin fails to start with a clear message', () => {
  const file = path.join(dataDir, 'hearth.json');
  fs.writeFileSync(file, JSON.stringify({ plugins: { 'registry-cargoo': { enabled: true } } }));
  const res = hearth(['start', '--config', file]);
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('plugins.registry-cargoo: cannot find the plugin package "@hearth/plugin-registry-cargoo"');
  expect(res.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
});

test('a bad configuration value fails to start naming key, value and what is allowed', () => {
  const res = hearth(['start'], { HEARTH__LOG__LEVEL: 'chatty' });
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('log.LEVEL = "chatty": must be one of:');
});

test('migrate is idempotent; plugins lists what loads; doctor checks git, database and data directory', () => {
  const first = hearth(['migrate']);
  expect(first.status).toBe(0);
  expect(first.stdout).toContain('migrations are up to date');
  expect(first.stdout).toContain('hooks refreshed in 0 repositories');
  expect(first.stderr).toContain('0001_users_emails_tokens');
  const again = hearth(['migrate']);
  expect(again.status).toBe(0);
  expect(again.stderr).not.toContain('0001_users_emails_tokens');

  const plugins = hearth(['plugins']);
  expect(plugins.stdout).toMatch(/^misc\t0\.1\.0\tapi \^2\.0\.0\t/m);

  const doctor = hearth(['doctor']);
  expect(doctor.stdout).toMatch(/^ok +git: git version 2\./m);
  expect(doctor.stdout).toMatch(/^ok +database: /m);
  expect(doctor.stdout).toMatch(/^ok +data directory: /m);
  expect(doctor.status).toBe(0);
});

test('doctor reports repositories missing on disk and directories without a record', () => {
  expect(hearth(['migrate']).status).toBe(0);
  const clean = hearth(['doctor']);
  expect(clean.stdout).toMatch(/^ok +repositories: 0 in the database$/m);
  fs.mkdirSync(path.join(dataDir, 'repositories', 'someone', 'stray.git'), { recursive: true });
  const stray = hearth(['doctor']);
  expect(stray.stdout).toMatch(
    /^warn +repositories: 0 in the database; on disk without a record \(creating them answers 409\): someone\/stray$/m,
  );
  expect(stray.status).toBe(0);
});

test('doctor fails when the data directory is not writable', () => {
  const file = path.join(dataDir, 'blocker');
  fs.writeFileSync(file, 'a file where a directory should be');
  const res = hearth(['doctor'], {
    HEARTH_DATA_DIR: path.join(file, 'sub'),
    HEARTH_DATABASE_URL: database.url || `sqlite:${path.join(dataDir, 'x.db')}`,
  });
  expect(res.status).toBe(1);
  expect(res.stdout).toMatch(/^FAIL +data directory: /m);
});

test('admin user create refuses reserved names and missing flags', () => {
  const reserved = hearth([
    'admin',
    'user',
    'create',
    '--username',
    'hearth-actions',
    '--password',
    'long-enough-1',
    '--email',
    'bot@example.com',
  ]);
  expect(reserved.status).toBe(1);
  expect(reserved.stderr).toContain('name is reserved [name: hearth-actions]');
  const missing = hearth(['admin', 'user', 'create', '--username', 'x']);
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain('needs --username, --password and --email');
});

test('`npx hearth` works: the workspace bin is linked at install time and launches the built CLI', () => {
  const bin = path.join(__dirname, '..', 'node_modules', '.bin', 'hearth');
  const res = spawnSync(bin, ['--help'], { env: env(), encoding: 'utf8' });
  expect(res.status).toBe(0);
  expect(res.stdout).toContain('Usage: hearth <command>');
});
