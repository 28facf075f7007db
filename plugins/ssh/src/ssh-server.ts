import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Server, utils, type Connection, type ServerChannel } from 'ssh2';
import { ApiError, isApiError, type GitStreamService, type GitTransportCaller, type PluginContext } from '@hearth/plugin-api';
import { fingerprintOf, type KeyStore } from './keys';

export interface SshSettings {
  START_SSH_SERVER: boolean;
  SSH_LISTEN_HOST: string;
  SSH_PORT: number;
  SSH_DOMAIN: string;
}

/**
 * `git-upload-pack 'owner/repo.git'` as git sends it over SSH (`git upload-pack` too, leading `/`
 * optional, quotes optional). Names are restricted to what repository names may hold, so nothing
 * the client sends reaches a shell or a path unchecked.
 */
const COMMAND = /^git[- ](upload-pack|receive-pack|upload-archive) +('?)\/?([\w.-]+)\/([\w.-]+?)\/?\2$/;

export function parseGitCommand(command: string): { service: GitStreamService; owner: string; repo: string } | null {
  const match = COMMAND.exec(command.trim());
  if (!match || match[3].startsWith('.') || match[4].startsWith('.')) return null;
  return { service: `git-${match[1]}` as GitStreamService, owner: match[3], repo: match[4] };
}

/** The host key, made on first start and kept in the data directory (0600), so clients' known_hosts stay valid. */
export function loadHostKey(dataDir: string): string {
  const dir = path.join(dataDir, 'ssh');
  const file = path.join(dir, 'ssh_host_ed25519_key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { private: privateKey } = utils.generateKeyPairSync('ed25519');
    fs.writeFileSync(file, privateKey, { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8');
}

/**
 * The built-in SSH server: public-key authentication only, user `git`; a user's key acts as that
 * user, a deploy key as its repository's key. Only git's three services run (through the kernel's
 * `ctx.git.serveTransport`, with the same access decision, hooks and push recording as HTTP).
 */
export class SshServer {
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();

  constructor(
    private readonly ctx: PluginContext<SshSettings>,
    private readonly keys: KeyStore,
  ) {}

  /** Listen; resolves with the port (SSH_PORT 0 picks a free one). */
  async start(): Promise<number> {
    const { SSH_LISTEN_HOST, SSH_PORT } = this.ctx.settings;
    const server = new Server({ hostKeys: [loadHostKey(this.ctx.forge.dataDir)] }, (client) => this.connection(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(SSH_PORT, SSH_LISTEN_HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err: Error) => this.ctx.log.error({ err }, 'ssh server error'));
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const client of this.connections) client.end();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private connection(client: Connection): void {
    this.connections.add(client);
    // git's exchanges are small request/response messages: Nagle's delay would add ~40 ms to each.
    (client as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    let caller: GitTransportCaller | null = null;
    client.on('close', () => this.connections.delete(client));
    client.on('error', (err) => this.ctx.log.debug({ err }, 'ssh client connection error'));
    client.on('authentication', (auth) => {
      if (auth.method !== 'publickey' || auth.username !== 'git') return auth.reject(['publickey']);
      const { key, signature, blob, hashAlgo } = auth;
      void this.callerFor(key.data)
        .then((found) => {
          if (!found) return auth.reject(['publickey']);
          // Without a signature the client only asks whether the key would do; with one, it proves it holds the key.
          if (signature && blob) {
            const parsed = utils.parseKey(key.data);
            if (parsed instanceof Error || Array.isArray(parsed) || parsed.verify(blob, signature, hashAlgo) !== true) {
              return auth.reject(['publickey']);
            }
            caller = found;
          }
          auth.accept();
        })
        .catch((err: unknown) => {
          this.ctx.log.error({ err }, 'ssh key lookup failed');
          auth.reject(['publickey']);
        });
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        let protocol = '';
        session.on('env', (accept, reject, info) => {
          if (info.key === 'GIT_PROTOCOL') protocol = info.val;
          accept?.();
        });
        session.on('pty', (accept) => accept?.());
        session.on('shell', (accept) => {
          const channel = accept();
          refuse(channel, 'Hearth offers git over SSH only, no shell: clone with git clone ssh://git@host/owner/repo.git');
        });
        session.on('exec', (accept, _reject, info) => {
          const channel = accept();
          void this.exec(channel, info.command, caller!, protocol);
        });
      });
    });
  }

  /** Who a key stands for, or null (unknown key, or its user may not sign in or is gone). */
  private async callerFor(blob: Buffer): Promise<GitTransportCaller | null> {
    const row = await this.keys.byFingerprint(fingerprintOf(blob));
    if (!row) return null;
    if (row.kind === 'deploy') return { repositoryId: row.repo_id!, canPush: !row.read_only };
    const user = await this.ctx.users.byId(row.owner_id!);
    if (!user || user.prohibitLogin || !user.isActive) return null;
    return { principal: { user, method: 'ssh', scopes: null, publicOnly: false } };
  }

  private async exec(channel: ServerChannel, command: string, caller: GitTransportCaller, protocol: string): Promise<void> {
    const git = parseGitCommand(command);
    if (!git) {
      refuse(channel, `unknown command: only git-upload-pack, git-receive-pack and git-upload-archive 'owner/repo.git' are served`);
      return;
    }
    try {
      // The account may have been prohibited since the connection authenticated.
      if ('principal' in caller) {
        const user = await this.ctx.users.byId(caller.principal.user.id);
        if (!user || user.prohibitLogin || !user.isActive) throw ApiError.forbidden('this account may not sign in');
      }
      const code = await this.ctx.git.serveTransport({
        caller,
        ownerName: git.owner,
        repoName: git.repo,
        service: git.service,
        protocol,
        stdin: channel,
        stdout: channel,
        stderr: channel.stderr,
      });
      channel.exit(code);
      channel.end();
    } catch (err) {
      if (!isApiError(err)) this.ctx.log.error({ err }, 'git over ssh failed');
      refuse(channel, isApiError(err) ? err.message : 'internal error');
    }
  }
}

/** Tell the client why (git prints the remote's stderr), exit 1. */
function refuse(channel: ServerChannel, message: string): void {
  channel.stderr.write(`Hearth: ${message}\n`);
  channel.exit(1);
  channel.end();
}
