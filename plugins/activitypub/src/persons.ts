import { ApiError, type AccessTarget, type PluginContext, type Principal, type UserInfo } from '@hearth/plugin-api';
import type { PersonKeys } from './person-keys';

export const ACTIVITY_JSON = 'application/activity+json';
export const LD_JSON_PROFILE = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

/** The IRIs of a person: built from the user id, never the name, so that they survive a rename. */
export function personIri(appUrl: string, userId: number): string {
  return `${appUrl}api/v1/activitypub/user-id/${userId}`;
}

export function profileUrl(appUrl: string, user: UserInfo): string {
  return `${appUrl}${encodeURIComponent(user.name)}`;
}

/** Persons: individual accounts the caller may see. */
export class Persons {
  constructor(
    private readonly ctx: PluginContext<unknown>,
    private readonly keys: PersonKeys,
  ) {}

  /**
   * The person of a user the access module resolved (`{ user: 'visible', by: 'id' }`), or 404 for an
   * organization: organizations are no persons.
   */
  person(target: AccessTarget): UserInfo {
    const user = target.owner;
    if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [uid: ${user?.id}]`);
    return user;
  }

  /** The person with id `userId` as `viewer` may see it; 404 for unknown and invisible users and for organizations. */
  async visible(userId: number, viewer: Principal | null): Promise<UserInfo> {
    const user = await this.ctx.users.byId(userId);
    if (!user || user.type !== 0 || !(await this.ctx.access.ownerVisible(user, viewer)))
      throw ApiError.notFound(`user does not exist [uid: ${userId}]`);
    return user;
  }

  /** The visible person a name designates, or 404. */
  async visibleByName(name: string, viewer: Principal | null): Promise<UserInfo> {
    const user = await this.ctx.users.byName(name);
    if (!user) throw ApiError.notFound(`user ${name} does not exist`);
    return this.visible(user.id, viewer);
  }

  async avatarUrl(user: UserInfo, viewer: Principal | null): Promise<string> {
    return String((await this.ctx.users.toApi(user, viewer)).avatar_url ?? '');
  }

  /** The Person actor document (ActivityStreams, with the security vocabulary for its key). */
  async document(user: UserInfo, viewer: Principal | null): Promise<Record<string, unknown>> {
    const { appUrl } = this.ctx.forge;
    const id = personIri(appUrl, user.id);
    const [publicKeyPem, avatar] = await Promise.all([this.keys.publicKeyPem(user.id), this.avatarUrl(user, viewer)]);
    return {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id,
      type: 'Person',
      preferredUsername: user.name,
      name: user.fullName || user.name,
      url: profileUrl(appUrl, user),
      icon: { type: 'Image', mediaType: 'image/png', url: avatar },
      inbox: `${id}/inbox`,
      outbox: `${id}/outbox`,
      publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
    };
  }
}
