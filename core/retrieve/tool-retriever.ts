/**
 * A lexical (BM25) retriever over an agent's offered tools: given the conversation, which k tools should the
 * router see? At inference nobody knows the right tool, so the slice has to come from something like this.
 *
 * A tool's document is its name, description, parameter names, parameter descriptions and enum values, split
 * on snake_case and camelCase. Query terms also match document terms they abbreviate, at a discount, because
 * agents' users type like that: a prefix ("opp" ~ "opportunity") or the same first letter and the rest in order
 * ("acct" ~ "account", "jrnl" ~ "journal"), 3+ letters either way.
 */

export interface RetrievableTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

export interface Retriever {
  /** Tool names, best first; ties keep the offered order. At most k (all tools when k is larger). */
  rank(query: string, k: number): string[];
}

/** BM25's usual constants; PREFIX_DISCOUNT weighs an abbreviation match against an exact one. */
const K1 = 1.2;
const B = 0.75;
const PREFIX_DISCOUNT = 0.6;
const SUBSEQUENCE_DISCOUNT = 0.4;
const MIN_ABBREVIATION = 3;
const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'and',
  'or',
  'in',
  'on',
  'for',
  'by',
  'with',
  'its',
  'is',
  'as',
  'it',
  'me',
  'my',
  'we',
  'our',
  'us',
  'you',
  'can',
  'could',
  'please',
  'pls',
  'i',
  'be',
  'this',
  'that',
  'at',
  'from',
  'do',
  'what',
  'which',
]);

/** Lower-case word terms: camelCase and snake_case split, digits kept, stop words and 1-letter terms dropped. */
export function terms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .map(stem)
    .filter((t) => t.length > 1 && !STOP.has(t));
}

/** Plural and -ing/-ed endings folded, so "invoices" meets "invoice" and "posting" meets "post". */
function stem(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ed')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) return t.slice(0, -1);
  return t;
}

/** The text a tool is found by: its name, description and what its input schema names and describes. */
export function toolDocument(tool: RetrievableTool): string {
  const parts = [tool.name, tool.description ?? ''];
  const walk = (schema: unknown, depth: number) => {
    if (!schema || typeof schema !== 'object' || depth > 4) return;
    const s = schema as Record<string, unknown>;
    if (typeof s.description === 'string') parts.push(s.description);
    if (Array.isArray(s.enum)) parts.push(...s.enum.filter((v): v is string => typeof v === 'string'));
    const props = s.properties;
    if (props && typeof props === 'object') {
      for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
        parts.push(name);
        walk(sub, depth + 1);
      }
    }
    if (s.items) walk(s.items, depth + 1);
  };
  walk(tool.inputSchema, 0);
  return parts.join(' ');
}

export function bm25Retriever(tools: RetrievableTool[]): Retriever {
  const docs = tools.map((t) => countTerms(terms(toolDocument(t))));
  const lengths = docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
  const avgLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
  const vocabulary = new Set(docs.flatMap((d) => [...d.keys()]));
  const docFreq = new Map<string, number>();
  for (const d of docs) for (const t of d.keys()) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
  const idf = (t: string) => {
    const n = docFreq.get(t) ?? 0;
    return Math.log(1 + (tools.length - n + 0.5) / (n + 0.5));
  };
  /** Document terms a query term stands for: itself, or those it abbreviates. */
  const expansions = new Map<string, Array<{ term: string; weight: number }>>();
  const expand = (q: string) => {
    let out = expansions.get(q);
    if (out) return out;
    out = vocabulary.has(q) ? [{ term: q, weight: 1 }] : [];
    if (q.length >= MIN_ABBREVIATION) {
      for (const t of vocabulary) {
        if (t === q || t.length <= q.length || t[0] !== q[0]) continue;
        if (t.startsWith(q)) out.push({ term: t, weight: PREFIX_DISCOUNT });
        else if (isSubsequence(q, t)) out.push({ term: t, weight: SUBSEQUENCE_DISCOUNT });
      }
    }
    expansions.set(q, out);
    return out;
  };

  return {
    rank(query, k) {
      const queryTerms = [...new Set(terms(query))];
      const scored = docs.map((doc, i) => {
        let score = 0;
        for (const q of queryTerms) {
          // The best-matching expansion only: an abbreviation must not outscore the word it abbreviates.
          let best = 0;
          for (const { term, weight } of expand(q)) {
            const tf = doc.get(term) ?? 0;
            if (tf === 0) continue;
            const s = weight * idf(term) * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[i]!) / avgLength)));
            if (s > best) best = s;
          }
          score += best;
        }
        return { i, score };
      });
      scored.sort((a, b) => b.score - a.score || a.i - b.i);
      return scored.slice(0, Math.max(0, k)).map((s) => tools[s.i]!.name);
    },
  };
}

function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const c of long) if (c === short[i]) i++;
  return i === short.length;
}

function countTerms(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of list) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
