import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { ApiError, type OutboundRequestOptions, type OutboundResponse } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';

/**
 * Where the server may send requests of its own (webhooks, push mirrors, migrations): the guard
 * against server-side request forgery. Every check is made on the address a name resolves to, at
 * connect time, so a name that resolves to a public address when saved and to 127.0.0.1 later
 * (DNS rebinding) is still refused; redirects are checked like the first request.
 */
export interface OutboundPolicy {
  /** Shown in refusals: which setting decided. */
  readonly setting: string;
  /** Why a connection to `ip` (resolved from `host`) is refused, or null when it is allowed. */
  refusal(host: string, ip: string): string | null;
}

/** A request refused by the policy (not a network failure). */
export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

// --- address classes (Gitea's hostmatcher: loopback, private, external) ------------------------

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const PRIVATE = new net.BlockList();
for (const [prefix, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/** Neither external nor private: link-local, unspecified, multicast, reserved. Only `*` allows them. */
const SPECIAL = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
] as const)
  SPECIAL.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  SPECIAL.addSubnet(prefix, bits, 'ipv6');

export type AddressClass = 'loopback' | 'private' | 'external' | 'special';

/** Normalise an address: IPv4-mapped IPv6 (::ffff:127.0.0.1) is the IPv4 address it carries. */
function normalise(ip: string): { ip: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return { ip: mapped[1], family: 'ipv4' };
  return { ip, family: net.isIPv6(ip) ? 'ipv6' : 'ipv4' };
}

export function classifyAddress(address: string): AddressClass {
  const { ip, family } = normalise(address);
  if (LOOPBACK.check(ip, family)) return 'loopback';
  if (PRIVATE.check(ip, family)) return 'private';
  if (SPECIAL.check(ip, family)) return 'special';
  return 'external';
}

// --- host globs ----------------------------------------------------------------------------------

const splitList = (list: string) =>
  list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** A host glob (`*.example.com`, `git.example.*`) as an anchored, case-insensitive matcher. */
function globMatcher(glob: string): (host: string) => boolean {
  const pattern = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
  return (host) => pattern.test(host);
}

const stripBrackets = (host: string) => host.replace(/^\[(.*)\]$/, '$1').toLowerCase();

// --- the two settings ----------------------------------------------------------------------------

/**
 * Gitea's host list (`webhook.ALLOWED_HOST_LIST`): comma-separated `loopback`, `private`,
 * `external`, `*`, CIDRs and host-name globs. A connection is allowed when the host name matches a
 * glob or the resolved address is in a named class or CIDR.
 */
export function hostListPolicy(list: string, setting = 'webhook.ALLOWED_HOST_LIST'): OutboundPolicy {
  const entries = splitList(list);
  const any = entries.includes('*');
  const classes = new Set<string>(entries.filter((e) => e === 'loopback' || e === 'private' || e === 'external'));
  const cidrs = new net.BlockList();
  const globs: Array<(host: string) => boolean> = [];
  for (const entry of entries) {
    if (entry === '*' || classes.has(entry)) continue;
    const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/i.exec(entry);
    if (cidr && net.isIP(cidr[1])) cidrs.addSubnet(cidr[1], Number(cidr[2]), net.isIPv6(cidr[1]) ? 'ipv6' : 'ipv4');
    else if (net.isIP(entry)) cidrs.addAddress(entry, net.isIPv6(entry) ? 'ipv6' : 'ipv4');
    else globs.push(globMatcher(entry));
  }
  return {
    setting,
    refusal(host, address) {
      if (any) return null;
      if (globs.some((m) => m(stripBrackets(host)))) return null;
      const { ip, family } = normalise(address);
      const kind = classifyAddress(ip);
      if (kind !== 'special' && classes.has(kind)) return null;
      if (cidrs.check(ip, family)) return null;
      return `${stripBrackets(host)} (${ip}, ${kind}) is not allowed by ${setting} "${list}"`;
    },
  };
}

/**
 * Gitea's `[migrations]` settings, used for push mirrors and migrations: BLOCKED_DOMAINS always
 * refuses, a non-empty ALLOWED_DOMAINS must match, and loopback, private and special addresses
 * need ALLOW_LOCALNETWORKS.
 */
export function migrationsPolicy(config: HearthConfig): OutboundPolicy {
  const section = (config.migrations ?? {}) as { ALLOW_LOCALNETWORKS?: boolean; ALLOWED_DOMAINS?: string; BLOCKED_DOMAINS?: string };
  const allowed = splitList(section.ALLOWED_DOMAINS ?? '').map(globMatcher);
  const blocked = splitList(section.BLOCKED_DOMAINS ?? '').map(globMatcher);
  const local = section.ALLOW_LOCALNETWORKS === true;
  return {
    setting: 'migrations',
    refusal(host, address) {
      const name = stripBrackets(host);
      if (blocked.some((m) => m(name))) return `${name} is in migrations.BLOCKED_DOMAINS`;
      if (allowed.length && !allowed.some((m) => m(name))) return `${name} is not in migrations.ALLOWED_DOMAINS`;
      const kind = classifyAddress(address);
      if (kind !== 'external' && !local)
        return (
          `${name} resolves to a ${kind === 'special' ? 'reserved' : kind} address (` +
          `${normalise(address).ip}); set migrations.ALLOW_LOCALNETWORKS to allow it`
        );
      return null;
    },
  };
}

/** The webhook policy from the configuration (default `external`). */
export function webhookPolicy(config: HearthConfig): OutboundPolicy {
  return hostListPolicy(String(config.webhook?.ALLOWED_HOST_LIST ?? 'external'));
}

// --- checks --------------------------------------------------------------------------------------

async function resolveAll(host: string): Promise<string[]> {
  const name = stripBrackets(host);
  if (net.isIP(name)) return [name];
  const found = await dns.promises.lookup(name, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * Check a remote address before it is saved or used (push mirrors, migrations): only http(s)
 * URLs — never local paths, `file://` or other transports that would let a user reach the
 * server's own disk — whose host and every resolved address the policy allows. Throws a 422.
 */
export async function checkRemoteUrl(address: string, policy: OutboundPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw ApiError.unprocessable(`the remote address must be an http or https URL (a local path is not allowed)`, {
      errors: [{ field: 'remote_address', message: 'not a URL' }],
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ApiError.unprocessable(`the remote address scheme "${url.protocol.replace(/:$/, '')}" is not allowed: use http or https`, {
      errors: [{ field: 'remote_address', message: 'scheme not allowed' }],
    });
  }
  if (!url.hostname) throw ApiError.unprocessable('the remote address has no host');
  let addresses: string[];
  try {
    addresses = await resolveAll(url.hostname);
  } catch {
    throw ApiError.unprocessable(`the remote host ${url.hostname} cannot be resolved`, {
      errors: [{ field: 'remote_address', message: 'host not found' }],
    });
  }
  for (const ip of addresses) {
    const why = policy.refusal(url.hostname, ip);
    if (why)
      throw ApiError.unprocessable(`the remote address is not allowed: ${why}`, {
        errors: [{ field: 'remote_address', message: 'not allowed' }],
      });
  }
  return url;
}

/** git's `http.curloptResolve` value pinning the URL's host to its allowed addresses (null for an address literal). */
export async function pinnedResolve(url: URL, policy: OutboundPolicy): Promise<string | null> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host)) return null; // checkRemoteUrl checked the literal; git does not resolve it
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  for (const a of found) {
    const why = policy.refusal(host, a.address);
    if (why) throw new OutboundRefusedError(`the remote address is not allowed: ${why}`);
  }
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${host}:${port}:${found.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(',')}`;
}

// --- guarded requests ----------------------------------------------------------------------------

// The request and response shapes are the plugin API's (`ctx.outbound.request`): one definition.
export type { OutboundRequestOptions, OutboundResponse };

/** A DNS lookup for http.request that refuses addresses the policy does not allow. */
function guardedLookup(policy: OutboundPolicy): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as dns.LookupAddress[];
      for (const a of list) {
        const why = policy.refusal(hostname, a.address);
        if (why) return callback(new OutboundRefusedError(why));
      }
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  }) as net.LookupFunction;
}

/**
 * Send one request under the policy, following redirects, within a deadline. Rejects with
 * OutboundRefusedError when the policy refuses a hop, or with the network error.
 */
export async function outboundRequest(address: string, options: OutboundRequestOptions, policy: OutboundPolicy): Promise<OutboundResponse> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  let url = new URL(address);
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  let headers = { ...(options.headers ?? {}) };
  for (let hop = 0; ; hop++) {
    const response = await requestOnce(url, method, headers, body, deadline, options.maxBodyBytes ?? 64 * 1024, policy);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location && hop < (options.maxRedirects ?? 5)) {
      const next = new URL(location, url);
      // A redirect to another host must not carry the credentials meant for the first one.
      if (next.host !== url.host)
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-(type|length)$/i.test(k)));
      }
      url = next;
      continue;
    }
    return response;
  }
}

function requestOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  deadline: number,
  maxBodyBytes: number,
  policy: OutboundPolicy,
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return reject(new OutboundRefusedError(`scheme ${url.protocol} is not allowed`));
    const host = stripBrackets(url.hostname);
    // An address literal skips DNS, so the lookup guard never sees it: check it here.
    if (net.isIP(host)) {
      const why = policy.refusal(host, host);
      if (why) return reject(new OutboundRefusedError(why));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new Error('timed out'));
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method,
      headers: body !== undefined ? { 'content-length': String(Buffer.byteLength(body)), ...headers } : headers,
      lookup: guardedLookup(policy),
      agent: false,
    });
    const timer = setTimeout(() => req.destroy(new Error('timed out')), remaining);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (kept < maxBodyBytes) {
          const part = chunk.subarray(0, maxBodyBytes - kept);
          chunks.push(part);
          kept += part.length;
          if (part.length < chunk.length) truncated = true;
        } else truncated = true;
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          truncated,
          url: url.toString(),
        });
      });
      res.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.end(body);
  });
}
