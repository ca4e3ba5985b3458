import { publishFile, type PublishFile } from './types.js';

export const MANIFEST_PATH = 'manifest.json';
export const PUBLICATION_FORMAT = 'mcp-flywheel.publication/1';

/** What manifest.json says besides the file list: enough to trace the publication back to the store. */
export interface ManifestHeader {
  kind: 'dataset' | 'adapter';
  name: string;
  datasetHash: string;
  /** The artifacts published, by role (adapter, rendered-train, eval-report, …) → sha256. */
  artifacts: Record<string, string>;
}

/**
 * manifest.json: every other file with its sha256 and size. It is written last, so a reader that finds it
 * knows the upload is complete and can verify each file. No timestamps: the same content gives the same bytes.
 */
export function manifestFile(header: ManifestHeader, files: PublishFile[]): PublishFile {
  const body = {
    format: PUBLICATION_FORMAT,
    ...header,
    files: files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: f.bytes.length })),
  };
  return publishFile(MANIFEST_PATH, `${JSON.stringify(body, null, 2)}\n`);
}
