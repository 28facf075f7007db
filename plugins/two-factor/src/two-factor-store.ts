import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { Secret, TOTP } from 'otpauth';
import type { SecretSealer } from '@hearth/plugin-api';

/** RFC 6238 as authenticator apps expect it. */
const PERIOD = 30;
const DIGITS = 6;
/** One step either side: a code typed as the period turns still counts. */
const WINDOW = 1;

const nowUnix = () => Math.floor(Date.now() / 1000);
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
/** Codes as typed: spaces and dashes some apps show are ignored. */
const normalize = (code: string) => code.replace(/[\s-]/g, '');

export interface Enrolment {
  /** The secret, base32, as the user types it into an app. */
  secret: string;
  /** The otpauth:// URI (QR code contents). */
  uri: string;
}

export type Status = 'none' | 'enrolling' | 'active';

/**
 * Users' TOTP second factors: secrets sealed at rest, a single-use recovery code stored hashed,
 * and the last accepted step remembered so that a code signs in once.
 */
export class TwoFactorStore {
  constructor(
    private readonly db: Knex,
    private readonly sealer: SecretSealer,
    private readonly issuer: () => string,
  ) {}

  private context = (userId: number) => `two-factor:${userId}`;

  private totp(secret: string, label = ''): TOTP {
    return new TOTP({ issuer: this.issuer(), label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD, secret: Secret.fromBase32(secret) });
  }

  private async row(userId: number): Promise<Record<string, any> | undefined> {
    return this.db('two_factor').where({ user_id: userId }).first();
  }

  async status(userId: number): Promise<Status> {
    const row = await this.row(userId);
    return !row ? 'none' : isOn(row.active) ? 'active' : 'enrolling';
  }

  async isActive(userId: number): Promise<boolean> {
    return (await this.status(userId)) === 'active';
  }

  /** The enrolment under way (a new secret when there is none); an active factor is left alone (null). */
  async enrolment(userId: number, login: string): Promise<Enrolment | null> {
    const row = await this.row(userId);
    if (row && isOn(row.active)) return null;
    let secret: string;
    if (row) secret = this.sealer.open(String(row.secret), this.context(userId));
    else {
      secret = new Secret({ size: 20 }).base32;
      const sealed = this.sealer.seal(secret, this.context(userId));
      await this.db('two_factor').insert({
        user_id: userId,
        secret: sealed,
        active: false,
        created_unix: nowUnix(),
        updated_unix: nowUnix(),
      });
    }
    return { secret, uri: this.totp(secret, login).toString() };
  }

  /** The time step `code` is valid for (within the window), or null. */
  private stepOf(row: Record<string, any>, code: string): number | null {
    const token = normalize(code);
    if (!/^\d{6}$/.test(token)) return null;
    const secret = this.sealer.open(String(row.secret), this.context(Number(row.user_id)));
    const delta = this.totp(secret).validate({ token, window: WINDOW });
    return delta === null ? null : Math.floor(nowUnix() / PERIOD) + delta;
  }

  /** Activate the enrolment under way with a current code; answers the recovery code to show once, or null for a wrong code. */
  async confirm(userId: number, code: string): Promise<string | null> {
    const row = await this.row(userId);
    if (!row || isOn(row.active)) return null;
    const step = this.stepOf(row, code);
    if (step === null) return null;
    const scratch = newScratchCode();
    await this.db('two_factor')
      .where({ user_id: userId })
      .update({ active: true, last_used_step: step, scratch_hash: sha256(scratch), updated_unix: nowUnix() });
    return scratch;
  }

  /**
   * Whether `code` is a current code of the user's active factor. With `once` (sign-in) a step is
   * accepted once: the update only succeeds for a step later than the last one used, so two
   * requests racing with the same code cannot both pass.
   */
  async verify(userId: number, code: string, once: boolean): Promise<boolean> {
    const row = await this.row(userId);
    if (!row || !isOn(row.active)) return false;
    const step = this.stepOf(row, code);
    if (step === null) return false;
    if (!once) return true;
    const updated = await this.db('two_factor')
      .where({ user_id: userId })
      .andWhere('last_used_step', '<', step)
      .update({ last_used_step: step, updated_unix: nowUnix() });
    return updated === 1;
  }

  /** Use the recovery code: it signs in once, then is gone (a new one is made in the settings). */
  async useScratchCode(userId: number, code: string): Promise<boolean> {
    const hash = sha256(normalize(code).toUpperCase());
    const updated = await this.db('two_factor')
      .where({ user_id: userId, scratch_hash: hash })
      .andWhere('scratch_hash', '<>', '')
      .update({ scratch_hash: '', updated_unix: nowUnix() });
    return updated === 1;
  }

  /** A new recovery code for an active factor (the old one stops working), or null. */
  async regenerateScratchCode(userId: number): Promise<string | null> {
    if (!(await this.isActive(userId))) return null;
    const scratch = newScratchCode();
    await this.db('two_factor')
      .where({ user_id: userId })
      .update({ scratch_hash: sha256(scratch), updated_unix: nowUnix() });
    return scratch;
  }

  async remove(userId: number, db: Knex = this.db): Promise<void> {
    await db('two_factor').where({ user_id: userId }).delete();
  }
}

/** 16 base32 characters (80 random bits): stored as a plain SHA-256, as tokens are. */
function newScratchCode(): string {
  return new Secret({ size: 10 }).base32;
}

/** A boolean column as each database returns it (true, 1, '1'). */
const isOn = (value: unknown) => value === true || Number(value) === 1;
