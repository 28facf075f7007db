import { spawn, type SpawnOptions } from 'node:child_process';
import { ApiError } from '@hearth/plugin-api';

export { ZERO_ID } from '@hearth/plugin-api';

/** Server-side settings for every git process: partial clone and fetching any reachable object, as Gitea enables. */
const GIT_CONFIG = ['-c', 'uploadpack.allowFilter=true', '-c', 'uploadpack.allowAnySHA1InWant=true', '-c', 'core.quotePath=false'];

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

export interface GitOptions {
  /** The repository (bare) directory, passed as --git-dir. */
  gitDir?: string;
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** Exit codes that are answers, not failures (e.g. 1 from `rev-parse --verify --quiet`). */
  okCodes?: number[];
}

/**
 * Run git with an argument array — never through a shell — and collect its output. User input
 * only ever reaches git as separate arguments, after validation (see names.ts), and behind
 * `--end-of-options` where git would otherwise read it as an option.
 */
export function runGit(args: string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, options, ['pipe', 'pipe', 'pipe']);
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const result = { stdout: Buffer.concat(out), stderr, code: code ?? -1 };
      if (code === 0 || options.okCodes?.includes(code ?? -1)) resolve(result);
      else reject(new GitError(args, result));
    });
    child.stdin!.on('error', () => undefined); // git may exit before reading all input
    child.stdin!.end(options.input ?? '');
  });
}

/** The text output of a git command, trimmed. */
export async function gitText(args: string[], options: GitOptions = {}): Promise<string> {
  return (await runGit(args, options)).stdout.toString('utf8').trim();
}

/** Spawn git for streaming (smart HTTP, archives). */
export function spawnGit(args: string[], options: GitOptions = {}, stdio: SpawnOptions['stdio'] = ['pipe', 'pipe', 'pipe']) {
  const fullArgs = [...GIT_CONFIG, ...(options.gitDir ? ['--git-dir', options.gitDir] : []), ...args];
  return spawn('git', fullArgs, {
    stdio,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      ...options.env,
    },
  });
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult,
  ) {
    super(`git ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    this.name = 'GitError';
  }
}

/** A ref, revision or path that git could not find is the client's 404, not our 500. */
export function notFoundFromGit(err: unknown, what: string): never {
  if (err instanceof GitError) throw ApiError.notFound(`${what} does not exist`);
  throw err;
}
