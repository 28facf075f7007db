/** The validated configuration (see schemas/config.schema.json; defaults are filled in). */
export interface HearthConfig {
  server: {
    APP_NAME: string;
    HTTP_ADDR: string;
    HTTP_PORT: number;
    ROOT_URL: string;
    DATA_DIR: string;
    MAX_BODY_SIZE: number;
  };
  database: { URL: string; POOL_MAX: number };
  log: { LEVEL: string; REQUESTS: boolean };
  security: { MIN_PASSWORD_LENGTH: number; SCRYPT_COST: number; SECRET_KEY: string; WRITE_SCOPE_IMPLIES_DELETE: boolean };
  service: {
    DEFAULT_KEEP_EMAIL_PRIVATE: boolean;
    NO_REPLY_ADDRESS: string;
    DEFAULT_USER_VISIBILITY: 'public' | 'limited' | 'private';
    DISABLE_REGISTRATION: boolean;
  };
  api: {
    ENABLE_SWAGGER: boolean;
    MAX_RESPONSE_ITEMS: number;
    DEFAULT_PAGING_NUM: number;
    DEFAULT_GIT_TREES_PER_PAGE: number;
    DEFAULT_MAX_BLOB_SIZE: number;
  };
  git: { MAX_GIT_DIFF_FILES: number };
  metrics: { ENABLED: boolean; TOKEN: string };
  webhook: {
    ALLOWED_HOST_LIST: string;
    DELIVER_TIMEOUT: number;
    WORKERS: number;
    MAX_ATTEMPTS: number;
    RETRY_BACKOFF: number;
    POLL_INTERVAL: number;
  };
  maintenance: { LEFTOVER_GRACE_PERIOD: number; LEFTOVER_SWEEP_INTERVAL: number };
  plugins: Record<string, { enabled: boolean; package?: string; settings: Record<string, unknown> }>;
  /** Sections the kernel passes through to plugins (ui, repository, attachment, migrations, actions…). */
  [section: string]: any;
}

/** A configuration problem that stops the start; its message names the key, the value and what is allowed. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
