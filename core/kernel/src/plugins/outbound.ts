import net from 'node:net';
import dns from 'node:dns';
import type { OutboundNetwork, OutboundPolicyName } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import {
  OutboundRefusedError,
  checkRemoteUrl,
  migrationsPolicy,
  outboundRequest,
  webhookPolicy,
  type OutboundPolicy,
} from '../net/allow-list';

/** The outbound network guard as the plugin API offers it (`ctx.outbound`). Policies are read per call: settings may change. */
export function outboundNetwork(config: HearthConfig): OutboundNetwork {
  const policy = (name: OutboundPolicyName): OutboundPolicy => (name === 'webhook' ? webhookPolicy(config) : migrationsPolicy(config));
  return {
    checkRemoteUrl: (address, name) => checkRemoteUrl(address, policy(name)),
    pinnedResolve: (url, name) => pinnedResolve(url, policy(name)),
    request: (address, options, name) => outboundRequest(address, options, policy(name)),
    isRefusal: (err) => err instanceof OutboundRefusedError,
  };
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
