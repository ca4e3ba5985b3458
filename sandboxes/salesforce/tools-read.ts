import { fail } from '../common/errors.js';
import { bool, enumOf, int, object, str } from '../common/schema.js';
import type { SandboxTool } from '../common/server.js';
import { getRecord, ID_PATTERN, present } from './helpers.js';
import { fieldsOf, OBJECT_NAMES, OBJECTS, objectOfId, RELATIONSHIPS, type ObjectName } from './objects.js';
import { compileSoql, MAX_LIMIT } from './soql.js';

const READ = ['sf.read'];
const id = (what: string) => str(`${what} (15 or 18 character Salesforce id)`, { pattern: ID_PATTERN });

const NAME_FIELD: Record<ObjectName, string[]> = {
  User: ['Name', 'Email'],
  Account: ['Name', 'Website'],
  Contact: ['FirstName', 'LastName', 'Email'],
  Opportunity: ['Name', 'NextStep'],
  Case: ['Subject', 'CaseNumber'],
};

export const readTools: SandboxTool[] = [
  {
    name: 'soql_query',
    title: 'Run a SOQL query',
    description:
      'Run a read-only SOQL query: SELECT fields|COUNT() FROM Object [WHERE ...] [ORDER BY ...] [LIMIT n] [OFFSET n]. ' +
      `Objects: ${OBJECT_NAMES.join(', ')}. WHERE supports = != < <= > >=, IN, LIKE, AND/OR/NOT, 'strings', numbers, TRUE/FALSE, NULL, YYYY-MM-DD. ` +
      `No relationship paths or subqueries. Default LIMIT 200, max ${MAX_LIMIT}.`,
    inputSchema: object({ query: str('The SOQL query', { minLength: 10, maxLength: 4000 }) }, ['query']),
    scopes: READ,
    kind: 'read',
    run({ query }: { query: string }, { db }) {
      const q = compileSoql(query);
      if (q.count)
        return { totalSize: (db.prepare(q.sql).get(...q.params) as { n: number }).n, done: true, records: [] };
      const records = (db.prepare(q.sql).all(...q.params) as Array<Record<string, unknown>>).map((r) => ({
        attributes: { type: q.object },
        ...present(q.object, r),
      }));
      return { totalSize: records.length, done: records.length < q.limit, records };
    },
  },
  {
    name: 'search_records',
    title: 'Search records by name',
    description:
      'Full-text style search (like SOSL FIND) for a term in the name fields of Accounts, Contacts, Opportunities, Cases and Users. Returns matches grouped by object.',
    inputSchema: object(
      {
        searchTerm: str('Text to find (case-insensitive substring)', { minLength: 2, maxLength: 100 }),
        objects: {
          type: 'array',
          items: enumOf(OBJECT_NAMES, 'Object to search'),
          uniqueItems: true,
          minItems: 1,
          description: 'Objects to search (default: all)',
        },
        limit: int('Max matches per object (default 20)', { minimum: 1, maximum: 200 }),
      },
      ['searchTerm'],
    ),
    scopes: READ,
    kind: 'read',
    run({ searchTerm, objects, limit = 20 }: { searchTerm: string; objects?: ObjectName[]; limit?: number }, { db }) {
      const pattern = `%${searchTerm.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const out: Record<string, unknown[]> = {};
      for (const o of objects ?? OBJECT_NAMES) {
        const where = NAME_FIELD[o].map((f) => `"${f}" LIKE ? ESCAPE '\\'`).join(' OR ');
        const rows = db
          .prepare(`SELECT * FROM "${o}" WHERE ${where} ORDER BY "Id" LIMIT ?`)
          .all(...NAME_FIELD[o].map(() => pattern), limit) as Array<Record<string, unknown>>;
        out[o] = rows.map((r) => present(o, r));
      }
      return { searchTerm, results: out };
    },
  },
  {
    name: 'describe_object',
    title: 'Describe an object',
    description:
      'Fields of a Salesforce object with their types, picklist values, required and read-only flags, plus its child relationships.',
    inputSchema: object({ objectName: enumOf(OBJECT_NAMES, 'API name of the object') }, ['objectName']),
    scopes: READ,
    kind: 'read',
    run({ objectName }: { objectName: ObjectName }) {
      const fields = Object.entries(fieldsOf(objectName)).map(([name, f]) => ({
        name,
        label: f.label,
        type: f.type,
        ...(f.to ? { referenceTo: f.to } : {}),
        ...(f.values ? { picklistValues: f.values } : {}),
        required: Boolean(f.required),
        updateable: !f.readOnly && name !== 'Id',
      }));
      const childRelationships = Object.entries(RELATIONSHIPS)
        .filter(([, r]) => r.from === objectName)
        .map(([name, r]) => ({ relationshipName: name, childObject: r.child, field: r.field }));
      return { name: objectName, keyPrefix: OBJECTS[objectName].prefix, fields, childRelationships };
    },
  },
  {
    name: 'get_record',
    title: 'Get a record by id',
    description: 'Fetch one record of any object by its id, optionally only some fields.',
    inputSchema: object(
      {
        objectName: enumOf(OBJECT_NAMES, 'API name of the object'),
        recordId: id('Record id'),
        fields: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 64 },
          minItems: 1,
          maxItems: 50,
          uniqueItems: true,
          description: 'Fields to return (default: all)',
        },
      },
      ['objectName', 'recordId'],
    ),
    scopes: READ,
    kind: 'read',
    run({ objectName, recordId, fields }: { objectName: ObjectName; recordId: string; fields?: string[] }, { w }) {
      const row = present(objectName, getRecord(w, objectName, recordId));
      if (!fields) return row;
      const known = fieldsOf(objectName);
      const unknown = fields.filter((f) => !(f in known));
      if (unknown.length) fail('INVALID_ARGUMENTS', `${objectName} has no field ${unknown.join(', ')}`, { unknown });
      return Object.fromEntries(['Id', ...fields].map((f) => [f, row[f]]));
    },
  },
  {
    name: 'get_related_records',
    title: 'Get related records',
    description: `Child records of a record through a relationship: ${Object.entries(RELATIONSHIPS)
      .map(([n, r]) => `${r.from}.${n}`)
      .join(', ')}.`,
    inputSchema: object(
      {
        recordId: id('Parent record id'),
        relationship: enumOf(Object.keys(RELATIONSHIPS), 'Relationship name'),
        limit: int('Max records (default 50)', { minimum: 1, maximum: 500 }),
      },
      ['recordId', 'relationship'],
    ),
    scopes: READ,
    kind: 'read',
    run({ recordId, relationship, limit = 50 }: { recordId: string; relationship: string; limit?: number }, { db, w }) {
      const rel = RELATIONSHIPS[relationship]!;
      const parentObject = objectOfId(recordId);
      if (parentObject !== rel.from)
        fail(
          'INVALID_ARGUMENTS',
          `${relationship} is a relationship of ${rel.from}; ${recordId} is ${parentObject ? `a ${parentObject}` : 'not a known id'}`,
        );
      getRecord(w, rel.from, recordId);
      const rows = db
        .prepare(`SELECT * FROM "${rel.child}" WHERE "${rel.field}" = ? ORDER BY "Id" LIMIT ?`)
        .all(recordId, limit) as Array<Record<string, unknown>>;
      return {
        parentId: recordId,
        relationship,
        object: rel.child,
        totalSize: rows.length,
        records: rows.map((r) => present(rel.child, r)),
      };
    },
  },
  {
    name: 'list_users',
    title: 'List users and queues',
    description: 'Users who can own records, and the support queues (Tier 1/2/3 Support), filtered by role.',
    inputSchema: object({
      role: enumOf(
        ['Sales Rep', 'Sales Manager', 'Support Agent', 'Support Engineer', 'Support Manager', 'Queue'],
        'Only this role',
      ),
      activeOnly: bool('Only active users (default true)'),
    }),
    scopes: READ,
    kind: 'read',
    run({ role, activeOnly = true }: { role?: string; activeOnly?: boolean }, { db }) {
      const rows = db
        .prepare(
          `SELECT * FROM "User" WHERE (? IS NULL OR "UserRole" = ?) AND (? = 0 OR "IsActive" = 1) ORDER BY "Name", "Id"`,
        )
        .all(role ?? null, role ?? null, activeOnly ? 1 : 0) as Array<Record<string, unknown>>;
      return { totalSize: rows.length, records: rows.map((r) => present('User', r)) };
    },
  },
];
