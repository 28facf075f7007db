import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { cloneUrl, gitSandbox, startServer, type TestServer } from '@hearth/testing';

/** Debian's git-lfs against the server: track, push, clone, locks, media. SQLite only (a client test). */
describe('lfs plugin with the real git-lfs client', () => {
  let server: TestServer;
  let sandbox: ReturnType<typeof gitSandbox>;
  let alice: { name: string; password: string; id: number };
  let bob: { name: string; password: string; id: number };
  let aliceToken: string;
  let bobToken: string;
  const logLines: string[] = [];
  const content = crypto.randomBytes(1536 * 1024);
  const oid = crypto.createHash('sha256').update(content).digest('hex');
  /** git-lfs's filters for one repository, as `git lfs install --local` writes them (never the global config). */
  const LFS_FILTERS = [
    'filter.lfs.process=git-lfs filter-process',
    'filter.lfs.required=true',
    'filter.lfs.clean=git-lfs clean -- %f',
    'filter.lfs.smudge=git-lfs smudge -- %f',
  ];

  const git = async (args: string[], cwd?: string) => {
    const r = await sandbox.git(args, cwd);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r;
  };

  beforeAll(async () => {
    const lfs = spawnSync('git-lfs', ['version']);
    if (lfs.status !== 0) throw new Error('git-lfs is missing: apt-get install -y git-lfs (see scripts/setup-test-deps.sh)');
    // The old kernel key is accepted and ignored, with a warning naming the plugin's switch.
    server = await startServer({ repository: { LFS_ENABLED: false } }, { logLines });
    expect(logLines.some((l) => l.includes('LFS_ENABLED is deprecated and ignored'))).toBe(true);
    sandbox = gitSandbox();
    alice = await server.user('alice');
    bob = await server.user('bob');
    aliceToken = await server.token(alice, ['write:repository']);
    bobToken = await server.token(bob, ['write:repository']);
    const created = await server.api('POST', '/user/repos', {
      basic: [alice.name, alice.password],
      body: { name: 'assets', auto_init: true },
    });
    expect(created.status).toBe(201);
    const collab = await server.api('PUT', '/repos/alice/assets/collaborators/bob', {
      basic: [alice.name, alice.password],
      body: { permission: 'write' },
    });
    expect(collab.status).toBe(204);
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  it('pushes a tracked file as an LFS object and a fresh clone gets the real content', async () => {
    const work = path.join(sandbox.dir, 'work');
    await git(['clone', '--quiet', cloneUrl(server.url, 'alice/assets.git', alice.name, aliceToken), work]);
    await git(['lfs', 'install', '--local'], work);
    await git(['lfs', 'track', '*.bin'], work);
    fs.writeFileSync(path.join(work, 'big.bin'), content);
    await git(['add', '.gitattributes', 'big.bin'], work);
    await git(['commit', '--quiet', '-m', 'add a large file'], work);
    await git(['push', 'origin', 'main'], work);

    // The repository holds a pointer; the object is in the plugin's blob area.
    const rawPointer = await fetch(new URL('api/v1/repos/alice/assets/raw/big.bin', server.url), {
      headers: { Authorization: `token ${aliceToken}` },
    });
    expect(await rawPointer.text()).toContain(`oid sha256:${oid}`);
    expect(fs.existsSync(path.join(server.dataDir, 'lfs', 'blobs', oid.slice(0, 2), oid.slice(2, 4), oid))).toBe(true);

    const fresh = path.join(sandbox.dir, 'fresh');
    const clone = await git([
      'clone',
      ...LFS_FILTERS.flatMap((c) => ['-c', c]),
      cloneUrl(server.url, 'alice/assets.git', bob.name, bobToken),
      fresh,
    ]);
    expect(clone.status).toBe(0);
    expect(fs.readFileSync(path.join(fresh, 'big.bin')).equals(content)).toBe(true);
    const ls = await git(['lfs', 'ls-files', '--long'], fresh);
    expect(ls.stdout).toContain(oid);

    // The media API serves the object's bytes for the pointer.
    const media = await fetch(new URL('api/v1/repos/alice/assets/media/big.bin', server.url));
    expect(media.status).toBe(200);
    expect(Buffer.from(await media.arrayBuffer()).equals(content)).toBe(true);
  });

  it('locks a file, lists it, refuses another user’s unlock without force, and unlocks', async () => {
    const work = path.join(sandbox.dir, 'work');
    const bobs = path.join(sandbox.dir, 'fresh');
    const lock = await git(['lfs', 'lock', 'big.bin'], work);
    expect(lock.stdout).toMatch(/Locked big\.bin/);
    const locks = await git(['lfs', 'locks'], bobs);
    expect(locks.stdout).toMatch(/big\.bin\s+alice\s+ID:\d+/);
    const refused = await sandbox.git(['lfs', 'unlock', 'big.bin'], bobs);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr + refused.stdout).toMatch(/another user's/);
    const unlock = await git(['lfs', 'unlock', 'big.bin'], work);
    expect(unlock.stdout).toMatch(/Unlocked big\.bin/);
    expect((await git(['lfs', 'locks'], bobs)).stdout.trim()).toBe('');
  });
});
