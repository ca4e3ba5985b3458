import { fail } from '../common/errors.js';
import { fieldsOf, OBJECT_NAMES, type ObjectName } from './objects.js';

/**
 * A safe subset of SOQL, compiled to parameterised SQLite:
 *   SELECT field, ... | COUNT() FROM Object
 *   [WHERE cond] [ORDER BY field [ASC|DESC] [NULLS FIRST|LAST], ...] [LIMIT n] [OFFSET n]
 *   cond: field op value | field [NOT] IN (v, ...) | field [NOT] LIKE 'pat' | NOT cond | (cond) | cond AND|OR cond
 *   op: = != <> < <= > >=      value: 'string' | number | TRUE | FALSE | NULL | YYYY-MM-DD
 * Field and object names are checked against the schema; values are always bound parameters.
 * Relationship paths (Account.Name), subqueries, aggregates other than COUNT() and date literals like
 * LAST_N_DAYS are not supported and fail with INVALID_QUERY.
 */
export interface CompiledQuery {
  object: ObjectName;
  fields: string[];
  count: boolean;
  sql: string;
  params: unknown[];
  limit: number;
}

export const MAX_LIMIT = 2000;
export const DEFAULT_LIMIT = 200;

type Tok = { kind: 'word' | 'string' | 'number' | 'date' | 'op' | 'punct'; text: string; value?: unknown; pos: number };

const KEYWORDS = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ORDER',
  'BY',
  'ASC',
  'DESC',
  'LIMIT',
  'OFFSET',
  'NULL',
  'TRUE',
  'FALSE',
  'NULLS',
  'FIRST',
  'LAST',
  'COUNT',
]);

function tokenize(q: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= q.length) fail('INVALID_QUERY', `unterminated string starting at position ${start}`);
        const ch = q[i]!;
        if (ch === '\\' && i + 1 < q.length) {
          // \% and \_ stay escaped: they are literal wildcards for LIKE ... ESCAPE '\'.
          s += q[i + 1] === '%' || q[i + 1] === '_' ? `\\${q[i + 1]}` : q[i + 1];
          i += 2;
        } else if (ch === "'") {
          i++;
          break;
        } else {
          s += ch;
          i++;
        }
      }
      toks.push({ kind: 'string', text: q.slice(start, i), value: s, pos: start });
    } else if (/\d/.test(c) || (c === '-' && /\d/.test(q[i + 1] ?? ''))) {
      const m = /^(\d{4}-\d{2}-\d{2})(?![\d:T])/.exec(q.slice(i));
      if (m) {
        toks.push({ kind: 'date', text: m[1]!, value: m[1], pos: start });
        i += m[1]!.length;
      } else {
        const n = /^-?\d+(\.\d+)?/.exec(q.slice(i))![0];
        toks.push({ kind: 'number', text: n, value: Number(n), pos: start });
        i += n.length;
      }
    } else if (/[A-Za-z_]/.test(c)) {
      const w = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(q.slice(i))![0];
      toks.push({ kind: 'word', text: w, pos: start });
      i += w.length;
    } else if ('<>!='.includes(c)) {
      const op = /^(<=|>=|!=|<>|=|<|>)/.exec(q.slice(i))?.[0];
      if (!op) fail('INVALID_QUERY', `unexpected "${c}" at position ${i}`);
      toks.push({ kind: 'op', text: op, pos: start });
      i += op.length;
    } else if ('(),'.includes(c)) {
      toks.push({ kind: 'punct', text: c, pos: start });
      i++;
    } else {
      fail(
        'INVALID_QUERY',
        `unexpected character ${JSON.stringify(c)} at position ${i} (only the SOQL subset in the tool description is supported)`,
      );
    }
  }
  return toks;
}

class Parser {
  private i = 0;
  readonly params: unknown[] = [];
  private object!: ObjectName;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }
  private isKw(kw: string): boolean {
    const t = this.peek();
    return t?.kind === 'word' && t.text.toUpperCase() === kw;
  }
  private expectKw(kw: string): void {
    if (!this.isKw(kw)) this.error(`expected ${kw}`);
    this.i++;
  }
  private expectPunct(p: string): void {
    const t = this.peek();
    if (t?.kind !== 'punct' || t.text !== p) this.error(`expected "${p}"`);
    this.i++;
  }
  private error(msg: string): never {
    const t = this.peek();
    fail('INVALID_QUERY', t ? `${msg} at position ${t.pos}, found "${t.text}"` : `${msg} at end of query`);
  }

  parse(): CompiledQuery {
    this.expectKw('SELECT');
    let count = false;
    const fields: string[] = [];
    if (this.isKw('COUNT')) {
      this.i++;
      this.expectPunct('(');
      this.expectPunct(')');
      count = true;
    } else {
      const raw: Tok[] = [];
      do {
        const t = this.peek();
        if (t?.kind !== 'word' || KEYWORDS.has(t.text.toUpperCase())) this.error('expected a field name');
        raw.push(t);
        this.i++;
      } while (this.comma());
      this.expectKw('FROM');
      this.readObject();
      for (const t of raw) fields.push(this.field(t));
    }
    if (count) {
      this.expectKw('FROM');
      this.readObject();
    }
    let where = '';
    if (this.isKw('WHERE')) {
      this.i++;
      where = ` WHERE ${this.orExpr()}`;
    }
    const order: string[] = [];
    if (this.isKw('ORDER')) {
      this.i++;
      this.expectKw('BY');
      do {
        const t = this.peek();
        if (t?.kind !== 'word') this.error('expected a field to order by');
        this.i++;
        let dir = 'ASC';
        if (this.isKw('ASC') || this.isKw('DESC')) dir = this.toks[this.i++]!.text.toUpperCase();
        let nulls = '';
        if (this.isKw('NULLS')) {
          this.i++;
          if (!this.isKw('FIRST') && !this.isKw('LAST')) this.error('expected FIRST or LAST');
          nulls = ` NULLS ${this.toks[this.i++]!.text.toUpperCase()}`;
        }
        order.push(`"${this.field(t)}" ${dir}${nulls}`);
      } while (this.comma());
    }
    let limit = DEFAULT_LIMIT;
    if (this.isKw('LIMIT')) {
      this.i++;
      limit = this.integer('LIMIT');
      if (limit > MAX_LIMIT) fail('INVALID_QUERY', `LIMIT ${limit} is above the maximum of ${MAX_LIMIT}`);
    }
    let offset = 0;
    if (this.isKw('OFFSET')) {
      this.i++;
      offset = this.integer('OFFSET');
    }
    if (this.peek()) this.error('unexpected text after the query');
    const table = `"${this.object}"`;
    const orderBy = order.length ? ` ORDER BY ${order.join(', ')}` : ' ORDER BY "Id"';
    const sql = count
      ? `SELECT COUNT(*) AS n FROM ${table}${where}`
      : `SELECT ${fields.map((f) => `"${f}"`).join(', ')} FROM ${table}${where}${orderBy} LIMIT ${limit} OFFSET ${offset}`;
    return { object: this.object, fields, count, sql, params: this.params, limit };
  }

  private comma(): boolean {
    const t = this.peek();
    if (t?.kind === 'punct' && t.text === ',') {
      this.i++;
      return true;
    }
    return false;
  }

  private readObject(): void {
    const t = this.peek();
    const name = OBJECT_NAMES.find((o) => o.toLowerCase() === t?.text.toLowerCase());
    if (t?.kind !== 'word' || !name) this.error(`expected an object (${OBJECT_NAMES.join(', ')})`);
    this.object = name;
    this.i++;
  }

  private field(t: Tok): string {
    if (t.text.includes('.'))
      fail(
        'INVALID_QUERY',
        `relationship paths like "${t.text}" are not supported; query the related object by its Id`,
      );
    const name = Object.keys(fieldsOf(this.object)).find((f) => f.toLowerCase() === t.text.toLowerCase());
    if (!name)
      fail('INVALID_QUERY', `No such column '${t.text}' on entity '${this.object}'`, {
        field: t.text,
        object: this.object,
      });
    return name;
  }

  private integer(what: string): number {
    const t = this.peek();
    if (t?.kind !== 'number' || !Number.isInteger(t.value) || (t.value as number) < 0)
      this.error(`${what} needs a non-negative integer`);
    this.i++;
    return t.value as number;
  }

  private orExpr(): string {
    const parts = [this.andExpr()];
    while (this.isKw('OR')) {
      this.i++;
      parts.push(this.andExpr());
    }
    return parts.length > 1 ? `(${parts.join(' OR ')})` : parts[0]!;
  }

  private andExpr(): string {
    const parts = [this.unary()];
    while (this.isKw('AND')) {
      this.i++;
      parts.push(this.unary());
    }
    return parts.length > 1 ? `(${parts.join(' AND ')})` : parts[0]!;
  }

  private unary(): string {
    if (this.isKw('NOT')) {
      this.i++;
      return `(NOT ${this.unary()})`;
    }
    const t = this.peek();
    if (t?.kind === 'punct' && t.text === '(') {
      this.i++;
      const inner = this.orExpr();
      this.expectPunct(')');
      return `(${inner})`;
    }
    return this.comparison();
  }

  private comparison(): string {
    const t = this.peek();
    if (t?.kind !== 'word' || KEYWORDS.has(t.text.toUpperCase())) this.error('expected a field name');
    this.i++;
    const col = `"${this.field(t)}"`;
    let negate = false;
    if (this.isKw('NOT')) {
      this.i++;
      negate = true;
      if (!this.isKw('IN') && !this.isKw('LIKE')) this.error('expected IN or LIKE after NOT');
    }
    if (this.isKw('IN')) {
      this.i++;
      this.expectPunct('(');
      const marks: string[] = [];
      do marks.push(this.value(false));
      while (this.comma());
      this.expectPunct(')');
      return `${col} ${negate ? 'NOT IN' : 'IN'} (${marks.join(', ')})`;
    }
    if (this.isKw('LIKE')) {
      this.i++;
      const v = this.peek();
      if (v?.kind !== 'string') this.error('LIKE needs a quoted pattern');
      this.i++;
      this.params.push(v.value);
      return `${col} ${negate ? 'NOT LIKE' : 'LIKE'} ? ESCAPE '\\'`;
    }
    const op = this.peek();
    if (op?.kind !== 'op') this.error('expected a comparison operator');
    this.i++;
    const sqlOp = op.text === '<>' ? '!=' : op.text;
    if (this.isKw('NULL')) {
      this.i++;
      if (sqlOp === '=') return `${col} IS NULL`;
      if (sqlOp === '!=') return `${col} IS NOT NULL`;
      this.error('NULL only compares with = or !=');
    }
    return `${col} ${sqlOp} ${this.value(true)}`;
  }

  private value(allowNull: boolean): string {
    const t = this.peek();
    if (!t) this.error('expected a value');
    if (t.kind === 'string' || t.kind === 'number' || t.kind === 'date') {
      this.i++;
      this.params.push(t.value);
      return '?';
    }
    if (t.kind === 'word' && ['TRUE', 'FALSE'].includes(t.text.toUpperCase())) {
      this.i++;
      this.params.push(t.text.toUpperCase() === 'TRUE' ? 1 : 0);
      return '?';
    }
    if (allowNull && this.isKw('NULL')) this.error('use = NULL or != NULL');
    this.error("expected a value ('text', number, TRUE/FALSE or YYYY-MM-DD)");
  }
}

export function compileSoql(query: string): CompiledQuery {
  return new Parser(tokenize(query)).parse();
}
