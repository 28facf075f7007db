import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mustSucceed, runCommand } from '@hearth/testing';

// ---------------------------------------------------------------------------------------------
// A browser without JavaScript: cookies per origin, redirects followed by hand
// ---------------------------------------------------------------------------------------------

export interface Page {
  status: number;
  url: string;
  /** The absolute URL a redirect points to, or null. */
  location: string | null;
  html: string;
  headers: Headers;
}

/** A cookie jar over fetch for several sites (the forge and the identity provider); paths are ignored. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  cookies(origin: string): Map<string, string> {
    const key = new URL(origin).host;
    if (!this.jars.has(key)) this.jars.set(key, new Map());
    return this.jars.get(key)!;
  }

  async request(url: string, options: { method?: string; form?: Record<string, string> } = {}): Promise<Page> {
    const jar = this.cookies(url);
    const headers: Record<string, string> = {
      Accept: 'text/html,application/xhtml+xml',
      Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    let body: URLSearchParams | undefined;
    if (options.form) {
      body = new URLSearchParams(options.form);
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /expires=thu, 01 jan 1970|max-age=0\b/i.test(a.trim()));
      if (!value || expired) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    return {
      status: res.status,
      url,
      location: location ? new URL(location, url).toString() : null,
      html: await res.text(),
      headers: res.headers,
    };
  }

  get(url: string): Promise<Page> {
    return this.request(url);
  }

  post(url: string, form: Record<string, string>): Promise<Page> {
    return this.request(url, { form });
  }
}

// ---------------------------------------------------------------------------------------------
// The OpenID Connect provider (npm oidc-provider in a child process)
// ---------------------------------------------------------------------------------------------

export interface ProviderUser {
  sub: string;
  password: string;
  claims: Record<string, unknown>;
}

export type TamperMode = 'payload' | 'nonce' | 'audience' | 'issuer' | 'expired' | 'foreign-key' | 'alg-none';

export interface IdentityProvider {
  issuer: string;
  discoveryUrl: string;
  /** Add or change a user at the provider. */
  setUser(user: ProviderUser): Promise<void>;
  /** Make the provider's next token response carry a tampered ID token. */
  tamper(mode: TamperMode): Promise<void>;
  close(): Promise<void>;
}

/** Start the provider on a loopback port with one confidential client. */
export async function startIdentityProvider(client: { id: string; secret: string; redirectUris: string[] }): Promise<IdentityProvider> {
  const script = path.join(__dirname, '..', 'fixtures', 'identity', 'oidc-provider.mjs');
  const child = fork(script, [], {
    execArgv: [],
    // The provider's development notices are kept, shown only when it fails to start.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      OIDC_CLIENT_ID: client.id,
      OIDC_CLIENT_SECRET: client.secret,
      OIDC_REDIRECT_URIS: client.redirectUris.join(','),
    },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the identity provider did not start within 20 s:\n${output}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`the identity provider exited with ${code}:\n${output}`)));
    child.on('message', (m: { ready?: boolean; issuer?: string }) => {
      if (!m.ready) return;
      clearTimeout(timer);
      resolve(m.issuer!);
    });
  });
  let next = 0;
  const call = (message: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) => {
      const id = ++next;
      const onMessage = (m: { id?: number; ok?: boolean; error?: string }) => {
        if (m.id !== id) return;
        child.off('message', onMessage);
        if (m.error) reject(new Error(m.error));
        else resolve();
      };
      child.on('message', onMessage);
      child.send({ ...message, id });
    });
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    setUser: (user) => call({ op: 'user', ...user }),
    tamper: (mode) => call({ op: 'tamper', mode }),
    close: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * A browser's way through the provider up to the redirect back: the forge's `/user/oauth2/{source}`,
 * the provider's authorization endpoint, its sign-in form. Returns the callback URL (not yet
 * visited), so that a test can visit, tamper with or replay it.
 */
export async function authorizeAtProvider(browser: Browser, startUrl: string, login: { sub: string; password: string }): Promise<string> {
  let page = await browser.get(startUrl);
  if (page.status !== 303 || !page.location) throw new Error(`the sign-in did not redirect: ${page.status} ${page.html.slice(0, 300)}`);
  const forge = new URL(startUrl).origin;
  for (let hop = 0; hop < 10; hop++) {
    if (page.location && new URL(page.location).origin === forge) return page.location;
    if (page.location) page = await browser.get(page.location);
    else if (page.status === 200 && /name="login"/.test(page.html)) {
      const action = new URL(/action="([^"]+)"/.exec(page.html)![1], page.url).toString();
      page = await browser.post(action, { login: login.sub, password: login.password });
    } else throw new Error(`the provider answered ${page.status}: ${page.html.slice(0, 300)}`);
  }
  throw new Error('too many redirects at the provider');
}

// ---------------------------------------------------------------------------------------------
// A throwaway OpenLDAP server (Debian's slapd)
// ---------------------------------------------------------------------------------------------

export interface LdapServer {
  url: string;
  /** The same directory over TLS from the first byte (a self-signed certificate for 127.0.0.1); StartTLS works on `url`. */
  ldapsUrl: string;
  /** The directory's administrator (its rootdn), for ldapmodify. */
  adminDn: string;
  adminPassword: string;
  /** Apply an LDIF change (ldapmodify). */
  modify(ldif: string): Promise<void>;
  close(): Promise<void>;
}

const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`slapd did not listen on ${port}:\n${output()}`);
}

/**
 * Start slapd with a configuration and database in a temporary directory, loaded with `ldif`
 * (suffix `dc=example,dc=org`), on a loopback port; its own pid file. `close` stops it and removes
 * the directory.
 */
export async function startLdapServer(ldif: string): Promise<LdapServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-slapd-'));
  fs.mkdirSync(path.join(dir, 'data'));
  const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
  mustSucceed(
    await runCommand('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-keyout', key, '-out', cert, ...subject]),
    'openssl req',
  );
  const adminDn = 'cn=admin,dc=example,dc=org';
  const adminPassword = 'directory-admin-secret';
  const config = [
    ...SCHEMAS.map((s) => `include /etc/ldap/schema/${s}.schema`),
    `pidfile ${path.join(dir, 'slapd.pid')}`,
    `argsfile ${path.join(dir, 'slapd.args')}`,
    `TLSCertificateFile ${cert}`,
    `TLSCertificateKeyFile ${key}`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    'database mdb',
    'maxsize 10485760',
    'suffix "dc=example,dc=org"',
    `rootdn "${adminDn}"`,
    `rootpw ${adminPassword}`,
    `directory ${path.join(dir, 'data')}`,
    // Passwords are for binding only; everything else may be read (by the forge's bind DN, too).
    'access to attrs=userPassword by self write by anonymous auth by * none',
    'access to * by * read',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'slapd.conf'), `${config}\n`);
  fs.writeFileSync(path.join(dir, 'base.ldif'), ldif);
  mustSucceed(await runCommand('slapadd', ['-f', path.join(dir, 'slapd.conf'), '-l', path.join(dir, 'base.ldif')]), 'slapadd');
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  // -d 0 keeps slapd in the foreground, so it is this process's child and dies with it.
  const child = spawn('slapd', ['-f', path.join(dir, 'slapd.conf'), '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await waitForPort(port, child, () => output);
  await waitForPort(tlsPort, child, () => output);
  return {
    url,
    ldapsUrl,
    adminDn,
    adminPassword,
    modify: async (change) => {
      mustSucceed(await runCommand('ldapmodify', ['-x', '-H', url, '-D', adminDn, '-w', adminPassword], { input: change }), 'ldapmodify');
    },
    close: async () => {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
