import type { CatalogTool } from '../../catalog/types.js';
import { Rng } from '../../rng.js';
import { sampleArguments } from '../../schema/sample.js';
import { fill } from '../teacher/template.js';
import { FAR_ASKS } from './far-asks.js';
import { naturalPhrasings } from './natural.js';
import { OTHER_TOOLS } from './other-tools.js';
import { argumentSlots, humanize } from './phrase.js';

/** Asks aimed at the catalog's own objects through a channel it lacks: close to real tools, yet unserviceable. */
const NEAR_ASKS: Array<[keyword: string, ask: (object: string) => string]> = [
  ['email', (o) => `Email the ${o} to my manager.`],
  ['pdf', (o) => `Export the ${o} as a PDF.`],
  ['translate', (o) => `Translate the ${o} into French.`],
  ['slack', (o) => `Post the ${o} in the team Slack channel.`],
  ['meeting', (o) => `Schedule a meeting to review the ${o}.`],
  ['fax', (o) => `Fax the ${o} to the legal department.`],
  ['sms', (o) => `Text the ${o} to my phone by SMS.`],
];

const VERBS = new Set([
  'get',
  'list',
  'create',
  'update',
  'delete',
  'read',
  'write',
  'search',
  'set',
  'add',
  'remove',
  'move',
  'edit',
  'open',
  'close',
  'find',
  'fetch',
  'query',
  'run',
  'make',
  'put',
  'post',
  'patch',
  'describe',
  'show',
  'check',
  'count',
  'multiple',
  'with',
  'by',
  'all',
  'new',
  'to',
  'from',
  'of',
  'and',
  'the',
  'a',
  'for',
  'info',
  'data',
  'current',
  'tool',
]);

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/** Natural phrasings per tool the catalog lacks (./other-tools.ts). */
const PER_OTHER_TOOL = 2;

/**
 * Requests no tool of this server can serve, derived from its catalog: far asks (./far-asks.ts), and the server's
 * own objects (the nouns in its tool names) asked for through channels no tool offers. With `otherTools` (natural
 * phrasing), natural requests for everyday tools the catalog lacks too (./other-tools.ts), phrased as requests for
 * the catalog's own tools are, taken in turn with the others and never more of them, so they do not crowd the
 * others out of a domain that draws few asks. An ask whose key word appears in any tool's name or description is
 * dropped: the catalog may well do it.
 */
export function deriveUnsatisfiable(
  tools: CatalogTool[],
  opts: { otherTools?: { seed: string | number } } = {},
): string[] {
  const vocabulary = new Set(tools.flatMap((t) => words(`${t.name} ${t.title ?? ''} ${t.description ?? ''}`)));
  // A stem of four letters or more matches every word it begins ("calculat": calculate, calculator); a shorter
  // key word matches itself and its plural.
  const mentions = (keyword: string) =>
    vocabulary.has(keyword) ||
    vocabulary.has(`${keyword}s`) ||
    (keyword.length >= 4 && [...vocabulary].some((w) => w.startsWith(keyword)));
  const nouns = new Map<string, number>();
  for (const t of tools)
    for (const w of words(t.name)) if (!VERBS.has(w) && w.length > 2) nouns.set(w, (nouns.get(w) ?? 0) + 1);
  const objects = [...nouns]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 4)
    .map(([w]) => w.replace(/ies$/, 'y').replace(/s$/, ''));
  const asks = FAR_ASKS.filter(([keywords]) => !keywords.some(mentions)).map(([, ask]) => ask);
  NEAR_ASKS.filter(([k]) => !mentions(k)).forEach(([, ask], i) => {
    if (objects.length) asks.push(ask(objects[i % objects.length]!));
  });
  if (!opts.otherTools) return asks;
  // A tool's first request, then every tool's second: a cap keeps as many tools as it can.
  const byTool = OTHER_TOOLS.filter(([keywords]) => !keywords.some(mentions)).map(([, t]) =>
    requestsFor(t, opts.otherTools!.seed),
  );
  const others = Array.from({ length: PER_OTHER_TOOL }, (_, i) => byTool.map((r) => r[i]))
    .flat()
    .filter((a): a is string => a !== undefined)
    .slice(0, asks.length);
  return Array.from({ length: asks.length }, (_, i) => [asks[i]!, others[i]])
    .flat()
    .filter((a): a is string => a !== undefined);
}

/** A few natural requests for `tool`, one draw of its arguments, the values written in. */
function requestsFor(tool: CatalogTool, seed: string | number): string[] {
  const rng = new Rng(`${seed}:other:${tool.name}`);
  const args = sampleArguments(tool.inputSchema, { rng, meaning: words(`${humanize(tool.name)} ${tool.description}`) });
  const { slots, list } = argumentSlots(tool, args, rng);
  const { phrasings } = naturalPhrasings(tool, list, rng);
  return rng
    .shuffle([...phrasings])
    .slice(0, PER_OTHER_TOOL)
    .map((p) => fill(p, slots));
}
