import type { CatalogTool } from '../../catalog/types.js';
import { FAR_ASKS } from './far-asks.js';

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

/**
 * Requests no tool of this server can serve, derived from its catalog: far asks (./far-asks.ts), and the server's
 * own objects (the nouns in its tool names) asked for through channels no tool offers. An ask whose key word
 * appears in any tool's name or description is dropped: the catalog may well do it.
 */
export function deriveUnsatisfiable(tools: CatalogTool[]): string[] {
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
  return asks;
}
