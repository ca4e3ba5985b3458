import type { CatalogTool } from '../../catalog/types.js';
import { hashOf } from '../../hash.js';
import { namePrefix, toolSense } from './natural.js';

/**
 * Questions about what a tool acts on rather than asks to act on it: "What is an exchange rate, in plain words?"
 * beside get_exchange_rate. They share the tool's words, yet no call answers them, which is what people send an
 * assistant next to its tools (and what BFCL's irrelevance questions are). Each carries the key words of a tool that
 * could serve it, as whole words (a catalog that says "defined" does not define things); `deriveUnsatisfiable`
 * drops one whose key word the catalog says.
 */
const ABOUT_ASKS: Array<[keywords: string[], ask: (object: string, other: string) => string | undefined]> = [
  [
    ['explain', 'explanation', 'glossary', 'wiki', 'wikipedia', 'encyclopedia', 'dictionary'],
    (o) => `What ${be(o)} ${an(o)}, in plain words?`,
  ],
  [['history', 'historical', 'origin', 'invented'], (o) => `Tell me about the history of ${o}.`],
  [['article', 'literature', 'paper', 'reference'], (o) => `Where can I read up on ${o}?`],
  [
    ['compare', 'comparison', 'difference', 'versus'],
    (o, other) => (other ? `What's the difference between ${o} and ${other}?` : undefined),
  ],
  [['tip', 'advice', 'beginner'], (o) => `Any tips for someone just learning about ${o}?`],
  [['important', 'importance', 'matter'], (o) => `Why ${be(o) === 'is' ? 'does' : 'do'} ${o} matter so much?`],
  [['opinion'], (o) => `What's your honest opinion of ${o}?`],
  [['measure', 'measured', 'measurement'], (o) => `How ${be(o) === 'is' ? 'is' : 'are'} ${o} usually measured?`],
];
const PER_TOOL = 2;

const plural = (o: string) => /s$/.test(o) && !/(ss|is|us)$/.test(o);
const be = (o: string) => (plural(o) ? 'are' : 'is');
const an = (o: string) => (plural(o) ? o : /^[aeiou]/.test(o) ? `an ${o}` : `a ${o}`);

/**
 * Up to PER_TOOL asks about each tool's object (its everyday noun phrase, natural.ts toolSense), drawn by the tool's
 * name so the same catalog gives the same asks; `served(keyword)` says whether the catalog may serve a key word.
 */
export function aboutAsks(tools: readonly CatalogTool[], served: (keyword: string) => boolean): string[] {
  const prefix = namePrefix(tools);
  const objects = [...new Set(tools.map((t) => toolSense(t, prefix).object.trim()).filter((o) => /[a-z]{3}/.test(o)))];
  const open = ABOUT_ASKS.filter(([keywords]) => !keywords.some(served));
  const asks: string[] = [];
  objects.forEach((object, i) => {
    const other = objects.length > 1 ? objects[(i + 1) % objects.length]! : '';
    const start = parseInt(hashOf(['about', object]).slice(0, 8), 16);
    let taken = 0;
    for (let k = 0; k < open.length && taken < PER_TOOL; k++) {
      const ask = open[(start + k) % open.length]![1](object, other);
      if (!ask) continue;
      asks.push(ask);
      taken++;
    }
  });
  return asks;
}
