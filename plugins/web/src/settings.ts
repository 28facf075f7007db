/** The web plugin's settings (`plugins.web` in config). */
export interface WebSettings {
  /** Days a signed-in session lasts without a visit (renewed as it is used). */
  sessionDays: number;
  /** Failed sign-ins allowed per account name, and per client address, within `loginWindowMinutes`. */
  loginAttemptsPerAccount: number;
  loginAttemptsPerAddress: number;
  loginWindowMinutes: number;
  /** The largest form body accepted (comments, issue text), in bytes. */
  maxFormBytes: number;
}

export const webSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sessionDays: { type: 'integer', minimum: 1, maximum: 365, default: 14 },
    loginAttemptsPerAccount: { type: 'integer', minimum: 1, default: 5 },
    loginAttemptsPerAddress: { type: 'integer', minimum: 1, default: 30 },
    loginWindowMinutes: { type: 'integer', minimum: 1, default: 15 },
    maxFormBytes: { type: 'integer', minimum: 1024, default: 1048576 },
  },
};
