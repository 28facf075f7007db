import type { Request } from 'express';
import type { Principal, RepositoryTarget } from './types';

/**
 * Attachments as the core owns them (API 2.1): files of releases (and of issues and comments),
 * streamed through the `[attachment]` limits into content-addressed storage, downloaded by
 * browsers at `ROOT_URL attachments/{uuid}` (the core's router). Plain data; a blob goes with the
 * last attachment that references it. The rows of a deleted repository go with it (the core's
 * `repository.deleting` tap).
 */

/** One attachment. @public */
export interface AttachmentInfo {
  id: number;
  uuid: string;
  repositoryId: number;
  /** The release it belongs to, else 0. */
  releaseId: number;
  /** The issue (or pull request) it belongs to, else 0; with `commentId`, the issue of its comment. (API 2.1) */
  issueId: number;
  /** The comment it belongs to, else 0. (API 2.1) */
  commentId: number;
  uploaderId: number;
  name: string;
  size: number;
  downloadCount: number;
  createdUnix: number;
}

/** Where a new attachment belongs. @public */
export interface AttachmentTarget {
  repositoryId: number;
  releaseId: number;
  /** An issue's attachment: the issue (0 for a release's). (API 2.1) */
  issueId?: number;
  /** A comment's attachment: the comment (and its issue as `issueId`). (API 2.1) */
  commentId?: number;
  uploaderId: number;
  /** The name to store (else the uploaded file's name); refused with 422 when not a valid file name. */
  name?: string;
}

/**
 * Decides whether `principal` may download a release's attachment, once the core found that the
 * caller reads the repository's `releases` unit (e.g. drafts for writers only). False reads as 404.
 * @public
 */
export type ReleaseDownloadCheck = (
  attachment: AttachmentInfo,
  repository: RepositoryTarget,
  principal: Principal | null,
) => Promise<boolean>;

/**
 * Which unit of its repository guards an issue's or comment's attachment (`issues` or `pulls`,
 * read access needed), or null when the issue does not exist (404). (API 2.1)
 * @public
 */
export type IssueDownloadCheck = (attachment: AttachmentInfo) => Promise<'issues' | 'pulls' | null>;

/** `ctx.attachments`. Errors are ApiErrors (400, 413, 422). @public */
export interface AttachmentService {
  /**
   * Store the `attachment` file field of a multipart/form-data request (`ApiRequest.raw`),
   * checked against `[attachment]` ENABLED, MAX_SIZE and ALLOWED_TYPES; nothing is stored when refused.
   */
  create(req: Request, target: AttachmentTarget): Promise<AttachmentInfo>;
  /** The attachments of releases, oldest first. */
  listOfReleases(releaseIds: readonly number[]): Promise<AttachmentInfo[]>;
  /** One attachment of a release, or null. */
  getOfRelease(releaseId: number, id: number): Promise<AttachmentInfo | null>;
  /** Change the stored name (refused with 422 when not a valid file name). */
  rename(attachment: AttachmentInfo, name: string): Promise<AttachmentInfo>;
  /** Delete attachments; their blobs go when nothing references them any more. */
  remove(attachments: readonly AttachmentInfo[]): Promise<void>;
  /** Gitea's `Attachment` JSON (with its `browser_download_url`). */
  toApi(attachment: AttachmentInfo): Record<string, unknown>;
  /** The plugin that owns releases says who downloads their attachments (one check; without one they are 404). */
  guardReleaseDownloads(check: ReleaseDownloadCheck): void;
  /** The attachments of issues themselves (not of their comments), oldest first. (API 2.1) */
  listOfIssues(issueIds: readonly number[]): Promise<AttachmentInfo[]>;
  /** The attachments of comments, oldest first. (API 2.1) */
  listOfComments(commentIds: readonly number[]): Promise<AttachmentInfo[]>;
  /** One attachment of an issue itself, or null. (API 2.1) */
  getOfIssue(issueId: number, id: number): Promise<AttachmentInfo | null>;
  /** One attachment of a comment, or null. (API 2.1) */
  getOfComment(commentId: number, id: number): Promise<AttachmentInfo | null>;
  /** The plugin that owns issues says which unit guards their attachments' downloads (one check; without one they are 404). (API 2.1) */
  guardIssueDownloads(check: IssueDownloadCheck): void;
}
