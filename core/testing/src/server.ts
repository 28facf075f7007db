import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hearth, deepMerge } from '@hearth/core';
import { createTestDatabase, type TestDatabase } from './database';

export const ADMIN = { name: 'forge-admin', password: 'admin-password-1', email: 'admin@example.com' };

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  basic?: [string, string];
  token?: string;
  /** How to send the token; default `Authorization: token X`. */
  tokenVia?: 'token' | 'bearer' | 'query' | 'access_token';
  body?: unknown;
  /** A raw body string (sent as-is). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  kernel: Hearth;
  dataDir: string;
  /** Call `/api/v1` + path (or an absolute site path starting with '//'). */
  api<T = any>(method: string, apiPath: string, options?: CallOptions): Promise<Reply<T>>;
  /** Create a user directly through the kernel (fast), returning its name and password. */
  user(
    name: string,
    options?: { admin?: boolean; visibility?: 'public' | 'limited' | 'private' },
  ): Promise<{ name: string; password: string; id: number }>;
  /** Create a token over HTTP with basic auth, returning the secret. */
  token(user: { name: string; password: string }, scopes: string[], name?: string): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Collect the server's log: each JSON log line (pino's format, one object per line) is pushed
   * here instead of being written to stdout. The level is then 'warn' unless HEARTH_TEST_LOG_LEVEL
   * or the overrides' log.LEVEL says otherwise, so `logLines` holds warnings and errors.
   */
  logLines?: string[];
}

let counter = 0;

/**
 * Start the real server on 127.0.0.1 with an ephemeral port, a temporary data directory and a
 * fresh database (see createTestDatabase), plus a site admin ADMIN. `overrides` is deep-merged
 * into the configuration; the process environment is not read, so tests are reproducible.
 */
export async function startServer(overrides: Record<string, unknown> = {}, options: StartOptions = {}): Promise<TestServer> {
  const { logLines } = options;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `hearth-test-${++counter}-`));
  const database: TestDatabase = await createTestDatabase();
  const base = {
    server: { HTTP_PORT: 0, HTTP_ADDR: '127.0.0.1', DATA_DIR: dataDir },
    database: { URL: database.url },
    log: { LEVEL: process.env.HEARTH_TEST_LOG_LEVEL ?? (options.logLines ? 'warn' : 'silent') },
    // Real scrypt, at the lowest allowed cost, so a suite full of basic-auth calls stays quick.
    security: { SCRYPT_COST: 1024 },
    // The SSH server (on by default) on a free loopback port, so test servers never collide on 2222.
    plugins: { ssh: { settings: { SSH_PORT: 0, SSH_LISTEN_HOST: '127.0.0.1' } } },
  };
  let kernel: Hearth;
  try {
    kernel = await Hearth.create({
      config: { env: {}, overrides: deepMerge(base, overrides) },
      env: { HEARTH_ADMIN_USERNAME: ADMIN.name, HEARTH_ADMIN_PASSWORD: ADMIN.password, HEARTH_ADMIN_EMAIL: ADMIN.email },
      logDestination: logLines ? { write: (chunk: string) => void logLines.push(...chunk.split('\n').filter(Boolean)) } : undefined,
    });
  } catch (err) {
    await database.drop();
    throw err;
  }
  const url = await kernel.listen();

  const api = async <T>(method: string, apiPath: string, options: CallOptions = {}): Promise<Reply<T>> => {
    const target = new URL(apiPath.startsWith('//') ? apiPath.slice(2) : `api/v1${apiPath}`, url);
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.basic) headers.Authorization = `Basic ${Buffer.from(options.basic.join(':')).toString('base64')}`;
    if (options.token) {
      const via = options.tokenVia ?? 'token';
      if (via === 'token') headers.Authorization = `token ${options.token}`;
      else if (via === 'bearer') headers.Authorization = `Bearer ${options.token}`;
      else target.searchParams.set(via === 'query' ? 'token' : 'access_token', options.token);
    }
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(target, { method, headers, body });
    const text = await res.text();
    let parsed: any = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  return {
    url,
    kernel,
    dataDir,
    api,
    async user(name, options = {}) {
      const password = `${name}-password-1`;
      const row = await kernel.users.create(
        { name, password, email: `${name.toLowerCase()}@example.com`, isAdmin: options.admin, visibility: options.visibility },
        null,
      );
      return { name, password, id: row.id };
    },
    async token(user, scopes, name = `token-${Math.random().toString(36).slice(2)}`) {
      const res = await api<{ sha1: string }>('POST', `/users/${user.name}/tokens`, {
        basic: [user.name, user.password],
        body: { name, scopes },
      });
      if (res.status !== 201) throw new Error(`token creation failed: ${res.status} ${res.text}`);
      return res.body.sha1;
    },
    async close() {
      await kernel.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
