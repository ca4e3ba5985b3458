import type { Manifest } from '../artifacts/index.js';
import { cell, code, COMMON_TAGS, frontMatter, sizeCategory, table } from './card-format.js';
import { datasetName, type DatasetParts } from './dataset.js';

export interface DatasetCardInput {
  parts: DatasetParts;
  /** cat-<sha12>, when the catalog is in the store. */
  catalogVersion?: string;
  license: string;
}

/** Paths of a split inside a dataset publication. */
export function datasetPaths(split: string): { rendered: string; rows: string } {
  return { rendered: `data/${split}.jsonl`, rows: `rows/${split}.jsonl` };
}

const VERDICTS = ['call', 'abstain', 'violation', 'escalate'];

function counts(m: Manifest | undefined, key: string): Record<string, number> {
  const v = m?.stats[key];
  return v && typeof v === 'object' ? (v as Record<string, number>) : {};
}

/**
 * The dataset card: Hub metadata (configs point the viewer at both layers), then provenance and per-split
 * counts. It depends on the dataset alone (not on which split or adapter named it), so it is the same bytes
 * however the dataset is published.
 */
export function datasetCard(input: DatasetCardInput): string {
  const { parts } = input;
  const name = datasetName(parts.hash);
  const rows = parts.splits.reduce((n, s) => n + (s.rendered?.count ?? s.rows?.count ?? 0), 0);
  const dataFiles = (layer: 'rendered' | 'rows') =>
    parts.splits.filter((s) => s[layer]).map((s) => ({ split: s.split, path: datasetPaths(s.split)[layer] }));
  const configs = [
    ...(dataFiles('rendered').length ? [{ config_name: 'default', data_files: dataFiles('rendered') }] : []),
    ...(dataFiles('rows').length ? [{ config_name: 'router_rows', data_files: dataFiles('rows') }] : []),
  ];
  const meta = {
    pretty_name: `mcp-flywheel tool-router dataset ${name}`,
    license: input.license,
    language: ['en'],
    task_categories: ['text-generation'],
    tags: COMMON_TAGS,
    size_categories: [sizeCategory(rows)],
    configs,
  };
  const catalogStats = parts.catalog?.stats ?? {};
  const byServer = counts(parts.catalog, 'toolsByServer');
  const format = parts.splits.map((s) => s.rendered?.stats.format).find((f) => typeof f === 'string');
  const provenance = [
    ['dataset hash', code(parts.hash)],
    [
      'catalog version',
      input.catalogVersion
        ? `${code(input.catalogVersion)} — ${catalogStats.tools ?? '?'} tools${
            Object.keys(byServer).length
              ? ` (${Object.entries(byServer)
                  .map(([s, n]) => `${s} ${n}`)
                  .join(', ')})`
              : ''
          }`
        : 'not in the store',
    ],
    ['render format', format ?? '—'],
  ];
  const splitRows = parts.splits.map((s) => {
    const verdicts = counts(s.rows, 'byVerdict');
    return [
      s.split,
      s.rendered?.count ?? s.rows?.count ?? 0,
      ...VERDICTS.map((v) => verdicts[v] ?? (s.rows ? 0 : '—')),
      s.rendered ? code(s.rendered.sha256) : '—',
      s.rows ? code(s.rows.sha256) : '—',
    ];
  });
  const domains = [...new Set(parts.splits.flatMap((s) => Object.keys(counts(s.rows, 'byDomain'))))].sort();
  return `${frontMatter(meta)}
# ${name}: tool-router dataset (mcp-flywheel)

Rows for training a small **tool-router** model: given a user request and a slice of an MCP tool catalog,
emit exactly one schema-valid tool call as JSON, or an explicit abstention (abstain, violation, escalate).
Built by mcp-flywheel from the catalog below: intents, teacher-drafted requests,
calls validated against JSON Schema, RBAC scopes and a sandbox dry-run, near-miss negatives, an entity-disjoint
train/validation/test split (the test split is frozen per catalog version).

## Provenance

${provenance.map(([k, v]) => `- **${k}:** ${cell(v)}`).join('\n')}

The dataset hash is the sha256 of the canonical JSON \`{"rendered": {split: sha256}, "rows": {split: sha256}}\`;
each sha256 there is the sha256 of the published file, so the hash can be recomputed from the files.

## Splits

${table(['split', 'rows', ...VERDICTS, 'data/ sha256', 'rows/ sha256'], splitRows)}

${
  domains.length
    ? `Rows per domain:\n\n${table(
        ['split', ...domains],
        parts.splits.map((s) => [s.split, ...domains.map((d) => counts(s.rows, 'byDomain')[d] ?? 0)]),
      )}\n`
    : ''
}
## Files

- \`data/{split}.jsonl\` (config \`default\`): chat rows as the trainer reads them, TRL prompt/completion with a
  \`tools\` column (OpenAI function schemas); the completion is the canonical JSON target.
- \`rows/{split}.jsonl\` (config \`router_rows\`): the router rows they were rendered from — request, offered
  tools, target \`{tool, arguments}\` or \`{tool: null, verdict, code, reason}\`, entities, provenance.
- \`manifest.json\`: every file with its sha256.
${parts.notes.length ? `\n## Notes\n\n${parts.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
}
