import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface GitRun {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * A scratch area for git clients: its own HOME, so no user or system config leaks in. git runs
 * asynchronously: the server under test lives in this process and must keep serving meanwhile.
 */
export function gitSandbox(): { dir: string; git: (args: string[], cwd?: string) => Promise<GitRun>; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-git-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Tester',
    GIT_AUTHOR_EMAIL: 'tester@example.com',
    GIT_COMMITTER_NAME: 'Tester',
    GIT_COMMITTER_EMAIL: 'tester@example.com',
  };
  const git = (args: string[], cwd = dir): Promise<GitRun> =>
    new Promise((resolve) => {
      const child = spawn('git', ['-c', 'init.defaultBranch=main', '-c', 'advice.detachedHead=false', ...args], { cwd, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => child.kill(), 60000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ status: code ?? -1, stdout, stderr });
      });
    });
  return { dir, git, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** http://user:secret@host/owner/repo.git for a server URL. */
export function cloneUrl(serverUrl: string, repoPath: string, user?: string, secret?: string): string {
  const url = new URL(repoPath, serverUrl);
  if (user) url.username = encodeURIComponent(user);
  if (secret) url.password = encodeURIComponent(secret);
  return url.toString();
}
