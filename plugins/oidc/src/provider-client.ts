import net from 'node:net';
import { Issuer, custom, type BaseClient, type IssuerMetadata } from 'openid-client';
import { ApiError, isApiError, type OutboundNetwork, type OutboundPolicyName } from '@hearth/plugin-api';
import type { OidcSource } from './source-store';

/** How long a provider's discovery document is reused before it is read again. */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** A discovery document larger than this is not one. */
const MAX_DISCOVERY_BYTES = 512 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;

/** The provider could not be reached or answered nonsense: not the user's mistake, so a 502 naming why. */
export function providerUnavailable(source: OidcSource, why: string): ApiError {
  return new ApiError(502, `the identity provider of "${source.name}" cannot be used: ${why}`);
}

/**
 * openid-client makes its own HTTP requests; this pins each one to the addresses the forge's
 * allow-list checked for that URL (`ctx.outbound.pinnedResolve`), at connect time, so a provider's
 * name that later resolves to a refused address is refused too. Address literals are never looked
 * up: `assertEndpointsAllowed` checked those when the discovery document was read.
 */
function pinnedLookup(outbound: OutboundNetwork, policy: OutboundPolicyName, url: URL): net.LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    outbound.pinnedResolve(url, policy).then(
      (pinned) => {
        // `host:port:addr,[v6addr],…`, git's curloptResolve form.
        const addresses = (pinned ?? '')
          .replace(/^[^:]*:\d+:/, '')
          .split(',')
          .map((a) => a.replace(/^\[(.*)\]$/, '$1'))
          .filter((a) => net.isIP(a));
        if (!addresses.length) return callback(new Error(`${url.hostname} did not resolve`));
        const entries = addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (err: unknown) => callback(err),
    );
  }) as unknown as net.LookupFunction;
}

/** openid-client clients of the configured sources, with their discovery documents read through the allow-list. */
export class ProviderClients {
  private readonly clients = new Map<number, { version: number; readAt: number; client: Promise<BaseClient> }>();

  constructor(
    private readonly outbound: OutboundNetwork,
    private readonly policy: () => OutboundPolicyName,
    private readonly redirectUri: (source: OidcSource) => string,
  ) {}

  /** The client of `source`, discovering its provider when the source changed or the document is old. */
  clientFor(source: OidcSource): Promise<BaseClient> {
    const cached = this.clients.get(source.id);
    if (cached && cached.version === source.updatedUnix && Date.now() - cached.readAt < DISCOVERY_TTL_MS) return cached.client;
    const client = this.build(source);
    this.clients.set(source.id, { version: source.updatedUnix, readAt: Date.now(), client });
    // A failed discovery is not kept: the next sign-in tries again.
    client.catch(() => this.clients.delete(source.id));
    return client;
  }

  private async build(source: OidcSource): Promise<BaseClient> {
    if (source.secretUnreadable)
      throw providerUnavailable(
        source,
        `its client secret cannot be read (was security.SECRET_KEY changed?): set it again with update-source`,
      );
    const issuer = new Issuer(await this.discover(source));
    const httpOptions = (url: URL) => ({ lookup: pinnedLookup(this.outbound, this.policy(), url), timeout: REQUEST_TIMEOUT_MS });
    issuer[custom.http_options] = httpOptions;
    const client = new issuer.Client({
      client_id: source.clientId,
      client_secret: source.clientSecret,
      redirect_uris: [this.redirectUri(source)],
      response_types: ['code'],
    });
    client[custom.http_options] = httpOptions;
    // Clocks of the forge and the provider may differ a little; an ID token's times are checked within this.
    client[custom.clock_tolerance] = 30;
    return client;
  }

  /** Read and check the provider's discovery document through the allow-list. */
  async discover(source: OidcSource): Promise<IssuerMetadata> {
    const policy = this.policy();
    let text: string;
    try {
      const res = await this.outbound.request(
        source.discoveryUrl,
        { headers: { Accept: 'application/json' }, timeoutMs: REQUEST_TIMEOUT_MS, maxBodyBytes: MAX_DISCOVERY_BYTES },
        policy,
      );
      if (res.status !== 200) throw providerUnavailable(source, `the discovery document answered ${res.status}`);
      if (res.truncated) throw providerUnavailable(source, 'the discovery document is too large');
      text = res.body;
    } catch (err) {
      if (isApiError(err)) throw err;
      throw providerUnavailable(source, `reading ${source.discoveryUrl} failed: ${(err as Error).message}`);
    }
    let metadata: IssuerMetadata;
    try {
      metadata = JSON.parse(text) as IssuerMetadata;
    } catch {
      throw providerUnavailable(source, 'the discovery document is not JSON');
    }
    for (const key of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof metadata[key] !== 'string' || !metadata[key]) throw providerUnavailable(source, `the discovery document has no ${key}`);
    }
    await this.assertEndpointsAllowed(source, metadata, policy);
    return metadata;
  }

  /** The endpoints the forge itself calls must pass the allow-list too (the browser goes to the authorization endpoint). */
  private async assertEndpointsAllowed(source: OidcSource, metadata: IssuerMetadata, policy: OutboundPolicyName): Promise<void> {
    for (const key of ['token_endpoint', 'jwks_uri', 'userinfo_endpoint'] as const) {
      const url = metadata[key];
      if (typeof url !== 'string' || !url) continue;
      try {
        await this.outbound.checkRemoteUrl(url, policy);
      } catch (err) {
        throw providerUnavailable(source, `its ${key} ${url}: ${(err as Error).message}`);
      }
    }
  }

  /** Forget a source's client (after it was changed or deleted). */
  forget(sourceId: number): void {
    this.clients.delete(sourceId);
  }
}
