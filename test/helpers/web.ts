import { startServer, type TestServer } from './server';

/** A cookie jar over fetch: what a browser without JavaScript does with the web interface. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly server: TestServer) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /expires=thu, 01 jan 1970/i.test(a.trim()));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** GET a page (as a browser: Accept text/html); redirects are not followed. */
  async get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; html: string; headers: Headers }> {
    const res = await fetch(new URL(path, this.server.url), {
      headers: { Accept: 'text/html,application/xhtml+xml', Cookie: this.cookieHeader(), ...headers },
      redirect: 'manual',
    });
    this.remember(res);
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  /** GET a download with the session's cookies: status, headers and the bytes. */
  async download(path: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
    const res = await fetch(new URL(path, this.server.url), { headers: { Cookie: this.cookieHeader() }, redirect: 'manual' });
    this.remember(res);
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
  }

  /** POST a form; `_csrf` is taken from `csrfFrom` (the page the form is on) unless given. */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    options: { csrfFrom?: string; csrf?: string | null } = {},
  ): Promise<{ status: number; html: string; headers: Headers }> {
    const body = new URLSearchParams();
    const csrf = options.csrf !== undefined ? options.csrf : csrfToken((await this.get(options.csrfFrom ?? '/')).html);
    if (csrf !== null) body.append('_csrf', csrf);
    for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
    const res = await fetch(new URL(path, this.server.url), {
      method: 'POST',
      headers: { Accept: 'text/html', Cookie: this.cookieHeader(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    this.remember(res);
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  async signIn(user: { name: string; password: string }): Promise<void> {
    const res = await this.post('/user/login', { user_name: user.name, password: user.password }, { csrfFrom: '/user/login' });
    if (res.status !== 303) throw new Error(`sign-in of ${user.name} failed: ${res.status} ${res.html.slice(0, 300)}`);
  }
}

/** The CSRF token of the first form of a page. */
export function csrfToken(html: string): string {
  const match = /name="_csrf" value="([^"]*)"/.exec(html);
  if (!match) throw new Error('the page has no form with a CSRF token');
  return match[1];
}

/** The visible text of an HTML fragment, for assertions on what a person reads. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A user the test server made: its name, password and id. */
export type TestUser = { name: string; password: string; id: number };

/** How a `must` call authenticates: a token, or a user's password (basic auth). */
export type Credential = { token: string } | { name: string; password: string };

/**
 * One server for a web test file, started before its tests and closed after them (the first
 * `beforeAll`/`afterAll` of the file, so a suite's own setup can use it). `server` may be read once
 * the file's tests or hooks run.
 */
export function webServer(config: Record<string, unknown> = {}): { readonly server: TestServer } {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startServer(config);
  }, 60000);
  afterAll(async () => started?.close());
  return {
    get server() {
      if (!started) throw new Error('the web test server is not started yet: use it in a test or a hook');
      return started;
    },
  };
}

/**
 * `must(method, path, body?)`: an `/api/v1` call as `credential()` that must answer with one of
 * `expected` (any 2xx by default); its JSON body. Setup steps fail loudly instead of quietly.
 */
export function mustCall(server: () => TestServer, credential: () => Credential) {
  return async function must<T = any>(method: string, path: string, body?: unknown, expected?: number[]): Promise<T> {
    const who = credential();
    const auth = 'token' in who ? { token: who.token } : { basic: [who.name, who.password] as [string, string] };
    const res = await server().api(method, path, { ...auth, body });
    const ok = expected ? expected.includes(res.status) : res.status >= 200 && res.status < 300;
    if (!ok) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body as T;
  };
}

/** A cookie-jar client signed in as `user` through the sign-in form. */
export async function signedIn(server: TestServer, user: { name: string; password: string }): Promise<WebClient> {
  const client = new WebClient(server);
  await client.signIn(user);
  return client;
}

/** Signed-in clients for each of `users`, by name. */
export async function signedInAll(server: TestServer, users: Record<string, TestUser>): Promise<Record<string, WebClient>> {
  const clients: Record<string, WebClient> = {};
  for (const [name, user] of Object.entries(users)) clients[name] = await signedIn(server, user);
  return clients;
}
