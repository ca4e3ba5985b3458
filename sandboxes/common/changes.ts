import type { Db } from './db.js';
import { fail } from './errors.js';

export interface Change {
  table: string;
  op: 'insert' | 'update' | 'delete';
  key: Record<string, unknown>;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

type Row = Record<string, unknown>;

/**
 * Every write goes through here, so a call's effect can be reported row by row (what a dry-run returns).
 * Table and column names come from the schema (checked against sqlite_master), values are bound
 * parameters: nothing the caller sends is ever spliced into SQL.
 */
export class Writer {
  readonly changes: Change[] = [];
  private readonly columns = new Map<string, Set<string>>();

  constructor(private readonly db: Db) {}

  private cols(table: string): Set<string> {
    let c = this.columns.get(table);
    if (!c) {
      const info = this.db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>;
      if (info.length === 0) throw new Error(`no table ${table}`);
      c = new Set(info.map((i) => i.name));
      this.columns.set(table, c);
    }
    return c;
  }

  private checkColumns(table: string, names: string[]): void {
    const c = this.cols(table);
    for (const n of names) if (!c.has(n)) throw new Error(`no column ${table}.${n}`);
  }

  get(table: string, keyCol: string, key: unknown): Row | undefined {
    this.checkColumns(table, [keyCol]);
    return this.db.prepare(`SELECT * FROM "${table}" WHERE "${keyCol}" = ?`).get(key) as Row | undefined;
  }

  /** get() or fail with NOT_FOUND naming what was looked for. */
  require(table: string, keyCol: string, key: unknown, what: string): Row {
    return (
      this.get(table, keyCol, key) ??
      fail('NOT_FOUND', `${what} ${JSON.stringify(key)} does not exist`, { [keyCol]: key })
    );
  }

  insert(table: string, row: Row): Row {
    const names = Object.keys(row);
    this.checkColumns(table, names);
    this.db
      .prepare(
        `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      )
      .run(...names.map((n) => row[n]));
    this.changes.push({ table, op: 'insert', key: keyOf(table, row), after: row });
    return row;
  }

  update(table: string, keyCol: string, key: unknown, patch: Row): Row {
    const before = this.require(table, keyCol, key, table);
    const names = Object.keys(patch).filter((n) => patch[n] !== undefined);
    if (names.length === 0) return before;
    this.checkColumns(table, names);
    this.db
      .prepare(`UPDATE "${table}" SET ${names.map((n) => `"${n}" = ?`).join(', ')} WHERE "${keyCol}" = ?`)
      .run(...names.map((n) => patch[n]), key);
    const after = this.get(table, keyCol, key)!;
    const changedBefore: Row = {};
    const changedAfter: Row = {};
    for (const n of names) {
      if (before[n] !== after[n]) {
        changedBefore[n] = before[n];
        changedAfter[n] = after[n];
      }
    }
    this.changes.push({ table, op: 'update', key: { [keyCol]: key }, before: changedBefore, after: changedAfter });
    return after;
  }

  delete(table: string, keyCol: string, key: unknown): Row {
    const before = this.require(table, keyCol, key, table);
    this.db.prepare(`DELETE FROM "${table}" WHERE "${keyCol}" = ?`).run(key);
    this.changes.push({ table, op: 'delete', key: { [keyCol]: key }, before });
    return before;
  }
}

/** By convention the first column of an inserted row is its primary key. */
function keyOf(_table: string, row: Row): Record<string, unknown> {
  const k = Object.keys(row)[0]!;
  return { [k]: row[k] };
}
