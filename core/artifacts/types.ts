import { InputError } from '../errors.js';
/** The only thing workflows pass around: a pointer to immutable, hash-verified content. */
export interface ArtifactRef {
  uri: string;
  sha256: string;
  kind: string;
  /** Rows for JSONL, files for a directory, 1 for a single document. */
  count: number;
  bytes: number;
}

export type MediaType =
  'application/jsonl' | 'application/json' | 'application/octet-stream' | 'text/plain' | typeof TREE_MEDIA_TYPE;

/** A directory artifact is stored as a tree document listing its files, each a blob of its own. */
export const TREE_MEDIA_TYPE = 'application/vnd.flywheel.tree+json';

export interface TreeEntry {
  path: string;
  sha256: string;
  bytes: number;
}

export interface Manifest {
  sha256: string;
  kind: string;
  mediaType: MediaType;
  count: number;
  bytes: number;
  /** sha256 of the artifacts this one was derived from. */
  parents: string[];
  stats: Record<string, unknown>;
  producer?: { stage: string; version: string; runId?: string };
  createdAt: string;
}

export interface PutOptions {
  parents?: ArtifactRef[] | string[];
  stats?: Record<string, unknown>;
  producer?: Manifest['producer'];
}

export interface MemoEntry {
  key: string;
  stage: string;
  outputs: Record<string, ArtifactRef>;
  /** The one-line summary the stage reported, shown again when the memo is reused. */
  summary?: string;
  createdAt: string;
  /** The run that produced the outputs. */
  runId?: string;
  /** The last run that reused them, and when (gc keeps an entry with the newest run that used it). */
  usedBy?: string;
  usedAt?: string;
}

/** Raised for anything the caller got wrong (bad ref, hash mismatch, bad name): retrying cannot help. */
export class ArtifactError extends InputError {
  override name = 'ArtifactError';
}
