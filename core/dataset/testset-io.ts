import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { canonicalJson } from '../hash.js';
import type { RouterRow } from './types.js';
import { InputError } from '../errors.js';

/**
 * Export and import of the frozen test set for human audit. JSONL rows carry an `approved` field; CSV has
 * readable columns plus the full row as JSON. On import every row needs a decision (approved true/false);
 * approved rows become the new frozen set, rejected ones are dropped.
 */
export type TestsetFormat = 'jsonl' | 'csv';

export class TestsetError extends InputError {
  override name = 'TestsetError';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(
      `${file}: cannot import test set\n${problems
        .slice(0, 20)
        .map((p) => `  - ${p}`)
        .join('\n')}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`,
    );
  }
}

export const CSV_COLUMNS = [
  'id',
  'domain',
  'persona',
  'request',
  'target_tool',
  'target_arguments',
  'target_verdict',
  'target_code',
  'approved',
  'notes',
  'row_json',
] as const;

export function formatOf(file: string): TestsetFormat {
  if (file.endsWith('.csv')) return 'csv';
  if (file.endsWith('.jsonl')) return 'jsonl';
  throw new TestsetError(file, ['use a .jsonl or .csv file name']);
}

export function exportTestset(rows: RouterRow[], format: TestsetFormat): string {
  if (format === 'jsonl') return rows.map((r) => `${canonicalJson({ ...r, approved: null, notes: '' })}\n`).join('');
  return stringify(
    rows.map((r) => [
      r.id,
      r.domain,
      r.persona.name,
      r.request,
      r.target.tool ?? '',
      r.target.tool === null ? '' : canonicalJson(r.target.arguments),
      r.target.tool === null ? r.target.verdict : 'call',
      r.target.tool === null ? r.target.code : '',
      '',
      '',
      canonicalJson(r),
    ]),
    { header: true, columns: [...CSV_COLUMNS] },
  );
}

function decision(v: unknown): boolean | undefined {
  if (v === true || v === false) return v;
  const s = String(v ?? '')
    .trim()
    .toLowerCase();
  if (['true', 'yes', 'y', '1', 'x'].includes(s)) return true;
  if (['false', 'no', 'n', '0'].includes(s)) return false;
  return undefined;
}

function checkRow(r: unknown, where: string, problems: string[]): RouterRow | undefined {
  const row = r as RouterRow;
  if (
    !row ||
    typeof row.id !== 'string' ||
    typeof row.domain !== 'string' ||
    !Array.isArray(row.entities) ||
    row.entities.length === 0 ||
    typeof row.request !== 'string' ||
    !Array.isArray(row.tools) ||
    !row.target ||
    !row.persona
  ) {
    problems.push(`${where}: not a router row (needs id, domain, entities, request, persona, tools, target)`);
    return undefined;
  }
  return row;
}

/** Parse an audited export; returns the approved rows. Throws TestsetError naming every bad line. */
export function importTestset(
  text: string,
  format: TestsetFormat,
  file: string,
): { approved: RouterRow[]; rejected: number; repeated: number } {
  const problems: string[] = [];
  const approved: RouterRow[] = [];
  let rejected = 0;
  const take = (row: RouterRow | undefined, ok: boolean | undefined, where: string) => {
    if (!row) return;
    if (ok === undefined) problems.push(`${where}: approved must be true or false (yes/no/1/0)`);
    else if (ok) {
      const { approved: _a, notes: _n, ...clean } = row as RouterRow & { approved?: unknown; notes?: unknown };
      approved.push(clean as RouterRow);
    } else rejected++;
  };
  if (format === 'jsonl') {
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch (err) {
        problems.push(`line ${i + 1}: invalid JSON (${(err as Error).message})`);
        return;
      }
      take(
        checkRow(obj, `line ${i + 1}`, problems),
        decision((obj as { approved?: unknown }).approved),
        `line ${i + 1}`,
      );
    });
  } else {
    let records: Array<Record<string, string>>;
    try {
      records = parse(text, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
    } catch (err) {
      throw new TestsetError(file, [(err as Error).message]);
    }
    const missing = CSV_COLUMNS.filter((c) => records.length > 0 && !(c in records[0]!));
    if (missing.length) throw new TestsetError(file, [`missing columns: ${missing.join(', ')}`]);
    records.forEach((rec, i) => {
      const where = `line ${i + 2}`;
      let obj: unknown;
      try {
        obj = JSON.parse(rec.row_json ?? '');
      } catch {
        problems.push(`${where}: column row_json is not JSON`);
        return;
      }
      take(checkRow(obj, where, problems), decision(rec.approved), where);
    });
  }
  // An identical repeat (a split can hold one) is kept once; two different rows under one id are an error.
  const byId = new Map<string, string>();
  const unique: RouterRow[] = [];
  let repeated = 0;
  for (const r of approved) {
    const seen = byId.get(r.id);
    if (seen === undefined) {
      byId.set(r.id, canonicalJson(r));
      unique.push(r);
    } else if (seen === canonicalJson(r)) repeated++;
    else problems.push(`row ${r.id} appears twice, with different contents`);
  }
  if (problems.length) throw new TestsetError(file, problems);
  if (unique.length === 0) throw new TestsetError(file, ['no approved rows: a test set cannot be empty']);
  return { approved: unique, rejected, repeated };
}
