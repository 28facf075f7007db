import { parseArgs } from 'node:util';
import { ApiError, type PluginCommand } from '@hearth/plugin-api';
import { parseGroupTeamMap } from '@hearth/plugin-group-mapping';
import type { LdapSecurity, LdapSource, LdapSourceFields, LdapSourceStore } from './source-store';

/** Options of add-source and update-source; boolean ones come with a `--no-…` twin for update-source. */
const STRING_OPTIONS = [
  'name',
  'host',
  'port',
  'security-protocol',
  'bind-dn',
  'bind-password',
  'user-search-base',
  'user-filter',
  'admin-filter',
  'restricted-filter',
  'username-attribute',
  'email-attribute',
  'full-name-attribute',
  'group-search-base-dn',
  'group-member-attribute',
  'user-attribute-in-group',
  'group-filter',
  'group-team-map',
] as const;
const BOOLEAN_OPTIONS = ['skip-tls-verify', 'group-team-map-removal', 'not-active', 'active'] as const;

type StringOption = (typeof STRING_OPTIONS)[number];
type Values = Partial<Record<StringOption | 'id', string>> & Partial<Record<string, string | boolean>>;

const ADD_USAGE =
  'add-source --name NAME --host HOST [--port 389] [--security-protocol unencrypted|ldaps|starttls] [--skip-tls-verify] ' +
  '[--bind-dn DN --bind-password PW] --user-search-base DN --user-filter "(&(objectClass=person)(uid=%s))" ' +
  '[--admin-filter F] [--restricted-filter F] [--username-attribute uid] [--email-attribute mail] [--full-name-attribute cn] ' +
  '[--group-search-base-dn DN --group-member-attribute member [--user-attribute-in-group dn] [--group-filter F]] ' +
  '[--group-team-map JSON] [--group-team-map-removal] [--not-active]';
const UPDATE_USAGE = 'update-source --id N [options of add-source] [--no-skip-tls-verify] [--no-group-team-map-removal] [--active]';

function parse(args: string[], withId: boolean, usage: string): Values {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of STRING_OPTIONS) options[name] = { type: 'string' };
  for (const name of BOOLEAN_OPTIONS) options[name] = { type: 'boolean' };
  if (withId) {
    options.id = { type: 'string' };
    options['no-skip-tls-verify'] = { type: 'boolean' };
    options['no-group-team-map-removal'] = { type: 'boolean' };
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Values;
  } catch (err) {
    throw ApiError.badRequest(`${(err as Error).message}\nusage: ${usage}`);
  }
}

/** A boolean from `--x` / `--no-x` (or `--active` / `--not-active`), else `current`. */
function flag(values: Values, on: string, off: string, current: boolean): boolean {
  if (values[on] && values[off]) throw ApiError.badRequest(`--${on} and --${off} contradict each other`);
  return values[on] ? true : values[off] ? false : current;
}

function securityOf(value: string): LdapSecurity {
  const security = value.toLowerCase().replace(/[^a-z]/g, '');
  if (security === 'unencrypted' || security === 'ldaps' || security === 'starttls') return security;
  throw ApiError.unprocessable(`--security-protocol must be unencrypted, ldaps or starttls [value: ${value}]`);
}

/** The source's fields: `values` over `current` (update) or over the defaults (add). */
function fieldsOf(values: Values, current: LdapSourceFields | null): LdapSourceFields {
  const text = (option: StringOption, fallback: string) => (values[option] ?? fallback).trim();
  const required = (option: StringOption, fallback: string | undefined) => {
    const value = text(option, fallback ?? '');
    if (!value) throw ApiError.badRequest(`--${option} is required`);
    return value;
  };
  const security = securityOf(text('security-protocol', current?.security ?? 'unencrypted'));
  const port = Number(text('port', String(current?.port ?? (security === 'ldaps' ? 636 : 389))));
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw ApiError.unprocessable(`--port must be 1 to 65535 [value: ${values.port}]`);
  const fields: LdapSourceFields = {
    name: required('name', current?.name),
    active: flag(values, 'active', 'not-active', current?.active ?? true),
    host: required('host', current?.host),
    port,
    security,
    skipTlsVerify: flag(values, 'skip-tls-verify', 'no-skip-tls-verify', current?.skipTlsVerify ?? false),
    bindDn: text('bind-dn', current?.bindDn ?? ''),
    bindPassword: values['bind-password'] ?? current?.bindPassword ?? '',
    userBase: required('user-search-base', current?.userBase),
    userFilter: required('user-filter', current?.userFilter),
    adminFilter: text('admin-filter', current?.adminFilter ?? ''),
    restrictedFilter: text('restricted-filter', current?.restrictedFilter ?? ''),
    usernameAttribute: text('username-attribute', current?.usernameAttribute ?? ''),
    emailAttribute: text('email-attribute', current?.emailAttribute ?? 'mail'),
    fullNameAttribute: text('full-name-attribute', current?.fullNameAttribute ?? ''),
    groupSearchBase: text('group-search-base-dn', current?.groupSearchBase ?? ''),
    groupMemberAttribute: text('group-member-attribute', current?.groupMemberAttribute ?? ''),
    userAttributeInGroup: text('user-attribute-in-group', current?.userAttributeInGroup ?? ''),
    groupFilter: text('group-filter', current?.groupFilter ?? ''),
    groupTeamMap: values['group-team-map'] !== undefined ? parseGroupTeamMap(values['group-team-map']) : (current?.groupTeamMap ?? {}),
    groupTeamMapRemoval: flag(values, 'group-team-map-removal', 'no-group-team-map-removal', current?.groupTeamMapRemoval ?? false),
  };
  if (fields.name.length > 255) throw ApiError.unprocessable('--name must be at most 255 characters');
  if (!fields.userFilter.includes('%s')) throw ApiError.unprocessable('--user-filter must contain %s where the login name goes');
  if (fields.bindDn && !fields.bindPassword) throw ApiError.badRequest('--bind-password is required with --bind-dn');
  if (fields.groupSearchBase && !fields.groupMemberAttribute)
    throw ApiError.badRequest('--group-member-attribute is required with --group-search-base-dn');
  return fields;
}

function sourceId(values: Values, usage: string): number {
  const id = Number(values.id);
  if (!values.id || !Number.isInteger(id) || id <= 0) throw ApiError.badRequest(`--id must name a source by its number\nusage: ${usage}`);
  return id;
}

function describe(s: LdapSource): string[] {
  return [
    `source ${s.id} "${s.name}"${s.active ? '' : ' (not active)'}: ${s.security} ${s.host}:${s.port}`,
    `  bind DN "${s.bindDn || '(anonymous)'}"`,
    `  users under "${s.userBase}" matching ${s.userFilter}; attributes: name ${s.usernameAttribute || '(login)'}, ` +
      `email ${s.emailAttribute || '(none)'}, full name ${s.fullNameAttribute || '(none)'}`,
    `  admin filter ${s.adminFilter || '(none)'}, restricted filter ${s.restrictedFilter || '(none)'}`,
    `  groups under "${s.groupSearchBase || '(no group search)'}" by ${s.groupMemberAttribute || '-'}=${s.userAttributeInGroup || 'dn'}` +
      `${s.groupFilter ? `, sign-in needs a group matching ${s.groupFilter}` : ''}`,
    `  group team map ${JSON.stringify(s.groupTeamMap)}; removal ${s.groupTeamMapRemoval ? 'on' : 'off'}`,
  ];
}

export interface SourceCommandDeps {
  store: LdapSourceStore;
  /** Connect and bind as the bind DN, so that a typo is found now rather than at the first sign-in. */
  checkServer(fields: LdapSourceFields): Promise<void>;
}

/** `hearth plugins run ldap add-source|list-sources|update-source|delete-source …`, as Gitea's `admin auth add-ldap` and friends. */
export function sourceCommands({ store, checkServer }: SourceCommandDeps): PluginCommand[] {
  return [
    {
      name: 'add-source',
      usage: ADD_USAGE.replace(/^add-source /, ''),
      description: 'add an LDAP (bind DN) authentication source (the bind password is stored sealed)',
      async run(args, out) {
        const fields = fieldsOf(parse(args, false, ADD_USAGE), null);
        await checkServer(fields);
        const source = await store.add(fields);
        out(`added LDAP source ${source.id} "${source.name}"`);
        describe(source).forEach((line) => out(line));
      },
    },
    {
      name: 'list-sources',
      description: 'list the LDAP authentication sources (never their bind passwords)',
      async run(args, out) {
        if (args.length) throw ApiError.badRequest('usage: list-sources');
        const sources = await store.list();
        if (!sources.length) out('no LDAP sources');
        for (const source of sources) describe(source).forEach((line) => out(line));
      },
    },
    {
      name: 'update-source',
      usage: UPDATE_USAGE.replace(/^update-source /, ''),
      description: 'change an LDAP source (options not given stay as they are)',
      async run(args, out) {
        const values = parse(args, true, UPDATE_USAGE);
        const current = await store.require(sourceId(values, UPDATE_USAGE));
        const fields = fieldsOf(values, current);
        await checkServer(fields);
        const source = await store.update(current.id, fields);
        out(`updated LDAP source ${source.id} "${source.name}"`);
        describe(source).forEach((line) => out(line));
      },
    },
    {
      name: 'delete-source',
      usage: '--id N',
      description: 'delete an LDAP source (refused while accounts sign in through it)',
      async run(args, out) {
        const values = parse(args, true, 'delete-source --id N');
        const id = sourceId(values, 'delete-source --id N');
        const source = await store.require(id);
        await store.remove(id);
        out(`deleted LDAP source ${id} "${source.name}"`);
      },
    },
  ];
}
