import { Client, InvalidCredentialsError, type Entry } from 'ldapts';
import type { LdapSource } from './source-store';

const TIMEOUT_MS = 5_000;

/** A value inside an LDAP filter, escaped as RFC 4515 says (`*`, `(`, `)`, `\` and NUL), so a login cannot change the filter. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A filter in parentheses (administrators may write `uid=%s` or `(uid=%s)`). */
const wrapped = (filter: string) => (filter.trim().startsWith('(') ? filter.trim() : `(${filter.trim()})`);

/**
 * A DN in one spelling, for comparing a user's groups with the map's keys: attribute types and values
 * in lower case, no spaces around separators (DNs compare case-insensitively in the usual schemas).
 */
export function canonicalDn(dn: string): string {
  return dn
    .split(/(?<!\\),/)
    .map((rdn) =>
      rdn
        .split(/(?<!\\)=/)
        .map((part) => part.trim())
        .join('='),
    )
    .join(',')
    .toLowerCase();
}

/** The first value of an attribute of an entry (attribute names in any case), as text. */
export function attributeOf(entry: Entry, name: string): string {
  if (!name) return '';
  if (name.toLowerCase() === 'dn') return entry.dn;
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key ? entry[key] : undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? '' : Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
}

/** A connection to a source's server, TLS as configured; `close` always. */
async function connect(source: LdapSource): Promise<Client> {
  const tlsOptions = { rejectUnauthorized: !source.skipTlsVerify, servername: source.host };
  const scheme = source.security === 'ldaps' ? 'ldaps' : 'ldap';
  const host = source.host.includes(':') ? `[${source.host}]` : source.host;
  // ldapts speaks TLS from the first byte whenever it is given TLS options: only ldaps:// gets them here.
  const client = new Client({
    url: `${scheme}://${host}:${source.port}`,
    timeout: TIMEOUT_MS,
    connectTimeout: TIMEOUT_MS,
    ...(scheme === 'ldaps' ? { tlsOptions } : {}),
  });
  if (source.security === 'starttls') await client.startTLS(tlsOptions);
  return client;
}

async function close(client: Client): Promise<void> {
  await client.unbind().catch(() => undefined);
}

/** The directory operations of a sign-in, each on the source's own connections. */
export class Directory {
  constructor(private readonly source: LdapSource) {}

  /** Run `work` on a connection bound as the source's bind DN (anonymous when it has none). */
  private async asSearcher<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await connect(this.source);
    try {
      if (this.source.bindDn) await client.bind(this.source.bindDn, this.source.bindPassword);
      return await work(client);
    } finally {
      await close(client);
    }
  }

  /** Connect and bind as the bind DN: what `add-source` checks before saving. */
  async check(): Promise<void> {
    await this.asSearcher(async () => undefined);
  }

  /** The one entry the user filter finds for `login`; null for none, and for more than one (ambiguous, refused). */
  async findUser(login: string): Promise<Entry | null> {
    const { source } = this;
    const filter = wrapped(source.userFilter.split('%s').join(escapeFilterValue(login)));
    const attributes = [source.usernameAttribute, source.emailAttribute, source.fullNameAttribute, source.userAttributeInGroup]
      .filter((a) => a && a.toLowerCase() !== 'dn')
      .concat('objectClass');
    const { searchEntries } = await this.asSearcher((client) =>
      client.search(source.userBase, { scope: 'sub', filter, attributes, sizeLimit: 2 }),
    );
    return searchEntries.length === 1 ? searchEntries[0] : null;
  }

  /**
   * Whether `password` binds as `dn`, on a connection of its own. An empty password never does:
   * LDAP would take it as an unauthenticated bind, which succeeds.
   */
  async passwordBinds(dn: string, password: string): Promise<boolean> {
    if (!password) return false;
    const client = await connect(this.source);
    try {
      await client.bind(dn, password);
      return true;
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return false;
      throw err;
    } finally {
      await close(client);
    }
  }

  /** Whether the user's own entry matches `filter` (the admin and restricted filters). */
  async entryMatches(dn: string, filter: string): Promise<boolean> {
    const { searchEntries } = await this.asSearcher((client) =>
      client.search(dn, { scope: 'base', filter: wrapped(filter), attributes: ['1.1'], sizeLimit: 1 }),
    );
    return searchEntries.length > 0;
  }

  /** The DNs of the groups the user is a member of, under the group search base; `extraFilter` narrows them. */
  async groupsOf(user: Entry, extraFilter = ''): Promise<string[]> {
    const { source } = this;
    const attribute = source.userAttributeInGroup;
    const value = !attribute || attribute.toLowerCase() === 'dn' ? user.dn : attributeOf(user, attribute);
    if (!value || !source.groupSearchBase || !source.groupMemberAttribute) return [];
    const membership = `(${source.groupMemberAttribute}=${escapeFilterValue(value)})`;
    const filter = extraFilter.trim() ? `(&${wrapped(extraFilter)}${membership})` : membership;
    const { searchEntries } = await this.asSearcher((client) =>
      client.search(source.groupSearchBase, { scope: 'sub', filter, attributes: ['1.1'] }),
    );
    return searchEntries.map((entry) => entry.dn);
  }
}
