export const TYPE = 'swift';

export interface SwiftSettings {
  maxArchiveSize: number;
}

/** Signature data of a signed release, as SE-0292 §4.2.1 names it. */
export interface ReleaseSigning {
  signatureBase64Encoded: string;
  signatureFormat: string;
}

/** What the kernel's version row holds for a Swift release. */
export interface ReleaseRecord {
  scope: string;
  name: string;
  /** The client's release metadata (Appendix B), as published. */
  metadata: Record<string, unknown>;
  signing?: ReleaseSigning;
}
