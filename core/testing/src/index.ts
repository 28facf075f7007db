/**
 * @hearth/testing: what the kernel's integration tests and plugins' own tests use to run the real
 * server. It depends on the kernel only through the @hearth/core package (its built dist).
 */
export { ADMIN, startServer, type CallOptions, type Reply, type StartOptions, type TestServer } from './server';
export { createTestDatabase, type TestDatabase } from './database';
export { cloneUrl, gitSandbox, type GitRun } from './git';
export { waitFor } from './wait';
export { mustSucceed, runCommand, type CommandOptions, type CommandResult } from './command';
