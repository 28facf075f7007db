/** The implementation lives in @hearth/testing (core/testing), shared with plugins' own tests. */
export { cloneUrl, gitSandbox, type GitRun } from '@hearth/testing';
