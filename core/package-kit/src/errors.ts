/** An archive the readers cannot accept (malformed, truncated, over a limit); formats answer it 400 or 422. */
export class ArchiveError extends Error {}
