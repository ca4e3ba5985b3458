import type { Catalog } from '../../core/catalog/types.js';
import type { DatasetConfig } from '../../core/config/schema.js';
import { domainPersonas } from '../../core/dataset/personas.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { handwrittenRows, parseJsonl } from '../../core/eval/handwritten.js';
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
