/**
 * The generic path at catalog scale: a generated catalog of N tools (default 500) over several servers, with
 * the schema shapes real MCP servers use (formats, enums, bounds, patterns, nested objects, arrays of
 * objects, oneOf, $ref, optional mixes, read-only and write tools, scoped and unscoped servers), run through
 * intents → generate → solve → validate in memory (schema and scope checks; no server to call). Reports
 * rows/s per stage and the share of tools covered (with ≥ 1 valid row, and with ≥ minPerTool valid rows).
 * The baseline in the same run is the cost of the schema checks alone (ajv over the same candidates), so the
 * ratio says what intents and phrasing add on top of validation.
 *
 *   node --import tsx scripts/bench/generic-intents.ts [--tools 500] [--seed 1]
 */
import { parseArgs } from 'node:util';
import { buildCatalog } from '../../core/catalog/build.js';
import type { ServerSnapshot } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import { buildIntents, validateCandidates } from '../../core/dataset/pipeline.js';
import { templateTeacher } from '../../core/dataset/teacher/template.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { Rng } from '../../core/rng.js';

const { values } = parseArgs({
  options: { tools: { type: 'string', default: '500' }, seed: { type: 'string', default: '1' } },
});
const N = Number(values.tools);
const rng = new Rng(`bench-catalog:${values.seed}`);

const NOUNS = [
  'invoice',
  'ticket',
  'customer',
  'order',
  'shipment',
  'repository',
  'issue',
  'document',
  'calendar_event',
  'contact',
  'project',
  'task',
  'alert',
  'dashboard',
  'payment',
  'refund',
  'user',
  'team',
  'channel',
  'message',
];
const VERBS: Array<[string, boolean]> = [
  ['get', true],
  ['list', true],
  ['search', true],
  ['create', false],
  ['update', false],
  ['delete', false],
  ['archive', false],
  ['export', true],
];
const FIELDS: Array<() => [string, Record<string, unknown>]> = [
  () => ['id', { type: 'string', description: 'The record id', pattern: '^[a-z]{2,4}_[0-9a-f]{6,10}$' }],
  () => ['email', { type: 'string', format: 'email' }],
  () => ['due_date', { type: 'string', format: 'date', description: 'Due date' }],
  () => ['updated_after', { type: 'string', format: 'date-time' }],
  () => ['status', { type: 'string', enum: ['open', 'pending', 'closed', 'archived'] }],
  () => ['priority', { type: 'integer', minimum: 1, maximum: 5, default: 3 }],
  () => ['amount', { type: 'number', minimum: 0, maximum: 100000, multipleOf: 0.01 }],
  () => ['limit', { type: 'integer', minimum: 1, maximum: 200, default: 50 }],
  () => ['query', { type: 'string', minLength: 1, maxLength: 200, description: 'Free-text search' }],
  () => ['tags', { type: 'array', items: { type: 'string', maxLength: 30 }, maxItems: 5, uniqueItems: true }],
  () => ['url', { type: 'string', format: 'uri' }],
  () => ['owner', { $ref: '#/$defs/person' }],
  () => ['notify', { type: 'boolean', default: false }],
  () => ['currency', { type: 'string', pattern: '^[A-Z]{3}$', examples: ['USD', 'EUR'] }],
  () => [
    'line_items',
    {
      type: 'array',
      minItems: 1,
      maxItems: 4,
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
        required: ['sku', 'quantity'],
        additionalProperties: false,
      },
    },
  ],
  () => [
    'target',
    {
      oneOf: [
        { type: 'object', properties: { team: { type: 'string' } }, required: ['team'], additionalProperties: false },
        {
          type: 'object',
          properties: { user: { type: 'string', format: 'email' } },
          required: ['user'],
          additionalProperties: false,
        },
      ],
    },
  ],
  () => ['timezone', { type: 'string', description: "IANA timezone (e.g. 'Europe/Paris')" }],
];

function tool(server: number, i: number): Record<string, unknown> {
  const noun = NOUNS[(i + server * 3) % NOUNS.length]!;
  const [verb, readOnly] = VERBS[i % VERBS.length]!;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (let k = 0; k < rng.int(0, 5); k++) {
    const [name, schema] = rng.pick(FIELDS)();
    properties[name] = schema;
    if (rng.chance(0.5)) required.push(name);
  }
  return {
    name: `${verb}_${noun}_${i}`,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)}s ${noun.replace('_', ' ')} records of the workspace (variant ${i}).`,
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length ? { required: [...new Set(required)] } : {}),
      additionalProperties: false,
      $defs: {
        person: {
          type: 'object',
          properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
          required: ['name'],
          additionalProperties: false,
        },
      },
    },
    annotations: { readOnlyHint: readOnly },
    ...(server % 2 === 0 ? { _meta: { scopes: [`${noun}.${readOnly ? 'read' : 'write'}`] } } : {}),
  };
}

const SERVERS = 10;
const snapshots: ServerSnapshot[] = Array.from({ length: SERVERS }, (_, s) => ({
  server: `svc-${s}`,
  serverInfo: { name: `bench-${s}`, version: '1' },
  pages: 1,
  tools: Array.from({ length: Math.ceil(N / SERVERS) }, (_, i) => tool(s, s * 1000 + i)).slice(
    0,
    Math.max(0, Math.min(Math.ceil(N / SERVERS), N - s * Math.ceil(N / SERVERS))),
  ),
}));
const catalog = buildCatalog('bench', snapshots);
const dataset = parseConfig({
  version: 1,
  name: 'bench',
  servers: [{ name: 'x', http: { url: 'http://127.0.0.1:1/mcp' } }],
  dataset: { seed: 1 },
}).dataset!;

const timings: Record<string, { seconds: number; rows: number }> = {};
async function timed<T>(stage: string, fn: () => Promise<T>, rows: (r: T) => number): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  timings[stage] = { seconds: (performance.now() - t0) / 1000, rows: rows(r) };
  return r;
}

const pools = Object.fromEntries(catalog.servers.map((s) => [s.name, { harvested: {}, probes: [] }]));
const { intents, stats } = await timed(
  'intents',
  () => buildIntents(catalog, dataset, pools),
  (r) => r.intents.length,
);
const teacher = templateTeacher(dataset.seed);
const drafts = await timed(
  'generate',
  () => teacher.generate(intents),
  (r) => r.length,
);
const candidates = await timed(
  'solve',
  () => teacher.solve(intents, drafts),
  (r) => r.length,
);
const schemaOnly = async () => ({ ok: true, checkedBy: 'schema' as const });
const validated = await timed(
  'validate',
  () => validateCandidates(intents, candidates, catalog, new CallValidator(catalog, schemaOnly), dataset),
  (r) => r.rows.length,
);
// Baseline: the schema and scope checks alone over the same candidates.
const validator = new CallValidator(catalog, schemaOnly);
const byId = new Map(intents.map((i) => [i.id, i]));
await timed(
  'baseline: static checks only',
  async () => candidates.map((c) => validator.checkStatic(c.target, byId.get(c.intentId)!.persona)),
  (r) => r.length,
);

const validByTool = new Map<string, number>();
for (const r of validated.rows)
  if (r.target.tool)
    validByTool.set(`${r.domain}/${r.target.tool}`, (validByTool.get(`${r.domain}/${r.target.tool}`) ?? 0) + 1);
const covered = catalog.tools.filter((t) => (validByTool.get(t.id) ?? 0) > 0).length;
const full = catalog.tools.filter((t) => (validByTool.get(t.id) ?? 0) >= dataset.minPerTool).length;
const skipped = Object.values(stats.tools).filter((t) => t.skipped).length;

console.log(
  `catalog: ${catalog.tools.length} tools on ${catalog.servers.length} servers (${catalog.quarantined.length} quarantined at ingest)`,
);
console.log('stage                          rows     seconds  rows/s');
for (const [stage, t] of Object.entries(timings))
  console.log(
    `${stage.padEnd(30)} ${String(t.rows).padStart(7)}  ${t.seconds.toFixed(2).padStart(7)}  ${Math.round(
      t.rows / Math.max(t.seconds, 1e-6),
    )
      .toString()
      .padStart(7)}`,
  );
const pipeline =
  timings.intents!.seconds + timings.generate!.seconds + timings.solve!.seconds + timings.validate!.seconds;
console.log(
  `intents→validate ${pipeline.toFixed(2)} s = ${(pipeline / timings['baseline: static checks only']!.seconds).toFixed(1)}× the static checks alone`,
);
console.log(
  `covered: ${covered}/${catalog.tools.length} tools have valid rows (${((100 * covered) / catalog.tools.length).toFixed(1)} %), ${full} have ≥ minPerTool ${dataset.minPerTool} (${((100 * full) / catalog.tools.length).toFixed(1)} %); ${skipped} skipped; rejections ${JSON.stringify(validated.stats.rejectionsByReason)}`,
);
