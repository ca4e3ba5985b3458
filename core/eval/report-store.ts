import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactRef } from '../artifacts/types.js';
import type { ArtifactStore } from '../artifacts/store.js';
import { renderHtml } from './report-html.js';
import { renderMarkdown } from './report-markdown.js';
import type { EvalReport } from './types.js';

/** Write report.json, report.md and the self-contained report.html into dir, each whole (written beside, then renamed). */
export async function writeReport(dir: string, report: EvalReport): Promise<void> {
  const files: Array<[string, string]> = [
    ['report.json', `${JSON.stringify(report, null, 2)}\n`],
    ['report.md', renderMarkdown(report)],
    ['report.html', renderHtml(report)],
  ];
  for (const [name, text] of files) {
    await writeFile(join(dir, `.${name}.partial`), text);
    await rename(join(dir, `.${name}.partial`), join(dir, name));
  }
}

/** Store a report as one directory artifact (the three files of writeReport). */
export async function putReport(
  store: ArtifactStore,
  report: EvalReport,
  parents: ArtifactRef[],
  stats: Record<string, unknown>,
): Promise<ArtifactRef> {
  const dir = await mkdtemp(join(tmpdir(), 'flywheel-report-'));
  try {
    await writeReport(dir, report);
    return await store.putDir('eval-report', dir, { parents, stats });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
