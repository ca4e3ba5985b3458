import { readFile } from 'node:fs/promises';
import type { Catalog } from '../../core/catalog/types.js';
import type { DatasetConfig } from '../../core/config/schema.js';
import { domainPersonas } from '../../core/dataset/personas.js';
import type { RenderFormat } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { handwrittenCases, handwrittenRows, parseJsonl } from '../../core/eval/handwritten.js';
import type { EvalCase } from '../../core/eval/types.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';

/** Hand-written cases of a file, checked against a catalog with a project's dataset settings (personas, slices). */
export function handwrittenRowsOf(text: string, file: string, catalog: Catalog, dataset: DatasetConfig): RouterRow[] {
  return handwrittenRows(parseJsonl(text, file), {
    catalog,
    personas: domainPersonas(catalog, dataset, DOMAIN_PACKS),
    sliceSize: dataset.sliceSize,
    ...(dataset.slicing ? { slicing: dataset.slicing } : {}),
    seed: dataset.seed,
    source: file,
  });
}

/** A benchmark's `--cases NAME=FILE[,FILE…]`: the named set of every file's cases, checked against the catalog. */
export async function handwrittenSet(
  spec: string,
  catalog: Catalog,
  dataset: DatasetConfig,
  format: RenderFormat,
): Promise<{ name: string; cases: EvalCase[] }> {
  const eq = spec.indexOf('=');
  const cases: EvalCase[] = [];
  for (const file of spec
    .slice(eq + 1)
    .split(',')
    .filter(Boolean)) {
    const rows = handwrittenRowsOf(await readFile(file, 'utf8'), file, catalog, dataset);
    cases.push(...handwrittenCases(rows, catalog, format, file));
  }
  return { name: eq > 0 ? spec.slice(0, eq) : spec, cases };
}
