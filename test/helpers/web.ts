import type { TestServer } from './server';

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
