/** The implementation lives in @hearth/testing (core/testing), shared with plugins' own tests. */
export { ADMIN, startServer, type CallOptions, type Reply, type StartOptions, type TestServer } from '@hearth/testing';
