import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { firstMatchingRule, ruleMatches, ruleRegex } from '../core/kernel/src/protection/branch-protection-store';

type User = { name: string; password: string; id: number };
let server: TestServer;
let alice: User;
let bob: User;
let carol: User;
let aliceToken: string;
let bobToken: string;
let carolToken: string;
let sandbox: ReturnType<typeof gitSandbox>;
let aliceDir: string;
let bobDir: string;

const BP = '/repos/alice/guarded/branch_protections';

/** Commit a file in a clone and push `refspec`; returns git's exit status and stderr. */
async function commitAndPush(dir: string, file: string, refspec: string[]): Promise<{ status: number; stderr: string }> {
  fs.writeFileSync(path.join(dir, file), `${file} ${Math.random()}\n`);
  await sandbox.git(['add', file], dir);
  expect((await sandbox.git(['commit', '-q', '-m', `change ${file}`], dir)).status).toBe(0);
  const push = await sandbox.git(['push', '-q', 'origin', ...refspec], dir);
  return { status: push.status, stderr: push.stderr };
}

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  carol = await server.user('carol');
  aliceToken = await server.token(alice, ['delete:repository', 'read:user']);
  bobToken = await server.token(bob, ['delete:repository']);
  carolToken = await server.token(carol, ['write:repository']);
  expect((await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'guarded', auto_init: true } })).status).toBe(201);
  for (const who of ['bob', 'carol']) {
    expect(
      (await server.api('PUT', `/repos/alice/guarded/collaborators/${who}`, { token: aliceToken, body: { permission: 'write' } })).status,
    ).toBe(204);
  }
  sandbox = gitSandbox();
  aliceDir = path.join(sandbox.dir, 'alice');
  bobDir = path.join(sandbox.dir, 'bob');
  expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/guarded.git', 'alice', aliceToken), aliceDir])).status).toBe(0);
  expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/guarded.git', 'bob', bobToken), bobDir])).status).toBe(0);
  expect((await commitAndPush(aliceDir, 'dev.txt', ['HEAD:refs/heads/dev'])).status).toBe(0);
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

describe('rule names', () => {
  test('globs follow Gitea: * stays within a path segment, ** crosses them, ? one character, {a,b}, [..]', () => {
    expect(ruleMatches({ rule_name: 'release/*' }, 'release/1.0')).toBe(true);
    expect(ruleMatches({ rule_name: 'release/*' }, 'release/1.0/hotfix')).toBe(false);
    expect(ruleMatches({ rule_name: 'release/**' }, 'release/1.0/hotfix')).toBe(true);
    expect(ruleMatches({ rule_name: 'v?' }, 'v1')).toBe(true);
    expect(ruleMatches({ rule_name: 'v?' }, 'v10')).toBe(false);
    expect(ruleMatches({ rule_name: '{main,master}' }, 'master')).toBe(true);
    expect(ruleMatches({ rule_name: '{main,master}' }, 'mainx')).toBe(false);
    expect(ruleMatches({ rule_name: 'v[0-9].x' }, 'v3.x')).toBe(true);
    expect(ruleMatches({ rule_name: 'v[!0-9].x' }, 'v3.x')).toBe(false);
    // A dot is literal, not "any character"; plain names match only themselves.
    expect(ruleMatches({ rule_name: 'v1.*' }, 'v1x2')).toBe(false);
    expect(ruleMatches({ rule_name: 'main' }, 'main2')).toBe(false);
    expect(ruleRegex('a.b/*')).toBe('^(a[.]b/[^/]*)$');
  });

  test('an exact rule takes precedence over an older glob', () => {
    const rules = [
      { rule_name: '*', id: 1 },
      { rule_name: 'main', id: 2 },
    ];
    expect(firstMatchingRule(rules, 'main')?.id).toBe(2);
    expect(firstMatchingRule(rules, 'dev')?.id).toBe(1);
    expect(firstMatchingRule(rules, 'a/b')).toBeUndefined();
  });
});

describe('managing branch protections', () => {
  test('create, read, list, edit and delete a rule; Gitea BranchProtection JSON', async () => {
    const res = await server.api('POST', BP, {
      token: aliceToken,
      body: {
        rule_name: 'dev',
        enable_push: true,
        enable_push_whitelist: true,
        push_whitelist_usernames: ['bob'],
        required_approvals: 2,
        enable_status_check: true,
        status_check_contexts: ['ci/build'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      rule_name: 'dev',
      branch_name: 'dev',
      enable_push: true,
      enable_push_whitelist: true,
      push_whitelist_usernames: ['bob'],
      push_whitelist_teams: [],
      enable_merge_whitelist: false,
      merge_whitelist_usernames: [],
      required_approvals: 2,
      enable_status_check: true,
      status_check_contexts: ['ci/build'],
      block_on_rejected_reviews: false,
      dismiss_stale_approvals: false,
      approvals_whitelist_username: [],
      protected_file_patterns: '',
    });
    expect(typeof res.body.created_at).toBe('string');

    expect((await server.api('GET', `${BP}/dev`, { token: aliceToken })).body.push_whitelist_usernames).toEqual(['bob']);
    const edited = await server.api('PATCH', `${BP}/dev`, {
      token: aliceToken,
      body: { required_approvals: 1, push_whitelist_usernames: ['bob', 'carol'] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      required_approvals: 1,
      push_whitelist_usernames: ['bob', 'carol'],
      enable_status_check: true,
      status_check_contexts: ['ci/build'],
    });
    const list = await server.api('GET', BP, { token: aliceToken });
    expect(list.status).toBe(200);
    expect(list.body.map((r: { rule_name: string }) => r.rule_name)).toEqual(['dev']);

    expect((await server.api('DELETE', `${BP}/dev`, { token: aliceToken })).status).toBe(204);
    expect((await server.api('GET', `${BP}/dev`, { token: aliceToken })).status).toBe(404);
    expect((await server.api('DELETE', `${BP}/dev`, { token: aliceToken })).status).toBe(404);
  });

  test('duplicates are 403, unknown users and teams 422; neither a glob nor a plain rule needs an existing branch', async () => {
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'release/*' } })).status).toBe(201);
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'release/*' } })).status).toBe(403);
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'no-such-branch' } })).status).toBe(201);
    expect((await server.api('DELETE', `${BP}/no-such-branch`, { token: aliceToken })).status).toBe(204);
    const invalid = await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'bad..name' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toContain('invalid branch name');
    expect(
      (await server.api('POST', BP, { token: aliceToken, body: { branch_name: 'dev', push_whitelist_usernames: ['nobody'] } })).status,
    ).toBe(422);
    expect(
      (await server.api('POST', BP, { token: aliceToken, body: { branch_name: 'dev', merge_whitelist_teams: ['devs'] } })).status,
    ).toBe(422);
    expect((await server.api('POST', BP, { token: aliceToken, body: { required_approvals: 'two' } })).status).toBe(422);
    expect((await server.api('GET', BP, { token: aliceToken })).body.map((r: { rule_name: string }) => r.rule_name)).toEqual(['release/*']);
    expect((await server.api('DELETE', `${BP}/${encodeURIComponent('release/*')}`, { token: aliceToken })).status).toBe(204);
  });

  test('only repository admins manage rules', async () => {
    expect((await server.api('GET', BP, { token: bobToken })).status).toBe(403);
    expect((await server.api('POST', BP, { token: bobToken, body: { rule_name: 'main' } })).status).toBe(403);
    expect((await server.api('GET', BP)).status).toBe(401);
  });
});

describe('what a rule does', () => {
  afterEach(async () => {
    for (const rule of (await server.api('GET', BP, { token: aliceToken })).body) {
      await server.api('DELETE', `${BP}/${encodeURIComponent(rule.rule_name)}`, { token: aliceToken });
    }
  });

  test('the Branch JSON shows the governing rule and what the viewer may do', async () => {
    expect(
      (
        await server.api('POST', BP, {
          token: aliceToken,
          body: {
            rule_name: 'main',
            enable_push: true,
            enable_push_whitelist: true,
            push_whitelist_usernames: ['bob'],
            enable_merge_whitelist: true,
            merge_whitelist_usernames: ['carol'],
            required_approvals: 1,
            enable_status_check: true,
            status_check_contexts: ['ci'],
          },
        })
      ).status,
    ).toBe(201);
    const asBob = await server.api('GET', '/repos/alice/guarded/branches/main', { token: bobToken });
    expect(asBob.body).toMatchObject({
      name: 'main',
      protected: true,
      required_approvals: 1,
      enable_status_check: true,
      status_check_contexts: ['ci'],
      user_can_push: true,
      user_can_merge: false,
      effective_branch_protection_name: 'main',
    });
    const asCarol = await server.api('GET', '/repos/alice/guarded/branches/main', { token: carolToken });
    expect(asCarol.body).toMatchObject({ user_can_push: false, user_can_merge: true });
    const anonymous = await server.api('GET', '/repos/alice/guarded/branches');
    const byName = Object.fromEntries(anonymous.body.map((b: { name: string }) => [b.name, b]));
    expect(byName.main).toMatchObject({ protected: true, user_can_push: false, user_can_merge: false });
    expect(byName.dev).toMatchObject({
      protected: false,
      required_approvals: 0,
      status_check_contexts: [],
      effective_branch_protection_name: '',
    });
  });

  test('enable_push false refuses every push to the branch; other branches stay open', async () => {
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'main' } })).status).toBe(201);
    await sandbox.git(['pull', '-q', 'origin', 'main'], aliceDir);
    const before = (await server.api('GET', '/repos/alice/guarded/branches/main', { token: aliceToken })).body.commit.id;
    const refused = await commitAndPush(aliceDir, 'a.txt', ['HEAD:refs/heads/main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('branch main is protected: you are not allowed to push to it');
    expect((await server.api('GET', '/repos/alice/guarded/branches/main', { token: aliceToken })).body.commit.id).toBe(before);
    // The same commit goes to an unprotected branch.
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/topic'], aliceDir)).status).toBe(0);
    await sandbox.git(['reset', '-q', '--hard', 'origin/main'], aliceDir);
  });

  test('a push whitelist admits its users only; protected branches refuse force pushes and deletion', async () => {
    expect(
      (
        await server.api('POST', BP, {
          token: aliceToken,
          body: { rule_name: 'dev', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['bob'] },
        })
      ).status,
    ).toBe(201);
    await sandbox.git(['fetch', '-q', 'origin'], bobDir);
    await sandbox.git(['checkout', '-q', '-B', 'dev', 'origin/dev'], bobDir);
    expect(await commitAndPush(bobDir, 'b.txt', ['dev'])).toEqual({ status: 0, stderr: '' });

    await sandbox.git(['fetch', '-q', 'origin'], aliceDir);
    await sandbox.git(['checkout', '-q', '-B', 'dev', 'origin/dev'], aliceDir);
    const alicePush = await commitAndPush(aliceDir, 'c.txt', ['dev']);
    expect(alicePush.status).not.toBe(0);
    expect(alicePush.stderr).toContain('not allowed to push');

    // Bob rewrites history: refused even though he may push.
    await sandbox.git(['commit', '-q', '--amend', '-m', 'rewritten'], bobDir);
    const force = await sandbox.git(['push', '-q', '-f', 'origin', 'dev'], bobDir);
    expect(force.status).not.toBe(0);
    expect(force.stderr).toContain('protected from force push');
    const del = await sandbox.git(['push', '-q', 'origin', ':dev'], bobDir);
    expect(del.status).not.toBe(0);
    expect(del.stderr).toContain('cannot be deleted');
    expect((await server.api('DELETE', '/repos/alice/guarded/branches/dev', { token: aliceToken })).status).toBe(403);
    expect((await server.api('GET', '/repos/alice/guarded/branches/dev', { token: aliceToken })).status).toBe(200);
  });

  test('file changes through the contents API obey the push rule of their target branch', async () => {
    expect(
      (
        await server.api('POST', BP, {
          token: aliceToken,
          body: { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['bob'] },
        })
      ).status,
    ).toBe(201);
    const content = Buffer.from('hello\n').toString('base64');
    const refused = await server.api('POST', '/repos/alice/guarded/contents/api-a.txt', {
      token: aliceToken,
      body: { content, message: 'add' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('protected branch');
    expect(
      (await server.api('POST', '/repos/alice/guarded/contents/api-b.txt', { token: bobToken, body: { content, message: 'add' } })).status,
    ).toBe(201);
    // Into a new, unprotected branch it is fine.
    expect(
      (
        await server.api('POST', '/repos/alice/guarded/contents/api-c.txt', {
          token: aliceToken,
          body: { content, message: 'add', new_branch: 'api-work' },
        })
      ).status,
    ).toBe(201);
  });

  test('glob rules protect the branches they match', async () => {
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'release/*' } })).status).toBe(201);
    await sandbox.git(['checkout', '-q', '-B', 'work', 'origin/main'], aliceDir);
    const refused = await commitAndPush(aliceDir, 'r.txt', ['HEAD:refs/heads/release/1.0']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('branch release/1.0 is protected');
    // `*` does not cross '/': release/1.0/rc is not protected by release/*.
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/release/1.0/rc'], aliceDir)).status).toBe(0);
    const branch = await server.api('GET', '/repos/alice/guarded/branches/release/1.0/rc', { token: aliceToken });
    expect(branch.body).toMatchObject({ protected: false, user_can_push: true });
  });
});

describe('rules for branches that do not exist yet', () => {
  afterEach(async () => {
    for (const rule of (await server.api('GET', BP, { token: aliceToken })).body as Array<{ rule_name: string }>) {
      await server.api('DELETE', `${BP}/${encodeURIComponent(rule.rule_name)}`, { token: aliceToken });
    }
  });

  test('a glob rule protects a branch pushed later: a real git push is refused, the API refuses creating it too', async () => {
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'release/*' } })).status).toBe(201);
    const push = await commitAndPush(aliceDir, 'rel.txt', ['HEAD:refs/heads/release/1.0']);
    expect(push.status).not.toBe(0);
    expect(push.stderr).toContain('branch release/1.0 is protected');
    expect((await server.api('GET', '/repos/alice/guarded/branches/release%2F1.0', { token: aliceToken })).status).toBe(404);
    const viaApi = await server.api('POST', '/repos/alice/guarded/branches', {
      token: aliceToken,
      body: { new_branch_name: 'release/2.0', old_branch_name: 'main' },
    });
    expect(viaApi.status).toBe(403);
    // `*` stays within a segment: release/1.0/x is not governed by release/*.
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/release/1.0/x'], aliceDir)).status).toBe(0);
  });

  test('a plain rule for a branch not yet pushed governs it once pushed; an exact rule wins over a glob', async () => {
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'future' } })).status).toBe(201);
    const refused = await commitAndPush(aliceDir, 'future.txt', ['HEAD:refs/heads/future']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('branch future is protected');
    expect((await server.api('GET', '/repos/alice/guarded/branches/future', { token: aliceToken })).status).toBe(404);
    expect((await server.api('DELETE', `${BP}/future`, { token: aliceToken })).status).toBe(204);
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/future'], aliceDir)).status).toBe(0);
    // The glob lets writers push; the exact rule for one branch under it does not.
    const glob = await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'feat/**', enable_push: true } });
    expect(glob.status).toBe(201);
    expect((await server.api('POST', BP, { token: aliceToken, body: { rule_name: 'feat/locked' } })).status).toBe(201);
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/feat/a/b'], aliceDir)).status).toBe(0);
    const locked = await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/feat/locked'], aliceDir);
    expect(locked.status).not.toBe(0);
    expect(locked.stderr).toContain('branch feat/locked is protected');
    const branch = await server.api('GET', '/repos/alice/guarded/branches/feat%2Fa%2Fb', { token: aliceToken });
    expect(branch.body).toMatchObject({ name: 'feat/a/b', protected: true });
  });
});
