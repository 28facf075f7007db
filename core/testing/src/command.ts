import { spawn } from 'node:child_process';

/** What a command run by `runCommand` left: its exit code (null when killed), output and errors. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  /** stdout as bytes (for binary output, e.g. `tar -c -f -`). */
  stdoutBytes: Buffer;
  stderr: string;
}

export interface CommandOptions {
  cwd?: string;
  /** The whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin (which is closed either way). */
  input?: Buffer | string;
  /** Killed (SIGKILL) after this long; default 90 s. */
  timeoutMs?: number;
}

/**
 * Run a client command (apt, dnf, go, R, gpg…) asynchronously: the server under test lives in
 * the test's own process, so a synchronous spawn would block it. Rejects only when the command
 * cannot start (the message names it); a failing command resolves with its code.
 */
export function runCommand(cmd: string, args: string[], options: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(Object.assign(err, { message: `${cmd}: ${err.message}` }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  });
}

/** `result`, or an error with the command's output when it did not exit 0. */
export function mustSucceed<T extends { code: number | null; stdout: unknown; stderr: string }>(result: T, what: string): T {
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${String(result.stdout)}\n${result.stderr}`);
  return result;
}
