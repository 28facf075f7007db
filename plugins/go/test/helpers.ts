import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { moduleZip } from '../src/zip-writer';
import { cloneUrl, gitSandbox, runCommand, type CommandOptions, type CommandResult, type TestServer } from '@hearth/testing';

/** Shared by the Go proxy tests: module zips, Go's `h1:` hashes and running the real go command. */
export { moduleZip };

export const GO_PACKAGE_HINT = 'the go command is missing: install the Debian package golang-go (scripts/setup-test-deps.sh does)';

/** Go's dirhash "h1:" hash of a file tree: sha256 of the sorted "<sha256>  <name>\n" lines, base64. */
export function h1(files: Record<string, Buffer | string>): string {
  const summary = Object.keys(files)
    .sort()
    .map((name) => `${crypto.createHash('sha256').update(files[name]).digest('hex')}  ${name}\n`)
    .join('');
  return `h1:${crypto.createHash('sha256').update(summary).digest('base64')}`;
}

/** The `h1:` hash go.sum pins for a module zip's file tree. */
export function zipHash(modulePath: string, version: string, files: Record<string, string | Buffer>): string {
  return h1(Object.fromEntries(Object.entries(files).map(([name, content]) => [`${modulePath}@${version}/${name}`, content])));
}

export type RunResult = CommandResult;

/** Run a command asynchronously (the server under test lives in this process: never spawnSync). */
export const run = (cmd: string, args: string[], options: CommandOptions & { cwd: string; env: NodeJS.ProcessEnv }) =>
  runCommand(cmd, args, { timeoutMs: 60_000, ...options });

export { mustSucceed } from '@hearth/testing';

/**
 * The environment of a throwaway go: its own HOME, GOPATH, module cache and build cache under
 * `home`, the proxy and nothing else (no checksum database, no direct VCS fetches), and the
 * user's go env file ignored.
 */
export function goEnv(home: string, proxy: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  fs.mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GOENV: 'off',
    GOPATH: path.join(home, 'gopath'),
    GOMODCACHE: path.join(home, 'modcache'),
    GOCACHE: path.join(home, 'gocache'),
    GOPROXY: proxy,
    GOSUMDB: 'off',
    GONOPROXY: 'none',
    GOPRIVATE: '',
    GOFLAGS: '-mod=mod',
    GO111MODULE: 'on',
    CGO_ENABLED: '0',
    ...extra,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

export async function goAvailable(): Promise<boolean> {
  try {
    return (await run('go', ['version'], { cwd: '/', env: { PATH: process.env.PATH }, timeoutMs: 20_000 })).code === 0;
  } catch {
    return false;
  }
}

/**
 * A module repository pushed to the test server: `files` committed on `main` of `{owner}/{repo}`
 * (created through the API) and then `tags` pushed; `commit` adds later commits and tags.
 */
export async function moduleRepository(
  server: TestServer,
  owner: { name: string; password: string },
  repo: string,
  options: { private?: boolean } = {},
) {
  const created = await server.api('POST', '/user/repos', {
    basic: [owner.name, owner.password],
    body: { name: repo, private: !!options.private },
  });
  if (created.status !== 201) throw new Error(`creating ${owner.name}/${repo}: ${created.status} ${created.text}`);
  const sandbox = gitSandbox();
  const work = path.join(sandbox.dir, repo);
  const git = async (args: string[]) => {
    const r = await sandbox.git(args, work);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  fs.mkdirSync(work, { recursive: true });
  await git(['init', '-q']);
  await git(['remote', 'add', 'origin', cloneUrl(server.url, `${owner.name}/${repo}.git`, owner.name, owner.password)]);
  /** Replace the work tree's files (symbolic links as `{ link: target }`), commit, tag each of `tags`, push. */
  const commit = async (files: Record<string, string | Buffer | { link: string }>, tags: string[], replace = true) => {
    if (replace) for (const entry of fs.readdirSync(work)) if (entry !== '.git') fs.rmSync(path.join(work, entry), { recursive: true });
    for (const [name, content] of Object.entries(files)) {
      const target = path.join(work, name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (typeof content === 'object' && !Buffer.isBuffer(content)) fs.symlinkSync(content.link, target);
      else fs.writeFileSync(target, content);
    }
    await git(['add', '-A']);
    await git(['commit', '-q', '--allow-empty', '-m', `commit for ${tags.join(', ') || 'no tag'}`]);
    for (const tag of tags) await git(['tag', tag]);
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/main', ...tags.map((t) => `refs/tags/${t}`)]);
    return (await git(['rev-parse', 'HEAD'])).trim();
  };
  return { commit, git, cleanup: sandbox.cleanup };
}

/**
 * The module path prefix the tests configure (`modulePathPrefix`): the test server's ROOT_URL host
 * is `localhost`, which go refuses as a module path's first element (it has no dot).
 */
export const MODULE_PREFIX = 'forge.hearth.test';
