import { stringify } from 'yaml';

/**
 * The pieces both cards share: YAML front matter in the Hub's card-metadata format (written by the yaml
 * package, so any value is quoted as YAML needs), safe markdown table cells, number formatting.
 */
export function frontMatter(meta: Record<string, unknown>): string {
  const clean = Object.fromEntries(
    Object.entries(meta).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  );
  return `---\n${stringify(clean, { lineWidth: 0 })}---\n`;
}

/** A markdown table cell: no pipe, newline or raw HTML can break the table or the page. */
export function cell(value: unknown): string {
  return String(value ?? '—')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ');
}

export function table(headers: string[], rows: unknown[][]): string {
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** Inline code for hashes and ids (backticks removed: they would end the span). */
export function code(value: string): string {
  return `\`${value.replace(/`/g, '')}\``;
}

export function fixed(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? '—' : x.toFixed(digits);
}

/**
 * Whether a base model name is a Hub model id ("org/name" or a legacy bare name): only then does it go into
 * `base_model`, which the Hub links and validates. tiny:<preset> and local paths stay in the card body.
 */
export function isHubModelId(name: unknown): name is string {
  return typeof name === 'string' && /^(?:[A-Za-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*$/.test(name) && !name.includes('..');
}

/** The Hub's size_categories bucket for a row count. */
export function sizeCategory(n: number): string {
  const buckets: Array<[number, string]> = [
    [1e3, 'n<1K'],
    [1e4, '1K<n<10K'],
    [1e5, '10K<n<100K'],
    [1e6, '100K<n<1M'],
    [1e7, '1M<n<10M'],
    [1e8, '10M<n<100M'],
    [1e9, '100M<n<1B'],
    [1e10, '1B<n<10B'],
    [1e11, '10B<n<100B'],
    [1e12, '100B<n<1T'],
  ];
  return buckets.find(([limit]) => n < limit)?.[1] ?? 'n>1T';
}

/** Tags every flywheel card carries, so published routers are easy to find. */
export const COMMON_TAGS = ['mcp', 'tool-calling', 'function-calling', 'tool-router', 'mcp-flywheel'];
