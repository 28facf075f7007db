import type { Request } from 'express';
import type { Knex } from 'knex';
import type pino from 'pino';
import {
  ApiError,
  type ForgeEvent,
  type ForgeSettings,
  type HttpHelpers,
  type KernelHooks,
  type PackageRegistry,
  type AttachmentService,
  type PluginCommand,
  type PluginContext,
  type Principal,
  type UserDirectory,
  type ApiInvoker,
  type BlobStorage,
} from '@hearth/plugin-api';
import { assertMaySignIn } from '../auth/authenticate';
import type { HearthConfig } from '../config/types';
import { withoutSecrets } from '../config/secrets';
import type { UserService } from '../users/user-service';
import type { RepoService } from '../repos/repo-service';
import type { RepoUnit } from '../repos/models';
import { readOnlyGitRouter } from '../repos/smart-http';
import { serveStreamTransport } from '../repos/stream-transport';
import { resolveAccess } from '../access/operation-access';
import { readableRepoIds } from '../access/readable-repos';
import { SecretBox } from '../security/secret-box';
import { API_VERSION_STRING } from '../version';
import type { SchemaRegistry } from '../schemas';
import type { LoadedPlugin } from './loader';
import { ServiceDirectory } from './service-registry';
import { gitToolkit } from './git-toolkit';
import { repositoryDomain } from './repository-domain';
import { outboundNetwork } from './outbound';
import { organizationDirectory } from './organizations';
import { branchProtection } from './protection';
import type { AttachedGitDirectories } from '../repos/attached-git';
import { LoginSources } from '../users/login-sources';
import { CORE_STORAGE_AREAS, createBlobStore } from '../storage';
import type { CronRegistry } from '../maintenance/cron';

/** What the kernel hands the factory: its services, built before any plugin applies. */
export interface ContextParts {
  config: HearthConfig;
  db: Knex;
  hooks: KernelHooks;
  log: pino.Logger;
  users: UserService;
  repos: RepoService;
  schemas: SchemaRegistry;
  http: HttpHelpers;
  packages: PackageRegistry;
  authenticate(req: Request): Promise<Principal | null>;
  /** Where `ctx.git.serveAttached` registrations go (the smart HTTP transport reads them). */
  attachedGit: AttachedGitDirectories;
  attachments: AttachmentService;
  /** In-process `/api/v1` calls (`ctx.api`). */
  api: ApiInvoker;
  /** The server's periodic jobs (`ctx.cron`). */
  cron: CronRegistry;
}

/**
 * Builds the `PluginContext` every plugin — built-in feature or third party — gets in `apply`:
 * the same object shape for all, so that a built-in feature uses nothing a third party cannot.
 */
export class PluginContexts {
  private readonly services = new ServiceDirectory();
  private readonly commands = new Map<string, Map<string, PluginCommand>>();
  private readonly shared: Omit<PluginContext, 'name' | 'settings' | 'log' | 'commands' | 'services'>;

  constructor(private readonly parts: ContextParts) {
    const { config, db, hooks, users, repos, schemas, http, packages, authenticate, log, attachedGit, attachments, api, cron } = parts;
    this.shared = {
      hooks,
      db,
      forge: forgeSettings(config),
      schemas: { add: (schema) => schemas.add(schema) },
      users: userDirectory(users, hooks, config, db),
      http,
      packages,
      emit: (event: Omit<ForgeEvent, 'occurredAt'>) => hooks.webhook.emit.promise({ ...event, occurredAt: new Date() }),
      git: {
        ...gitToolkit(config, users),
        readOnlyRouter: (locate) => readOnlyGitRouter({ config, authenticate, log }, locate),
        serveAttached: (directory) => attachedGit.add(directory),
        serveTransport: (request) => serveStreamTransport({ repos, users, attached: attachedGit, log }, request),
        setSshCloneUrl: (build) => repos.setSshCloneUrl(build),
      },
      access: {
        repository: async (ownerName, repoName, principal, need, unit) => {
          const target = await resolveAccess(
            { repo: { need, unit } },
            { owner: ownerName, repo: repoName },
            principal,
            repos.access,
            users,
          );
          return target.repository!;
        },
        readableRepositoryIds: (principal) => readableRepoIds(db, principal),
        ownerVisible: async (owner, principal) => {
          const row = await users.byId(owner.id);
          return row ? repos.access.ownerVisible(row, principal) : false;
        },
        unitLevel: async (repository, principal, unit) => {
          const row = await repos.byId(repository.id);
          return row ? repos.access.unitPermission(row, principal, unit as RepoUnit) : 'none';
        },
      },
      repositories: repositoryDomain(repos, config, users, http),
      outbound: outboundNetwork(config),
      secrets: (purpose: string) => new SecretBox(config, purpose),
      attachments,
      organizations: organizationDirectory({ db, hooks, config, users, repos, http, log }),
      protection: branchProtection(db, repos),
      api,
      blobs: (area) => pluginBlobs(config, area),
      cron: { add: (task) => cron.add(task) },
    };
  }

  contextFor({ plugin, settings }: LoadedPlugin): PluginContext {
    const context: PluginContext = {
      ...this.shared,
      name: plugin.name,
      settings: Object.freeze(settings),
      log: this.parts.log.child({ plugin: plugin.name }),
      services: this.services.registryFor(plugin),
      commands: { add: (command) => this.addCommand(plugin.name, command) },
    };
    return Object.freeze(context);
  }

  /** The maintenance commands plugins registered (`hearth plugins run`), by plugin name. */
  commandsOf(pluginName: string): ReadonlyMap<string, PluginCommand> {
    return this.commands.get(pluginName) ?? new Map();
  }

  private addCommand(pluginName: string, command: PluginCommand): void {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(command.name))
      throw new Error(`plugin "${pluginName}": command name "${command.name}" must be kebab-case`);
    const commands = this.commands.get(pluginName) ?? new Map<string, PluginCommand>();
    if (commands.has(command.name)) throw new Error(`plugin "${pluginName}" registers the command "${command.name}" twice`);
    this.commands.set(pluginName, commands.set(command.name, command));
  }
}

/** `ctx.blobs(area)`: the core's blob store for a plugin's own area. */
function pluginBlobs(config: HearthConfig, area: string): BlobStorage {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(area) || CORE_STORAGE_AREAS.includes(area) || ['repositories', 'archives'].includes(area))
    throw new Error(`blob area "${area}" must be lower-case letters, digits and dashes, and not one the core uses`);
  const store = createBlobStore(config, area);
  return {
    stage: async (body, maxBytes) => {
      const staged = await store.stage(body, maxBytes);
      return { size: staged.size, sha256: staged.hashes.sha256, commit: () => staged.commit(), discard: () => staged.discard() };
    },
    open: (sha256, range) => store.open(sha256, range),
    exists: (sha256) => store.exists(sha256),
    delete: (sha256) => store.delete(sha256),
  };
}

function forgeSettings(config: HearthConfig): ForgeSettings {
  return {
    get appName() {
      return config.server.APP_NAME;
    },
    get appUrl() {
      return config.server.ROOT_URL;
    },
    get dataDir() {
      return config.server.DATA_DIR;
    },
    version: API_VERSION_STRING,
    api: config.api,
    get raw() {
      return withoutSecrets(config);
    },
  };
}

function userDirectory(users: UserService, hooks: KernelHooks, config: HearthConfig, db: Knex): UserDirectory {
  const sources = new LoginSources(db);
  return {
    byName: async (name) => {
      const row = await users.byName(name);
      return row ? users.toInfo(row) : null;
    },
    byId: async (id) => {
      const row = await users.byId(id);
      return row ? users.toInfo(row) : null;
    },
    toApiByIds: async (ids, viewer) => new Map((await users.byIds(ids)).map((row) => [row.id, users.toApi(row, viewer)])),
    toApi: async (user, viewer) => {
      const row = await users.byId(user.id);
      if (!row) throw ApiError.notFound(`user does not exist [id: ${user.id}]`);
      return users.toApi(row, viewer);
    },
    stats: () => users.stats(),
    verifyPassword: async (login, password) => {
      const user = await hooks.auth.verifyPassword.promise({ login, password });
      if (user) assertMaySignIn(user);
      return user ?? null;
    },
    register: async (input) => {
      if (config.service.DISABLE_REGISTRATION) throw ApiError.forbidden('registration is disabled on this site; ask a site administrator');
      return users.toInfo(await users.create({ ...input, mustChangePassword: false }, null));
    },
    hasSiteAdmin: async () => Boolean(await db('users').where({ is_admin: true, type: 0 }).first('id')),
    registerSource: (type, name) => sources.register(type, name),
    renameSource: (id, name) => sources.rename(id, name),
    removeSource: (id) => sources.remove(id),
    // No registration check: a site administrator configured the source that vouches for the user.
    createExternal: async (input) => {
      if (!(await sources.exists(input.sourceId)))
        throw ApiError.unprocessable(`authentication source does not exist [id: ${input.sourceId}]`);
      return users.toInfo(await users.createExternal(input, null));
    },
    principalFor: async (id, credential) => {
      const row = await users.byId(id);
      if (!row) return null;
      assertMaySignIn({ prohibitLogin: row.prohibit_login, isActive: row.is_active });
      return users.rememberRow({ user: users.toInfo(row), ...credential }, row);
    },
    byLogin: async (sourceId, loginName) => {
      const row = await users.byLogin(sourceId, loginName);
      return row ? users.toInfo(row) : null;
    },
    byEmail: async (email) => {
      const row = await users.byEmail(email);
      return row ? users.toInfo(row) : null;
    },
    changePassword: async (userId, oldPassword, newPassword) => {
      const row = await users.byId(userId);
      if (!row || row.type !== 0) throw ApiError.notFound(`user does not exist [id: ${userId}]`);
      await users.changePassword(row, oldPassword, newPassword);
    },
    setFlags: async (userId, { isAdmin, isRestricted }) => {
      const row = await users.byId(userId);
      if (!row || row.type !== 0) throw ApiError.notFound(`user does not exist [id: ${userId}]`);
      return users.toInfo(await users.edit(row, { admin: isAdmin, restricted: isRestricted }, null));
    },
  };
}
