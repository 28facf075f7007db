import type { OutboundNetwork, OutboundPolicyName } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import {
  OutboundRefusedError,
  checkRemoteUrl,
  migrationsPolicy,
  outboundRequest,
  pinnedResolve,
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
