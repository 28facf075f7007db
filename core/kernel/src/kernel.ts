import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import pino from 'pino';
import {
  type ApiOperation,
  type HttpHelpers,
  type KernelHooks,
  type Logger,
  type PackageRouteOptions,
  type PluginCommand,
  type ErrorPage,
  type Principal,
  type RouteRegistrar,
} from '@hearth/plugin-api';
import { loadConfig, type LoadConfigOptions, type LoadedConfig } from './config/load';
import type { HearthConfig } from './config/types';
import type { KernelServices } from './kernel-services';
import { connect, resolveDatabase, type DatabaseTarget } from './db/connect';
import { coreMigrations } from './db/core-migrations';
import { adoptKernelMigrations, migrateLatest } from './db/migrate';
import { createHooks } from './hooks';
import { kernelSchemas, type SchemaRegistry } from './schemas';
import { loadPlugins, type LoadedPlugin } from './plugins/loader';
import { PluginContexts } from './plugins/context';
import { unservedUnits } from './plugins/builtin-features';
import { resolvePrincipal, tapBuiltinAuth } from './auth/authenticate';
import { grants } from './auth/scopes';
import { TokenService, type ResolvedToken } from './auth/token-service';
import { CredentialCache } from './auth/credential-cache';
import { UserService } from './users/user-service';
import { userOperations } from './users/user-routes';
import { adminUserOperations } from './users/admin-routes';
import { RepoService } from './repos/repo-service';
import { repoOperations } from './repos/repo-routes';
import { smartHttpRouter } from './repos/smart-http';
import { RepoTemplates } from './repos/templates';
import { templateOperations } from './repos/template-routes';
import { gitDataOperations } from './repos/git-data-routes';
import { contentsOperations } from './repos/contents-routes';
import { statusOperations } from './repos/status-routes';
import { forkOperations } from './repos/fork-routes';
import { topicOperations } from './repos/topic-routes';
import { transferOperations } from './repos/transfer-routes';
import { generateOperations } from './repos/generate-routes';
import { tapFollowers } from './repos/followers';
import { tapFollowCleanup } from './users/follows';
import { unadoptedOperations } from './repos/unadopted-routes';
import { followOperations } from './users/follow-routes';
import { watchOperations } from './repos/watches';
import { starOperations } from './repos/stars';
import { orgOperations } from './orgs/org-routes';
import { branchProtectionOperations } from './protection/branch-protection-routes';
import { assertNotLastOwner, removeOrganization, removeUserMemberships } from './orgs/org-store';
import { createPackageFramework } from './packages';
import { tapRepositoryLifecycle as tapAttachmentsRepositoryLifecycle } from './attachments/attachment-store';
import { attachmentsRouter } from './attachments/download-router';
import { attachmentService, type KernelAttachments } from './plugins/attachments';
import { AttachedGitDirectories } from './repos/attached-git';
import { contentsSiteRouter } from './repos/contents-site';
import { buildApiRouter, withBoundedIntegers, type OperationDeps, type RegisteredOperation } from './http/operations';
import { operationInvoker } from './http/invoke';
import { buildOpenApi } from './http/openapi';
import { pagedResponse } from './http/paging';
import { errorBody, errorHandler, notFoundHandler } from './http/errors';
import { HttpMetrics, requestContext } from './http/observability';
import { avatarRouter } from './http/avatars';
import { docsRouter } from './http/docs-page';
import { API_VERSION_STRING } from './version';
import { assertAccessDeclared, resolveAccess } from './access/operation-access';
import { startLeftoverSweeps } from './maintenance/leftovers';
import { CronRegistry, cronOperations } from './maintenance/cron';
import { tapDomainEvents } from './events/domain-events';

export interface HearthOptions {
  /** An already loaded configuration, or how to load one. */
  config?: LoadedConfig | LoadConfigOptions;
  /** Where logs go (default stdout). */
  logDestination?: pino.DestinationStream;
  /** Environment for first-run settings (HEARTH_ADMIN_*); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Open the configured database and bring the kernel's and the enabled plugins' schemas up to date. */
export async function openDatabase(
  config: HearthConfig,
  plugins: readonly LoadedPlugin[],
  log: Logger,
): Promise<{ db: Knex; target: DatabaseTarget }> {
  const target = resolveDatabase(config.database.URL, config.server.DATA_DIR, config.database.POOL_MAX);
  const db = connect(target);
  try {
    await db.raw('select 1');
    const applied = await migrateLatest(db, null, coreMigrations);
    if (applied.length) log.info({ migrations: applied }, 'kernel migrations applied');
    for (const { plugin } of plugins) {
      if (plugin.adoptsKernelMigrations) {
        const adopted = await adoptKernelMigrations(db, plugin.name, plugin.migrations ?? []);
        if (adopted.length)
          log.info({ plugin: plugin.name, migrations: adopted }, 'migrations recorded by an earlier release moved to the plugin');
      }
      const done = await migrateLatest(db, plugin.name, plugin.migrations ?? []);
      if (done.length) log.info({ plugin: plugin.name, migrations: done }, 'plugin migrations applied');
    }
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, target };
}

/**
 * The kernel: configuration, database, hooks, the user and token services, and the HTTP app that
 * plugins extend. `Hearth.create` does everything up to a ready app; `listen` serves it.
 */
export class Hearth {
  readonly hooks: KernelHooks;
  readonly users: UserService;
  readonly tokens: TokenService;
  readonly repos: RepoService;
  readonly packages: ReturnType<typeof createPackageFramework>;
  readonly schemas: SchemaRegistry = kernelSchemas();
  readonly app = express();
  readonly metrics: HttpMetrics | null;
  private readonly operations: RegisteredOperation[] = [];
  private readonly packageRouters = new Map<string, { owner: string; router: Router; options: PackageRouteOptions }>();
  private readonly rootRouters: Array<{ prefix: string; router: Router }> = [];
  private readonly contexts: PluginContexts;
  /** Git repositories plugins keep beside repositories (the wiki's), served by the smart HTTP transport. */
  private readonly attachedGit = new AttachedGitDirectories();
  /** The core's attachments (`ctx.attachments`). */
  private readonly attachments: KernelAttachments;
  private readonly cron: CronRegistry;
  private server?: http.Server;
  private readonly rootUrlDerived: boolean;

  private constructor(
    readonly config: HearthConfig,
    readonly db: Knex,
    readonly database: DatabaseTarget,
    readonly log: pino.Logger,
    readonly plugins: readonly LoadedPlugin[],
  ) {
    this.hooks = createHooks(log);
    const credentials = new CredentialCache<ResolvedToken>();
    this.users = new UserService(db, this.hooks, config, credentials);
    this.tokens = new TokenService(db, credentials, config.security.WRITE_SCOPE_IMPLIES_DELETE);
    this.repos = new RepoService(db, this.hooks, config, this.users);
    for (const unit of unservedUnits(config, plugins)) this.repos.unservedUnits.add(unit);
    tapFollowers(this.hooks, db);
    tapFollowCleanup(this.hooks);
    this.hooks.user.deleting.tapPromise('hearth:organizations', async ({ user, trx }) => {
      if (user.type === 1) return removeOrganization(trx, user.id);
      await assertNotLastOwner(trx, user.id);
      await removeUserMemberships(trx, user.id);
    });
    this.packages = createPackageFramework({
      db,
      hooks: this.hooks,
      config,
      users: this.users,
      repos: this.repos,
      http: this.httpHelpers(),
      log,
      authenticate: (req) => this.authenticate(req),
    });
    this.attachments = attachmentService(db, config);
    this.cron = new CronRegistry(log);
    this.contexts = new PluginContexts({
      config,
      db,
      hooks: this.hooks,
      log,
      users: this.users,
      repos: this.repos,
      schemas: this.schemas,
      http: this.httpHelpers(),
      packages: this.packages.services,
      authenticate: (req) => this.authenticate(req),
      attachedGit: this.attachedGit,
      attachments: this.attachments,
      api: operationInvoker(this.operations, this.operationDeps(), log),
      cron: this.cron,
    });
    this.metrics = config.metrics.ENABLED ? new HttpMetrics() : null;
    this.rootUrlDerived = config.server.ROOT_URL === `http://localhost:${config.server.HTTP_PORT}/`;
  }

  static async create(options: HearthOptions = {}): Promise<Hearth> {
    const loaded =
      options.config && 'config' in options.config ? options.config : loadConfig(options.config as LoadConfigOptions | undefined);
    const { config, baseDir } = loaded;
    // Buffered, asynchronous writes: one syscall per 4 KiB of log rather than per line (flushed on close and exit).
    const destination = options.logDestination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 });
    const log = pino({ level: config.log.LEVEL, base: { app: 'hearth' } }, destination);
    // Plugins load and validate before the database is touched: a bad config changes nothing.
    const plugins = await loadPlugins(config, baseDir);
    const { db, target } = await openDatabase(config, plugins, log);
    const kernel = new Hearth(config, db, target, log, plugins);
    try {
      await kernel.boot(options.env ?? process.env);
    } catch (err) {
      await db.destroy();
      throw err;
    }
    return kernel;
  }

  private async boot(env: NodeJS.ProcessEnv): Promise<void> {
    tapBuiltinAuth(this.hooks, this.users, this.tokens);
    const deps = { users: this.users, tokens: this.tokens, http: this.httpHelpers() };
    this.hooks.http.routes.tap('hearth:users', (r) => {
      userOperations(deps).forEach((op) => r.api(op));
      followOperations({ ...deps, db: this.db, access: this.repos.access }).forEach((op) => r.api(op));
    });
    this.hooks.http.routes.tap('hearth:admin', (r) => {
      adminUserOperations(deps).forEach((op) => r.api(op));
      cronOperations(this.cron, deps.http).forEach((op) => r.api(op));
    });
    const templates = new RepoTemplates();
    this.hooks.http.routes.tap('hearth:repositories', (r) => {
      const repoDeps = { ...deps, repos: this.repos, templates };
      [
        ...repoOperations(repoDeps),
        ...forkOperations(repoDeps),
        ...topicOperations(repoDeps),
        ...transferOperations({ ...repoDeps, attached: this.attachedGit }),
        ...generateOperations(repoDeps),
        ...unadoptedOperations(repoDeps),
      ].forEach((op) => r.api(op));
      templateOperations(templates, deps.http).forEach((op) => r.api(op));
      const followerDeps = {
        db: this.db,
        repos: this.repos,
        users: this.users,
        http: deps.http,
        rootUrl: () => this.config.server.ROOT_URL,
      };
      [...watchOperations(followerDeps), ...starOperations(followerDeps)].forEach((op) => r.api(op));
      const gitDeps = { repos: this.repos, users: this.users, http: deps.http, config: this.config, hooks: this.hooks };
      [...gitDataOperations(gitDeps), ...contentsOperations(gitDeps), ...statusOperations(gitDeps)].forEach((op) => r.api(op));
      r.root(
        '/',
        smartHttpRouter({
          repos: this.repos,
          config: this.config,
          authenticate: (req) => this.authenticate(req),
          log: this.log,
          attached: this.attachedGit,
        }),
      );
      r.root('/', contentsSiteRouter({ repos: this.repos, authenticate: (req) => this.authenticate(req) }));
    });
    const services: KernelServices = {
      db: this.db,
      hooks: this.hooks,
      config: this.config,
      users: this.users,
      repos: this.repos,
      http: deps.http,
      log: this.log,
    };
    tapDomainEvents(services);
    this.hooks.http.routes.tap('hearth:branch-protection', (r) => branchProtectionOperations(services).forEach((op) => r.api(op)));
    this.hooks.http.routes.tap('hearth:organizations', (r) => orgOperations(services).forEach((op) => r.api(op)));
    this.hooks.http.routes.tap('hearth:packages', (r) => this.packages.operations().forEach((op) => r.api(op)));
    tapAttachmentsRepositoryLifecycle(this.hooks, this.db, this.config);
    this.hooks.http.routes.tap('hearth:attachments', (r) => {
      r.root(
        '/',
        attachmentsRouter({
          db: this.db,
          config: this.config,
          repos: this.repos,
          users: this.users,
          authenticate: (req) => this.authenticate(req),
          releaseCheck: () => this.attachments.releaseCheck(),
          issueCheck: () => this.attachments.issueCheck(),
        }),
      );
    });
    startLeftoverSweeps({ hooks: this.hooks, config: this.config, log: this.log, cron: this.cron });
    this.hooks.lifecycle.ready.tapPromise('hearth:cron', async () => this.cron.start());
    this.hooks.lifecycle.shutdown.tapPromise('hearth:cron', async () => this.cron.stop());
    for (const loaded of this.plugins) {
      await loaded.plugin.apply(this.contexts.contextFor(loaded));
    }
    await this.collectRoutes();
    this.assembleApp();
    await this.ensureFirstAdmin(env);
  }

  /** Run `http.routes`, attributing each contribution to the tap (plugin) that made it. */
  private async collectRoutes(): Promise<void> {
    let owner = 'hearth';
    this.hooks.http.routes.intercept({ tap: (tap) => void (owner = tap.name) });
    const registrar: RouteRegistrar = {
      api: (op: ApiOperation) => {
        const clash = this.operations.find((o) => o.op.method === op.method && o.op.path.toLowerCase() === op.path.toLowerCase());
        if (clash) throw new Error(`${op.method.toUpperCase()} ${op.path} is registered by both "${clash.owner}" and "${owner}"`);
        assertAccessDeclared(op, owner);
        this.operations.push({ op: withBoundedIntegers(op), owner });
      },
      packages: (type: string, router: Router, options: PackageRouteOptions = {}) => {
        if (!/^[a-z0-9][a-z0-9-]*$/.test(type))
          throw new Error(`package type "${type}" (from "${owner}") must be lower-case letters, digits and dashes`);
        const clash = this.packageRouters.get(type);
        if (clash) throw new Error(`package type "${type}" is claimed by both "${clash.owner}" and "${owner}"`);
        this.packageRouters.set(type, { owner, router, options });
      },
      root: (prefix: string, router: Router) => {
        this.rootRouters.push({ prefix, router });
      },
    };
    await this.hooks.http.routes.promise(registrar);
  }

  private assembleApp(): void {
    const { app, config } = this;
    const docsUrl = () => `${config.server.ROOT_URL}api/swagger`;
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(requestContext(this.log, this.metrics, config.log.REQUESTS));
    // The API first: it is nearly all the traffic, and nothing below it serves /api/v1.
    app.use('/api/v1', buildApiRouter(this.operations, this.operationDeps()));
    app.use('/api/v1', notFoundHandler(docsUrl));

    app.get('/api/healthz', async (_req, res) => {
      const started = Date.now();
      let status = 'pass';
      try {
        await this.db.raw('select 1');
      } catch {
        status = 'fail';
      }
      res
        .status(status === 'pass' ? 200 : 503)
        .type('application/health+json')
        .send({
          status,
          description: `${config.server.APP_NAME}: health check`,
          checks: {
            'database:ping': [{ status, time: new Date().toISOString(), observedValue: Date.now() - started, observedUnit: 'ms' }],
          },
        });
    });
    if (this.metrics) {
      const registry = this.metrics.registry;
      app.get('/metrics', async (req, res) => {
        if (config.metrics.TOKEN && req.headers.authorization !== `Bearer ${config.metrics.TOKEN}`) {
          res.status(401).set('WWW-Authenticate', 'Bearer').json(errorBody('metrics token required', docsUrl()));
          return;
        }
        res.type(registry.contentType).send(await registry.metrics());
      });
    }
    if (config.api.ENABLE_SWAGGER) {
      let document: Record<string, unknown> | undefined;
      app.get('/swagger.v1.json', (_req, res) => {
        document ??= buildOpenApi(this.operations, this.schemas, {
          title: config.server.APP_NAME,
          version: API_VERSION_STRING,
          rootUrl: config.server.ROOT_URL,
        });
        res.json(document);
      });
      app.use(docsRouter(config.server.APP_NAME));
    }
    app.use(avatarRouter());

    this.packages.mount(app, this.packageRouters);
    for (const { prefix, router } of this.rootRouters) app.use(prefix, router);
    // Pages for browsers outside the API, when a plugin renders them (the web interface).
    const renderPage = (error: ErrorPage, req: Request, res: Response) => this.hooks.http.errorPage.call(error, req, res) === true;
    app.use(notFoundHandler(docsUrl, renderPage));
    app.use(errorHandler(docsUrl, this.log, renderPage));
  }

  /** What running an operation needs, over HTTP or in-process. */
  private operationDeps(): OperationDeps {
    return {
      schemas: this.schemas,
      config: this.config,
      authenticate: (req) => this.authenticate(req),
      resolveAccess: (access, params, principal) => resolveAccess(access, params, principal, this.repos.access, this.users),
    };
  }

  /** The caller of a request, resolved once per request. */
  async authenticate(req: Request): Promise<Principal | null> {
    const cached = (req as Request & { principal?: Principal | null }).principal;
    if (cached !== undefined) return cached;
    const principal = await resolvePrincipal(this.hooks, this.users, {
      method: req.method,
      // The whole path as the client sent it (not relative to a router's mount): signed-request
      // schemes such as Chef's sign it.
      path: req.originalUrl.split('?')[0],
      headers: req.headers,
      query: req.query as Record<string, unknown>,
    });
    (req as Request & { principal?: Principal | null }).principal = principal;
    return principal;
  }

  private httpHelpers(): HttpHelpers {
    return {
      paged: (req, items, total) => pagedResponse(req, items, total, this.config.server.ROOT_URL),
      apiUrl: (path) => `${this.config.server.ROOT_URL}api/v1${path.startsWith('/') ? path : `/${path}`}`,
      hasScope: (principal, category, level) => principal === null || grants(principal.scopes, category, level),
      authenticate: (req) => this.authenticate(req),
    };
  }

  /** Every registered API operation with the plugin (or kernel area) that registered it. */
  get apiOperations(): readonly RegisteredOperation[] {
    return this.operations;
  }

  /** The maintenance commands plugins registered (`hearth plugins run`), by plugin name. */
  commandsOf(pluginName: string): ReadonlyMap<string, PluginCommand> {
    return this.contexts.commandsOf(pluginName);
  }

  /** First run: HEARTH_ADMIN_USERNAME/PASSWORD/EMAIL create a site admin when none exists yet. */
  private async ensureFirstAdmin(env: NodeJS.ProcessEnv): Promise<void> {
    const { HEARTH_ADMIN_USERNAME: name, HEARTH_ADMIN_PASSWORD: password, HEARTH_ADMIN_EMAIL: email } = env;
    if (!name || !password || !email) return;
    const existing = await this.db('users').where({ is_admin: true, type: 0 }).first('id');
    if (existing) return;
    await this.users.create({ name, password, email, isAdmin: true, mustChangePassword: false }, null);
    this.log.info({ user: name }, 'created the first site administrator from HEARTH_ADMIN_*');
  }

  /** Serve on the configured address; resolves with the public URL once listening. */
  async listen(): Promise<string> {
    const { HTTP_PORT, HTTP_ADDR } = this.config.server;
    this.server = http.createServer(this.app);
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(HTTP_PORT, HTTP_ADDR, () => resolve());
    });
    const port = (this.server.address() as AddressInfo).port;
    if (this.rootUrlDerived) this.config.server.ROOT_URL = `http://localhost:${port}/`;
    await this.hooks.lifecycle.ready.promise();
    return this.config.server.ROOT_URL;
  }

  /** The port actually listened on (useful with HTTP_PORT 0). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async close(): Promise<void> {
    if (this.server) {
      const server = this.server;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
    await this.hooks.lifecycle.shutdown.promise();
    await this.db.destroy();
    this.log.flush();
  }
}
