import { definePlugin } from '@hearth/plugin-api';
import { KEYS, keyStore, migrations } from './keys';
import { KEY_SCHEMAS, keyOperations } from './key-routes';
import { SshServer, type SshSettings } from './ssh-server';

export { parsePublicKey, fingerprintOf } from './keys';
export { parseGitCommand } from './ssh-server';

/** How to clone over SSH: the short scp-like form on port 22, a full ssh:// URL otherwise. */
export function sshCloneUrl(domain: string, port: number, ownerName: string, repoName: string): string {
  return port === 22 ? `git@${domain}:${ownerName}/${repoName}.git` : `ssh://git@${domain}:${port}/${ownerName}/${repoName}.git`;
}

/**
 * SSH keys (users' and repositories' deploy keys, Gitea's key API) and git over SSH with a built-in
 * server (Gitea's `[server] START_SSH_SERVER`), on by default: clients expect an SSH clone URL.
 */
export default definePlugin<SshSettings>({
  name: 'ssh',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'SSH public keys, deploy keys and git over SSH (built-in server)',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      START_SSH_SERVER: { type: 'boolean', default: true },
      SSH_LISTEN_HOST: { type: 'string', default: '0.0.0.0' },
      SSH_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 2222 },
      SSH_DOMAIN: { type: 'string', maxLength: 255, default: '' },
    },
  },
  migrations,
  apply(ctx) {
    const keys = keyStore(ctx);
    for (const schema of KEY_SCHEMAS) ctx.schemas.add(schema);
    ctx.hooks.http.routes.tap('ssh', (routes) => {
      for (const op of keyOperations(ctx, keys)) routes.api(op);
    });
    ctx.hooks.user.deleting.tapPromise('ssh', async ({ user, trx }) => {
      await trx(KEYS).where({ kind: 'user', owner_id: user.id }).delete();
    });
    ctx.hooks.repository.deleting.tapPromise('ssh', async ({ repositoryId, trx }) => {
      await trx(KEYS).where({ kind: 'deploy', repo_id: repositoryId }).delete();
    });
    if (!ctx.settings.START_SSH_SERVER) return;
    const server = new SshServer(ctx, keys);
    ctx.hooks.lifecycle.ready.tapPromise('ssh', async () => {
      let port: number;
      try {
        port = await server.start();
      } catch (err) {
        // The forge still serves HTTP (and git over HTTP); repositories report no ssh_url.
        const { SSH_LISTEN_HOST: host, SSH_PORT: wanted } = ctx.settings;
        ctx.log.error(
          { err, host, port: wanted },
          'the SSH server could not listen (set plugins.ssh.settings.SSH_PORT); git over SSH is off',
        );
        return;
      }
      const domain = ctx.settings.SSH_DOMAIN || new URL(ctx.forge.appUrl).hostname;
      ctx.git.setSshCloneUrl((owner, repo) => sshCloneUrl(domain, port, owner, repo));
      ctx.log.info({ port, host: ctx.settings.SSH_LISTEN_HOST }, 'ssh server listening');
    });
    ctx.hooks.lifecycle.shutdown.tapPromise('ssh', async () => {
      ctx.git.setSshCloneUrl(null);
      await server.stop();
    });
  },
});
