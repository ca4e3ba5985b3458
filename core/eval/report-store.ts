import type { ArtifactRef } from '../artifacts/types.js';
import type { ArtifactStore } from '../artifacts/store.js';
import { renderHtml } from './report-html.js';
import { renderMarkdown } from './report-markdown.js';
import type { EvalReport } from './types.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Store a report as one directory artifact: report.json, report.md and the self-contained report.html. */
export async function putReport(store: ArtifactStore, report: EvalReport, parents: ArtifactRef[], stats: Record<string, unknown>): Promise<ArtifactRef> {
  const dir = await mkdtemp(join(tmpdir(), 'flywheel-report-'));
  try {
    await writeFile(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(dir, 'report.md'), renderMarkdown(report));
    await writeFile(join(dir, 'report.html'), renderHtml(report));
    return await store.putDir('eval-report', dir, { parents, stats });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
