import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * Protected branches decide every way of moving a ref (pulls/ref-protection.ts): a git push, the
 * contents API, branch creation and deletion, updating a pull request's head branch and deleting it
 * after a merge. bob writes to the repository but is not in the push whitelist; carol is.
 */
type User = { name: string; password: string; id: number };
let server: TestServer;
let tokens: Record<'alice' | 'bob' | 'carol', string>;
let sandbox: ReturnType<typeof gitSandbox>;
const dirs: Record<string, string> = {};
/** The pull request from the protected `feature` into `dev`. */
let featurePull: number;

const R = '/repos/alice/refs';
const content = (text: string) => Buffer.from(text).toString('base64');

async function git(who: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return sandbox.git(args, dirs[who]);
}

/** Commit a file on top of origin/<from> in a clone and push it to `to`. */
async function commitAndPush(who: string, from: string, to: string, file: string): Promise<{ status: number; stderr: string }> {
  await git(who, ['fetch', '-q', 'origin']);
  await git(who, ['checkout', '-q', '-B', `work-${to}`, `origin/${from}`]);
  fs.writeFileSync(path.join(dirs[who], file), `${file} ${Math.random()}\n`);
  await git(who, ['add', file]);
  expect((await git(who, ['commit', '-q', '-m', `change ${file}`])).status).toBe(0);
  return git(who, ['push', '-q', 'origin', `HEAD:refs/heads/${to}`]);
}

const branchTip = async (name: string): Promise<string | null> => {
  const res = await server.api('GET', `${R}/branches/${name}`, { token: tokens.alice });
  return res.status === 200 ? res.body.commit.id : null;
};

beforeAll(async () => {
  server = await startServer();
  const users: Record<string, User> = {};
  for (const name of ['alice', 'bob', 'carol']) users[name] = await server.user(name);
  tokens = {
    alice: await server.token(users.alice, ['delete:repository']),
    bob: await server.token(users.bob, ['delete:repository']),
    carol: await server.token(users.carol, ['delete:repository']),
  };
  expect((await server.api('POST', '/user/repos', { token: tokens.alice, body: { name: 'refs', auto_init: true } })).status).toBe(201);
  for (const who of ['bob', 'carol']) {
    expect((await server.api('PUT', `${R}/collaborators/${who}`, { token: tokens.alice, body: { permission: 'write' } })).status).toBe(204);
  }
  sandbox = gitSandbox();
  for (const who of ['alice', 'bob', 'carol'] as const) {
    dirs[who] = path.join(sandbox.dir, who);
    expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/refs.git', who, tokens[who]), dirs[who]])).status).toBe(0);
  }
  // dev: an unprotected base; feature: a protected branch used as a pull request's head.
  expect((await commitAndPush('alice', 'main', 'dev', 'dev.txt')).status).toBe(0);
  expect((await commitAndPush('alice', 'main', 'feature', 'feature.txt')).status).toBe(0);
  for (const rule_name of ['main', 'feature', 'release/*']) {
    const rule = await server.api('POST', `${R}/branch_protections`, {
      token: tokens.alice,
      body: { rule_name, enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['carol'] },
    });
    expect(rule.status).toBe(201);
  }
});
afterAll(async () => {
  sandbox?.cleanup();
  await server?.close();
});

describe('a writer outside the push whitelist', () => {
  test('git push to the protected branch is refused; the whitelisted user pushes', async () => {
    const before = await branchTip('main');
    const refused = await commitAndPush('bob', 'main', 'main', 'bob.txt');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('branch main is protected: you are not allowed to push to it');
    expect(await branchTip('main')).toBe(before);
    // Creating a branch a glob rule covers is a push to a protected branch too.
    const created = await git('bob', ['push', '-q', 'origin', 'HEAD:refs/heads/release/1']);
    expect(created.status).not.toBe(0);
    expect(created.stderr).toContain('branch release/1 is protected');
    expect(await branchTip('release/1')).toBeNull();

    expect((await commitAndPush('carol', 'main', 'main', 'carol.txt')).status).toBe(0);
    expect(await branchTip('main')).not.toBe(before);
  });

  test('the contents API refuses creating, updating and deleting files on the protected branch', async () => {
    const file = await server.api('POST', `${R}/contents/guarded.txt`, {
      token: tokens.carol,
      body: { content: content('one\n'), message: 'add' },
    });
    expect(file.status).toBe(201);
    const sha = file.body.content.sha;

    const calls: Array<[string, string, Record<string, unknown>]> = [
      ['POST', `${R}/contents/bob.txt`, { content: content('x\n'), message: 'add' }],
      ['PUT', `${R}/contents/guarded.txt`, { content: content('two\n'), sha, message: 'edit' }],
      ['DELETE', `${R}/contents/guarded.txt`, { sha, message: 'remove' }],
      ['POST', `${R}/contents`, { files: [{ operation: 'create', path: 'many.txt', content: content('x\n') }], message: 'many' }],
      // A new branch a rule covers is refused as well.
      ['POST', `${R}/contents/rel.txt`, { content: content('x\n'), message: 'add', new_branch: 'release/2' }],
    ];
    for (const [method, url, body] of calls) {
      const res = await server.api(method, url, { token: tokens.bob, body });
      expect([method, url, res.status]).toEqual([method, url, 403]);
      expect(res.body.message).toContain('protected branch');
    }
    // Repository admins get no exception (Gitea 1.20): alice owns the repository.
    expect(
      (await server.api('POST', `${R}/contents/alice.txt`, { token: tokens.alice, body: { content: content('x\n'), message: 'add' } }))
        .status,
    ).toBe(403);
    expect(await branchTip('release/2')).toBeNull();

    const edited = await server.api('PUT', `${R}/contents/guarded.txt`, {
      token: tokens.carol,
      body: { content: content('two\n'), sha, message: 'edit' },
    });
    expect(edited.status).toBe(200);
    expect(
      (
        await server.api('DELETE', `${R}/contents/guarded.txt`, {
          token: tokens.carol,
          body: { sha: edited.body.content.sha, message: 'remove' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.api('POST', `${R}/contents/rel.txt`, {
          token: tokens.carol,
          body: { content: content('x\n'), message: 'add', new_branch: 'release/2' },
        })
      ).status,
    ).toBe(201);
  });

  test('creating a branch a rule covers needs the right to push to it; deleting a protected branch is refused to everyone', async () => {
    const bob = await server.api('POST', `${R}/branches`, {
      token: tokens.bob,
      body: { new_branch_name: 'release/3', old_branch_name: 'dev' },
    });
    expect(bob.status).toBe(403);
    expect(await branchTip('release/3')).toBeNull();
    expect(
      (await server.api('POST', `${R}/branches`, { token: tokens.carol, body: { new_branch_name: 'release/3', old_branch_name: 'dev' } }))
        .status,
    ).toBe(201);
    // Unprotected names stay open to every writer.
    expect(
      (await server.api('POST', `${R}/branches`, { token: tokens.bob, body: { new_branch_name: 'bob-work', old_branch_name: 'dev' } }))
        .status,
    ).toBe(201);

    for (const who of ['bob', 'carol', 'alice'] as const) {
      const res = await server.api('DELETE', `${R}/branches/release/3`, { token: tokens[who] });
      expect([who, res.status]).toEqual([who, 403]);
    }
    expect(await branchTip('release/3')).not.toBeNull();
    // Nor through git.
    const deleted = await git('carol', ['push', '-q', 'origin', ':refs/heads/release/3']);
    expect(deleted.status).not.toBe(0);
    expect(deleted.stderr).toContain('cannot be deleted');
  });

  test(
    'updating a pull request whose head is protected needs the right to push to the head; a ' + 'rebase (force push) is refused',
    async () => {
      const pr = await server.api('POST', `${R}/pulls`, {
        token: tokens.alice,
        body: { title: 'protected head', head: 'feature', base: 'dev' },
      });
      expect(pr.status).toBe(201);
      const n = (featurePull = pr.body.number);
      const before = await branchTip('feature');
      expect((await server.api('POST', `${R}/pulls/${n}/update?style=merge`, { token: tokens.bob })).status).toBe(403);
      expect((await server.api('POST', `${R}/pulls/${n}/update?style=rebase`, { token: tokens.carol })).status).toBe(403);
      expect(await branchTip('feature')).toBe(before);
      expect((await server.api('POST', `${R}/pulls/${n}/update?style=merge`, { token: tokens.carol })).status).toBe(200);
      expect(await branchTip('feature')).not.toBe(before);
    },
  );

  test('merging with delete_branch_after_merge keeps a protected head branch; the merge stands', async () => {
    const merged = await server.api('POST', `${R}/pulls/${featurePull}/merge`, {
      token: tokens.bob,
      body: { Do: 'merge', delete_branch_after_merge: true },
    });
    expect(merged.status).toBe(200);
    expect((await server.api('GET', `${R}/pulls/${featurePull}`, { token: tokens.bob })).body.merged).toBe(true);
    expect(await branchTip('feature')).not.toBeNull();

    // An unprotected head branch is deleted as asked.
    expect((await commitAndPush('bob', 'dev', 'bob-topic', 'topic.txt')).status).toBe(0);
    const other = await server.api('POST', `${R}/pulls`, { token: tokens.bob, body: { title: 'topic', head: 'bob-topic', base: 'dev' } });
    expect(other.status).toBe(201);
    expect(
      (
        await server.api('POST', `${R}/pulls/${other.body.number}/merge`, {
          token: tokens.bob,
          body: { Do: 'merge', delete_branch_after_merge: true },
        })
      ).status,
    ).toBe(200);
    expect(await branchTip('bob-topic')).toBeNull();
  });
});
