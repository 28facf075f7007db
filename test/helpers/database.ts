/** The implementation lives in @hearth/testing (core/testing), shared with plugins' own tests. */
export { createTestDatabase, type TestDatabase } from '@hearth/testing';
