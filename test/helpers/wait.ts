/** The implementation lives in @hearth/testing (core/testing), shared with plugins' own tests. */
export { waitFor } from '@hearth/testing';
