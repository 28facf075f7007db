import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ApiError, type PluginCommand } from '@hearth/plugin-api';
import { parseGroupTeamMap } from '@hearth/plugin-group-mapping';
import { normalizeScopes, type OidcSource, type OidcSourceFields, type OidcSourceStore } from './source-store';

const FIELD_OPTIONS = {
  name: { type: 'string' },
  'discovery-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  scopes: { type: 'string' },
  'group-claim-name': { type: 'string' },
  'admin-group': { type: 'string' },
  'restricted-group': { type: 'string' },
  'group-team-map': { type: 'string' },
  'group-team-map-removal': { type: 'boolean' },
  'no-group-team-map-removal': { type: 'boolean' },
  'skip-local-2fa': { type: 'boolean' },
  'no-skip-local-2fa': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const FIELDS_USAGE =
  '--name NAME --discovery-url URL --client-id ID --client-secret SECRET [--scopes "openid email profile groups"] ' +
  '[--group-claim-name groups] [--admin-group G] [--restricted-group G] [--group-team-map JSON] [--group-team-map-removal] ' +
  '[--skip-local-2fa]';

interface Values {
  name?: string;
  'discovery-url'?: string;
  'client-id'?: string;
  'client-secret'?: string;
  scopes?: string;
  'group-claim-name'?: string;
  'admin-group'?: string;
  'restricted-group'?: string;
  'group-team-map'?: string;
  'group-team-map-removal'?: boolean;
  'no-group-team-map-removal'?: boolean;
  'skip-local-2fa'?: boolean;
  'no-skip-local-2fa'?: boolean;
  id?: string;
}

/** Parse `args` strictly: an unknown option or a stray argument is a user mistake (exit 1 with the reason). */
function parse(args: string[], withId: boolean, usage: string): Values {
  try {
    const options = withId ? { ...FIELD_OPTIONS, id: { type: 'string' as const } } : FIELD_OPTIONS;
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Values;
  } catch (err) {
    throw ApiError.badRequest(`${(err as Error).message}\nusage: ${usage}`);
  }
}

function sourceId(values: Values, usage: string): number {
  const id = Number(values.id);
  if (!values.id || !Number.isInteger(id) || id <= 0) throw ApiError.badRequest(`--id must name a source by its number\nusage: ${usage}`);
  return id;
}

function assertHttpUrl(value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw ApiError.unprocessable(`--discovery-url must be an http(s) URL, e.g. https://sso.example.com/.well-known/openid-configuration`);
}

/** The source's fields: `values` over `current` (update) or over the defaults (add). */
function fieldsOf(values: Values, current: OidcSource | null): OidcSourceFields {
  const pick = (value: string | undefined, fallback: string | undefined, option: string): string => {
    const chosen = value ?? fallback;
    if (chosen === undefined || ((current === null || current.secretUnreadable) && !chosen.trim()))
      throw ApiError.badRequest(`--${option} is required`);
    return chosen.trim();
  };
  if (values['group-team-map-removal'] && values['no-group-team-map-removal'])
    throw ApiError.badRequest('--group-team-map-removal and --no-group-team-map-removal contradict each other');
  const fields: OidcSourceFields = {
    name: pick(values.name, current?.name, 'name'),
    discoveryUrl: pick(values['discovery-url'], current?.discoveryUrl, 'discovery-url'),
    clientId: pick(values['client-id'], current?.clientId, 'client-id'),
    clientSecret: pick(values['client-secret'], current?.secretUnreadable ? '' : current?.clientSecret, 'client-secret'),
    scopes: normalizeScopes((values.scopes ?? current?.scopes.join(' ') ?? 'openid email profile').split(/[\s,]+/)),
    groupClaimName: (values['group-claim-name'] ?? current?.groupClaimName ?? '').trim(),
    adminGroup: (values['admin-group'] ?? current?.adminGroup ?? '').trim(),
    restrictedGroup: (values['restricted-group'] ?? current?.restrictedGroup ?? '').trim(),
    groupTeamMap: values['group-team-map'] !== undefined ? parseGroupTeamMap(values['group-team-map']) : (current?.groupTeamMap ?? {}),
    groupTeamMapRemoval: values['no-group-team-map-removal']
      ? false
      : (values['group-team-map-removal'] ?? current?.groupTeamMapRemoval ?? false),
    skipLocal2fa: values['no-skip-local-2fa'] ? false : (values['skip-local-2fa'] ?? current?.skipLocal2fa ?? false),
  };
  if (!fields.name || fields.name.length > 255 || /[/\\?#%]/.test(fields.name))
    throw ApiError.unprocessable(`--name must be 1 to 255 characters without / \\ ? # or % (it is part of the sign-in URL)`);
  assertHttpUrl(fields.discoveryUrl);
  return fields;
}

export interface SourceCommandDeps {
  store: OidcSourceStore;
  /** Read the provider's discovery document, so that a typo is found now rather than at the first sign-in. */
  checkProvider(fields: OidcSourceFields): Promise<void>;
  /** The callback URL to register at the provider. */
  callbackUrl(name: string): string;
  /** Drop what was cached of a source that changed. */
  changed(id: number): void;
}

function describe(source: OidcSource, callbackUrl: string): string[] {
  return [
    `source ${source.id} "${source.name}": ${source.discoveryUrl}`,
    `  client id ${source.clientId}, scopes "${source.scopes.join(' ')}"`,
    `  groups from claim "${source.groupClaimName || '(none)'}"`,
    `  admin group "${source.adminGroup}", restricted group "${source.restrictedGroup}"`,
    `  group team map ${JSON.stringify(source.groupTeamMap)}; removal ${source.groupTeamMapRemoval ? 'on' : 'off'}`,
    `  local two-factor authentication ${source.skipLocal2fa ? 'skipped' : 'required when enrolled'}`,
    `  register this redirect (callback) URL at the provider: ${callbackUrl}`,
  ];
}

/** `hearth plugins run oidc add-source|list-sources|update-source|delete-source …`, as Gitea's `admin auth add-oauth` and friends. */
export function sourceCommands(deps: SourceCommandDeps): PluginCommand[] {
  const { store } = deps;
  return [
    {
      name: 'add-source',
      usage: FIELDS_USAGE,
      description: 'add an OpenID Connect authentication source (the client secret is stored sealed)',
      async run(args, out) {
        const fields = fieldsOf(parse(args, false, `add-source ${FIELDS_USAGE}`), null);
        await deps.checkProvider(fields);
        const source = await store.add(fields);
        out(`added OpenID Connect source ${source.id} "${source.name}"`);
        describe(source, deps.callbackUrl(source.name)).forEach((line) => out(line));
      },
    },
    {
      name: 'list-sources',
      description: 'list the OpenID Connect authentication sources (never their secrets)',
      async run(args, out) {
        if (args.length) throw ApiError.badRequest('usage: list-sources');
        const sources = await store.list();
        if (!sources.length) out('no OpenID Connect sources');
        for (const source of sources) describe(source, deps.callbackUrl(source.name)).forEach((line) => out(line));
      },
    },
    {
      name: 'update-source',
      usage: '--id N [any option of add-source] [--no-group-team-map-removal]',
      description: 'change an OpenID Connect source (options not given stay as they are)',
      async run(args, out) {
        const usage = 'update-source --id N [options of add-source] [--no-group-team-map-removal]';
        const values = parse(args, true, usage);
        const current = await store.require(sourceId(values, usage));
        const fields = fieldsOf(values, current);
        await deps.checkProvider(fields);
        const source = await store.update(current.id, fields);
        deps.changed(source.id);
        out(`updated OpenID Connect source ${source.id} "${source.name}"`);
        describe(source, deps.callbackUrl(source.name)).forEach((line) => out(line));
      },
    },
    {
      name: 'delete-source',
      usage: '--id N',
      description: 'delete an OpenID Connect source (refused while accounts sign in through it)',
      async run(args, out) {
        const values = parse(args, true, 'delete-source --id N');
        const id = sourceId(values, 'delete-source --id N');
        const source = await store.require(id);
        await store.remove(id);
        deps.changed(id);
        out(`deleted OpenID Connect source ${id} "${source.name}"`);
      },
    },
  ];
}
