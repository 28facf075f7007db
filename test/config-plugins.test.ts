import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, loadPlugins } from './helpers/kernel';
import { startServer } from './helpers/server';

const FIXTURES = path.join(__dirname, 'fixtures/plugins');

function writeConfig(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-config-'));
  const file = path.join(dir, 'hearth.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('configuration', () => {
  test('shipped defaults validate and fill every section', () => {
    const { config } = loadConfig({ env: {} });
    expect(config.server.HTTP_PORT).toBe(3000);
    expect(config.server.ROOT_URL).toBe('http://localhost:3000/');
    expect(path.isAbsolute(config.server.DATA_DIR)).toBe(true);
    expect(config.repository.MAX_CREATION_LIMIT).toBe(-1);
    expect(config.repository.ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT).toBe(true);
    expect(config.repository.issue.MAX_PINNED).toBe(3);
    expect(config.actions.ENABLED).toBe(false);
    expect(config.migrations.ALLOW_LOCALNETWORKS).toBe(false);
    expect(config.plugins.misc).toEqual({ enabled: true, settings: {} });
  });

  test('an operator file overrides defaults; relative DATA_DIR resolves from the file', () => {
    const file = writeConfig({ server: { HTTP_PORT: 4000, DATA_DIR: 'state' }, repository: { MAX_CREATION_LIMIT: 5 } });
    const { config, baseDir } = loadConfig({ file, env: {} });
    expect(config.server.HTTP_PORT).toBe(4000);
    expect(config.server.DATA_DIR).toBe(path.join(path.dirname(file), 'state'));
    expect(config.repository.MAX_CREATION_LIMIT).toBe(5);
    expect(baseDir).toBe(path.dirname(file));
  });

  test('every key has an environment override, typed by the schema', async () => {
    const { config, baseDir } = loadConfig({
      env: {
        HEARTH__SERVER__APP_NAME: 'Forge',
        HEARTH__repository__max_creation_limit: '10',
        HEARTH__REPOSITORY__ISSUE__MAX_PINNED: '6',
        HEARTH__MIGRATIONS__ALLOW_LOCALNETWORKS: 'true',
        HEARTH__UI__REACTIONS: '["+1","heart"]',
        HEARTH__PLUGINS__MISC__SETTINGS__NODEINFO: 'false',
        HEARTH__DATABASE__URL: 'postgres://u@db/hearth',
      },
    });
    expect(config.server.APP_NAME).toBe('Forge');
    expect(config.repository.MAX_CREATION_LIMIT).toBe(10);
    expect(config.repository.issue.MAX_PINNED).toBe(6);
    expect(config.migrations.ALLOW_LOCALNETWORKS).toBe(true);
    expect(config.ui.REACTIONS).toEqual(['+1', 'heart']);
    expect(config.database.URL).toBe('postgres://u@db/hearth');
    // Plugin settings are matched to the plugin's own schema when it loads.
    const misc = (await loadPlugins(config, baseDir)).find((p) => p.plugin.name === 'misc');
    expect(misc?.settings).toEqual({ nodeinfo: false });
  });

  test('PORT, HEARTH_DATA_DIR and HEARTH_DATABASE_URL are enough to run a second instance', () => {
    const { config } = loadConfig({
      env: { PORT: '3300', HEARTH_DATA_DIR: '/tmp/second', HEARTH_DATABASE_URL: 'sqlite:/tmp/second/x.db' },
    });
    expect(config.server.HTTP_PORT).toBe(3300);
    expect(config.server.ROOT_URL).toBe('http://localhost:3300/');
    expect(config.server.DATA_DIR).toBe('/tmp/second');
    expect(config.database.URL).toBe('sqlite:/tmp/second/x.db');
  });

  test('a bad value stops the start naming the key, the value and what is allowed', () => {
    expect(() => loadConfig({ env: { PORT: 'eighty' } })).toThrow('server.HTTP_PORT = "eighty": must be integer');
    expect(() => loadConfig({ env: { HEARTH__LOG__LEVEL: 'loud' } })).toThrow(
      'log.LEVEL = "loud": must be one of: "trace", "debug", "info", "warn", "error", "fatal", "silent"',
    );
    expect(() => loadConfig({ env: { HEARTH__REPOSITORY__MAX_CREATION_LIMIT: '-5' } })).toThrow(
      'repository.MAX_CREATION_LIMIT = -5: must be >= -1',
    );
    const file = writeConfig({ server: { HTTP_PROT: 80 } });
    expect(() => loadConfig({ file, env: {} })).toThrow('server.HTTP_PROT = 80: is not a known key');
  });

  test('an unknown environment key and an unreadable file are clear errors', () => {
    expect(() => loadConfig({ env: { HEARTH__SERVER__NOPE: '1' } })).toThrow(
      /HEARTH__SERVER__NOPE: "server.NOPE" is not a configuration key/,
    );
    expect(() => loadConfig({ file: '/nonexistent/hearth.json', env: {} })).toThrow(/cannot read config file/);
    expect(() => loadConfig({ file: writeConfig('{ nope'), env: {} })).toThrow(/is not valid JSON/);
  });

  test('errors are ConfigError', () => {
    try {
      loadConfig({ env: { PORT: 'x' } });
      throw new Error('should have failed');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
    }
  });
});

describe('plugin loading', () => {
  const withPlugins = (plugins: Record<string, unknown>) => {
    const file = writeConfig({ plugins });
    return loadConfig({ file, env: {} });
  };

  test('an unknown plugin stops the start, naming it and what ships', async () => {
    const { config, baseDir } = withPlugins({ 'registry-nope': { enabled: true } });
    await expect(loadPlugins(config, baseDir)).rejects.toThrow(
      /plugins\.registry-nope: cannot find the plugin package "@hearth\/plugin-registry-nope"\. Plugins shipped with Hearth: .*misc/,
    );
  });

  test('a disabled plugin is not loaded, even if it does not exist', async () => {
    const { config, baseDir } = withPlugins({ 'registry-nope': { enabled: false } });
    // The shipped defaults (config/default.json) load; the disabled one is skipped.
    const enabled = Object.entries(config.plugins)
      .filter(([, entry]) => entry.enabled)
      .map(([name]) => name);
    expect(enabled).toEqual(expect.arrayContaining(['misc', 'generic', 'cargo']));
    expect(enabled).not.toContain('registry-nope');
    expect((await loadPlugins(config, baseDir)).map((p) => p.plugin.name)).toEqual(enabled);
  });

  test('a plugin API range that does not match stops the start', async () => {
    const { config, baseDir } = withPlugins({ 'future-api': { package: path.join(FIXTURES, 'future-api') } });
    await expect(loadPlugins(config, baseDir)).rejects.toThrow(
      'plugins.future-api: the plugin needs plugin API "^3.0.0", but this Hearth provides 2.3.0',
    );
  });

  test('a package that is not a plugin, or is listed under another name, stops the start', async () => {
    let loaded = withPlugins({ odd: { package: path.join(FIXTURES, 'not-a-plugin') } });
    await expect(loadPlugins(loaded.config, loaded.baseDir)).rejects.toThrow(/does not export a Hearth plugin/);
    loaded = withPlugins({ alias: { package: path.join(FIXTURES, 'probe') } });
    await expect(loadPlugins(loaded.config, loaded.baseDir)).rejects.toThrow('plugins.alias: package');
  });

  test('invalid plugin settings stop the start naming the key and what is allowed', async () => {
    let loaded = withPlugins({ probe: { package: path.join(FIXTURES, 'probe'), settings: { failingTap: 'yes' } } });
    await expect(loadPlugins(loaded.config, loaded.baseDir)).rejects.toThrow('plugins.probe.settings.failingTap = "yes": must be boolean');
    loaded = withPlugins({ probe: { package: path.join(FIXTURES, 'probe'), settings: { colour: 'red' } } });
    await expect(loadPlugins(loaded.config, loaded.baseDir)).rejects.toThrow('plugins.probe.settings.colour = "red": is not a known key');
    loaded = withPlugins({ misc: { settings: { nodeinfo: 3 } } });
    await expect(loadPlugins(loaded.config, loaded.baseDir)).rejects.toThrow('plugins.misc.settings.nodeinfo = 3: must be boolean');
  });

  test('relative plugin paths resolve from the config file; settings get their defaults', async () => {
    const file = writeConfig({ plugins: { probe: { package: path.relative(os.tmpdir(), path.join(FIXTURES, 'probe')) } } });
    // The file lives one level below tmpdir, so a path relative to tmpdir needs one more "..".
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    json.plugins.probe.package = `../${json.plugins.probe.package}`;
    fs.writeFileSync(file, JSON.stringify(json));
    const { config, baseDir } = loadConfig({ file, env: {} });
    const plugins = await loadPlugins(config, baseDir);
    expect(plugins.find((p) => p.plugin.name === 'probe')?.settings).toEqual({ label: 'probe', protectedUsers: [], failingTap: false });
  });

  test('a plugin owns its migrations, tracked in its own table', async () => {
    const server = await startServer({ plugins: { probe: { package: path.join(FIXTURES, 'probe') } } });
    try {
      const db = server.kernel.db;
      expect(await db.schema.hasTable('probe_events')).toBe(true);
      expect((await db('knex_migrations__probe').select('name')).map((r: { name: string }) => r.name)).toEqual(['001_probe_events']);
      const kernelMigrations = (await db('knex_migrations').select('name')).map((r: { name: string }) => r.name);
      expect(kernelMigrations[0]).toBe('0001_users_emails_tokens');
      expect(kernelMigrations).not.toContain('001_probe_events');
    } finally {
      await server.close();
    }
  });

  test('plugins read the configuration without its secrets; live values such as ROOT_URL show through', async () => {
    const server = await startServer({
      plugins: { probe: { package: path.join(FIXTURES, 'probe') } },
      security: { SECRET_KEY: 'kernel-only-secret' },
      metrics: { TOKEN: 'metrics-secret' },
      storage: { MINIO_ACCESS_KEY_ID: 'ak', MINIO_SECRET_ACCESS_KEY: 'sk' },
    });
    try {
      const seen = (await server.api('GET', '/probe/forge')).body;
      expect(seen.rootUrl).toBe(server.url);
      expect(seen.appUrl).toBe(server.url);
      expect(JSON.stringify(seen)).not.toMatch(/kernel-only-secret|metrics-secret|"sk"|"ak"/);
      expect(seen.security).not.toHaveProperty('SECRET_KEY');
      expect(seen.security).toHaveProperty('MIN_PASSWORD_LENGTH');
      expect(seen.database).not.toHaveProperty('URL');
      expect(seen.storage).toMatchObject({ STORAGE_TYPE: 'local' });
    } finally {
      await server.close();
    }
  });

  test('a disabled plugin is truly off: its routes answer 404', async () => {
    const server = await startServer({ plugins: { misc: { enabled: false }, web: { enabled: false } } });
    try {
      expect((await server.api('GET', '/version')).status).toBe(404);
      expect((await server.api('GET', '/user', { basic: ['forge-admin', 'admin-password-1'] })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  describe('services between plugins (provides / requires / optional)', () => {
    const greeter = { package: path.join(FIXTURES, 'greeter') };
    const user = { package: path.join(FIXTURES, 'greeting-user') };

    test('a required service nobody provides stops the start, saying what to enable', async () => {
      const { config, baseDir } = withPlugins({ 'greeting-user': user });
      await expect(loadPlugins(config, baseDir)).rejects.toThrow(
        'plugins.greeting-user: requires the service "greeter.greeting", which no enabled plugin ' +
          'provides; enable the plugin that provides it (usually plugins.greeter)',
      );
      const disabled = withPlugins({ 'greeting-user': user, greeter: { ...greeter, enabled: false } });
      await expect(loadPlugins(disabled.config, disabled.baseDir)).rejects.toThrow(/requires the service "greeter.greeting"/);
    });

    test('the provider is applied first whatever the config order, and the consumer gets the implementation', async () => {
      const { config, baseDir } = withPlugins({ 'greeting-user': user, greeter });
      const order = (await loadPlugins(config, baseDir)).map((p) => p.plugin.name);
      expect(order.indexOf('greeter')).toBeLessThan(order.indexOf('greeting-user'));
      const server = await startServer({ plugins: { 'greeting-user': user, greeter } });
      try {
        const reply = await server.api('GET', '/greeting-user/ann');
        expect(reply.status).toBe(200);
        expect(reply.body.message).toBe('hello, ann');
        // An optional service without a provider is undefined; one not declared at all is refused.
        expect(reply.body.absent).toBe(true);
        expect(reply.body.undeclared).toBe('plugin "greeting-user" uses the service "greeter.other" without listing it in "requires"');
      } finally {
        await server.close();
      }
    });

    test('two plugins providing the same service stop the start', async () => {
      const { config, baseDir } = withPlugins({ greeter, 'greeter-twin': { package: path.join(FIXTURES, 'greeter-twin') } });
      await expect(loadPlugins(config, baseDir)).rejects.toThrow(
        'plugins: the service "greeter.greeting" is provided by both "greeter" and "greeter-twin"; disable one of them',
      );
    });
  });
});
