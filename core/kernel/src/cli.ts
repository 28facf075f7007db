#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Hearth, openDatabase } from './kernel';
import { loadConfig } from './config/load';
import { ConfigError } from './config/types';
import { loadPlugins } from './plugins/loader';
import { sweepLeftovers, totalBytes, type Leftover } from './maintenance/leftovers';
import { API_VERSION_STRING, HEARTH_VERSION } from './version';

const USAGE = `Hearth ${HEARTH_VERSION} — a self-hosted forge speaking Gitea's /api/v1

Usage: hearth <command> [--config FILE]

Commands:
  start                          start the server (the default)
  migrate                        apply pending database migrations of the kernel and enabled plugins
  doctor [--fix]                 check git, the database and the data directory, and look for
                                 leftovers of interrupted pushes and uploads (--fix removes them)
  plugins                        list the enabled plugins in load order
  plugins run <plugin> [<command> [args…]]
                                 run a plugin's maintenance command (without a command: list them)
  admin user create --username U --password P --email E [--admin] [--must-change-password]
                                 create a user

The config file defaults to $HEARTH_CONFIG; environment overrides: HEARTH__SECTION__KEY,
PORT, HEARTH_DATA_DIR, HEARTH_DATABASE_URL.`;

async function main(argv: string[]): Promise<number> {
  // `plugins run` hands everything after the plugin's name to the plugin untouched (its own
  // options included); only the kernel's options before `plugins run` are the kernel's.
  const runAt = argv.findIndex((arg, i) => arg === 'plugins' && argv[i + 1] === 'run');
  if (runAt >= 0) {
    const { values } = parseArgs({ args: argv.slice(0, runAt), options: { config: { type: 'string', short: 'c' } } });
    const rest = argv.slice(runAt + 2);
    return runPluginCommand({ file: values.config }, rest[0] === '--' ? rest.slice(1) : rest);
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      username: { type: 'string' },
      password: { type: 'string' },
      email: { type: 'string' },
      admin: { type: 'boolean', default: false },
      'must-change-password': { type: 'boolean', default: false },
      fix: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ') || 'start';
  if (values.help || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  const configOptions = { file: values.config };

  switch (command) {
    case 'start': {
      const kernel = await Hearth.create({ config: configOptions });
      const url = await kernel.listen();
      console.log(`Hearth ${HEARTH_VERSION} (Gitea API ${API_VERSION_STRING}) is listening on ${url}`);
      console.log(`  database: ${kernel.database.kind} ${kernel.database.display}`);
      console.log(`  plugins: ${kernel.plugins.map((p) => `${p.plugin.name}@${p.plugin.version}`).join(', ') || 'none'}`);
      const stop = async (signal: string) => {
        kernel.log.info({ signal }, 'shutting down');
        await kernel.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
      return -1; // keep running
    }
    case 'migrate': {
      // Migrations run as the kernel opens the database; then repositories get the current hooks.
      const kernel = await Hearth.create({ config: configOptions, logDestination: pino.destination(2) });
      try {
        const hooks = await kernel.repos.refreshHooks();
        console.log(
          `migrations are up to date (${kernel.database.kind} ${kernel.database.display}; plugins: ` +
            `${kernel.plugins.map((p) => p.plugin.name).join(', ') || 'none'}); hooks refreshed in ` +
            `${hooks} repositories`,
        );
      } finally {
        await kernel.close();
      }
      return 0;
    }
    case 'plugins': {
      const { config, baseDir } = loadConfig(configOptions);
      for (const { plugin, resolvedFrom } of await loadPlugins(config, baseDir)) {
        console.log(`${plugin.name}\t${plugin.version}\tapi ${plugin.apiVersion}\t${resolvedFrom}`);
      }
      return 0;
    }
    case 'doctor':
      return doctor(configOptions.file, values.fix);
    case 'admin user create': {
      const { username, password, email } = values;
      if (!username || !password || !email) {
        console.error('hearth admin user create needs --username, --password and --email');
        return 2;
      }
      const kernel = await Hearth.create({ config: configOptions, logDestination: pino.destination(2) });
      try {
        const row = await kernel.users.create(
          { name: username, password, email, isAdmin: values.admin, mustChangePassword: values['must-change-password'] },
          null,
        );
        console.log(`created ${row.is_admin ? 'site administrator' : 'user'} "${row.name}" (id ${row.id})`);
      } finally {
        await kernel.close();
      }
      return 0;
    }
    default:
      console.error(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

/** `hearth plugins run <plugin> [<command> [args…]]`: a plugin's maintenance command in a started (not listening) kernel. */
async function runPluginCommand(configOptions: { file?: string }, args: string[]): Promise<number> {
  const [pluginName, commandName, ...rest] = args;
  if (!pluginName) {
    console.error('usage: hearth plugins run <plugin> [<command> [args…]]');
    return 2;
  }
  const kernel = await Hearth.create({ config: configOptions, logDestination: pino.destination(2) });
  try {
    if (!kernel.plugins.some((p) => p.plugin.name === pluginName)) {
      console.error(
        `hearth: the plugin "${pluginName}" is not enabled (enabled: ${kernel.plugins.map((p) => p.plugin.name).join(', ') || 'none'})`,
      );
      return 2;
    }
    const commands = kernel.commandsOf(pluginName);
    const command = commandName ? commands.get(commandName) : undefined;
    if (!command) {
      if (commandName) console.error(`hearth: the plugin "${pluginName}" has no command "${commandName}"`);
      const list = [...commands.values()].map((c) => `  ${`${c.name} ${c.usage ?? ''}`.trim().padEnd(30)} ${c.description}`);
      (commandName ? console.error : console.log)(`commands of ${pluginName}:\n${list.join('\n') || '  (none)'}`);
      return commandName ? 2 : 0;
    }
    try {
      return (await command.run(rest, (line) => console.log(line))) ?? 0;
    } catch (err) {
      if ((err as { hearthApiError?: boolean }).hearthApiError) {
        console.error(`hearth: ${(err as Error).message}`);
        return 1;
      }
      throw err;
    }
  } finally {
    await kernel.close();
  }
}

async function doctor(file: string | undefined, fix: boolean): Promise<number> {
  let failed = 0;
  const report = (ok: boolean | 'warn', what: string, detail: string) => {
    if (ok === false) failed++;
    console.log(`${ok === true ? 'ok  ' : ok === 'warn' ? 'warn' : 'FAIL'}  ${what}: ${detail}`);
  };
  const git = spawnSync('git', ['--version'], { encoding: 'utf8' });
  if (git.status !== 0) report(false, 'git', 'the git executable was not found on PATH');
  else {
    const version = /(\d+)\.(\d+)/.exec(git.stdout) ?? ['', '0', '0'];
    const modern = Number(version[1]) > 2 || (Number(version[1]) === 2 && Number(version[2]) >= 38);
    report(
      modern ? true : 'warn',
      'git',
      `${git.stdout.trim()}${modern ? '' : ' (2.38 or newer merges pull requests without a work tree)'}`,
    );
  }
  let loaded;
  try {
    loaded = loadConfig({ file });
    report(true, 'config', 'valid');
  } catch (err) {
    report(false, 'config', (err as Error).message);
    return 1;
  }
  const { config, baseDir } = loaded;
  try {
    const plugins = await loadPlugins(config, baseDir);
    report(true, 'plugins', plugins.map((p) => p.plugin.name).join(', ') || 'none enabled');
  } catch (err) {
    report(false, 'plugins', (err as Error).message);
  }
  const dataDir = config.server.DATA_DIR;
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    const probe = path.join(dataDir, `.doctor-${process.pid}`);
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
    report(true, 'data directory', `${dataDir} is writable`);
  } catch (err) {
    report(false, 'data directory', `${dataDir}: ${(err as Error).message}`);
  }
  try {
    const grace = config.maintenance.LEFTOVER_GRACE_PERIOD;
    const { found, removed, failed: unremovable } = await sweepLeftovers(dataDir, { graceSeconds: grace, remove: fix });
    const list = (items: Leftover[]) =>
      items
        .slice(0, 20)
        .map((l) => `\n      ${l.kind}: ${path.relative(dataDir, l.path)} (${size(l.bytes)}, last changed ${l.modified.toISOString()})`)
        .join('') + (items.length > 20 ? `\n      … and ${items.length - 20} more` : '');
    if (found.length === 0)
      report(
        true,
        'leftovers',
        `none older than the grace period of ${grace} s (git quarantine directories, temporary upload and archive files)`,
      );
    else if (!fix)
      report(
        false,
        'leftovers',
        `${found.length} of interrupted pushes, uploads or archives (${size(totalBytes(found))}); ` +
          `\`hearth doctor --fix\` removes them${list(found)}`,
      );
    else {
      report(
        true,
        'leftovers',
        `removed ${removed.length} of interrupted pushes, uploads or archives (${size(totalBytes(removed))})${list(removed)}`,
      );
      for (const { leftover, error } of unremovable) report(false, 'leftovers', `could not remove ${leftover.path}: ${error}`);
    }
  } catch (err) {
    report(false, 'leftovers', (err as Error).message);
  }
  try {
    const { db, target } = await openDatabase(config, [], pino({ level: 'warn' }, pino.destination(2)));
    try {
      report(true, 'database', `${target.kind} ${target.display} is reachable and migrated`);
      const { missing, unadopted, total } = await repositoryConsistency(db, path.join(dataDir, 'repositories'));
      const ok = missing.length === 0 && unadopted.length === 0;
      report(
        ok ? true : 'warn',
        'repositories',
        `${total} in the database` +
          (missing.length ? `; missing on disk: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}` : '') +
          (unadopted.length
            ? `; on disk without a record (creating them answers 409): ` +
              `${unadopted.slice(0, 5).join(', ')}${unadopted.length > 5 ? ', …' : ''}`
            : ''),
      );
    } finally {
      await db.destroy();
    }
  } catch (err) {
    report(false, 'database', (err as Error).message);
  }
  return failed ? 1 : 0;
}

const size = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`;

/** Repositories whose directory is gone, and directories no repository record owns. */
async function repositoryConsistency(
  db: import('knex').Knex,
  root: string,
): Promise<{ missing: string[]; unadopted: string[]; total: number }> {
  const rows: Array<{ owner_name: string; name: string }> = await db('repositories').select('owner_name', 'name');
  const known = new Set(rows.map((r) => `${r.owner_name.toLowerCase()}/${r.name.toLowerCase()}`));
  const missing = rows
    .filter((r) => !fs.existsSync(path.join(root, r.owner_name.toLowerCase(), `${r.name.toLowerCase()}.git`)))
    .map((r) => `${r.owner_name}/${r.name}`);
  const unadopted: string[] = [];
  for (const owner of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    const ownerDir = path.join(root, owner);
    if (!fs.statSync(ownerDir).isDirectory()) continue;
    for (const entry of fs.readdirSync(ownerDir)) {
      // A wiki (<name>.wiki.git) belongs to the repository <name>.
      const owning = entry.endsWith('.wiki.git') ? entry.slice(0, -'.wiki.git'.length) : entry.slice(0, -4);
      if (entry.endsWith('.git') && !known.has(`${owner}/${owning}`)) unadopted.push(`${owner}/${entry.slice(0, -4)}`);
    }
  }
  return { missing, unadopted, total: rows.length };
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    if (err instanceof ConfigError) console.error(`hearth: ${err.message}`);
    else if ((err as { hearthApiError?: boolean }).hearthApiError) console.error(`hearth: ${(err as Error).message}`);
    else console.error('hearth:', err);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  },
);
