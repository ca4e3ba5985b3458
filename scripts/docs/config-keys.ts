/**
 * The config schema's keys and defaults, read from the zod schema itself (via its JSON Schema), so docs and
 * tests can be checked against the one place defaults are written (core/config/schema.ts).
 */
import { z } from 'zod';
import { configSchema } from '../../core/config/schema.js';

export interface ConfigKey {
  /** `dataset.sliceSize`, `servers[].stdio.command` */
  path: string;
  /** The schema's default, when it has one. */
  default?: unknown;
  /** An object or array whose own keys are listed too. */
  container: boolean;
}

type Json = { properties?: Record<string, Json>; items?: Json; anyOf?: Json[]; oneOf?: Json[]; default?: unknown; $ref?: string };

export function configKeys(): ConfigKey[] {
  const root = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Json & { $defs?: Record<string, Json> };
  const out: ConfigKey[] = [];
  const deref = (s: Json): Json => (s.$ref?.startsWith('#/$defs/') ? root.$defs![s.$ref.slice(8)]! : s);
  const walk = (schema: Json, path: string, depth: number): void => {
    const s = deref(schema);
    const alts = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].map(deref);
    const container = [s, ...alts].some((x) => Object.keys(x.properties ?? {}).length > 0 || x.items !== undefined);
    if (path) out.push({ path, container, ...(s.default !== undefined ? { default: s.default } : {}) });
    if (depth > 6) return;
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, path ? `${path}.${k}` : k, depth + 1);
    if (s.items) walk(s.items, `${path}[]`, depth + 1);
    for (const a of alts) {
      for (const [k, v] of Object.entries(a.properties ?? {})) walk(v, path ? `${path}.${k}` : k, depth + 1);
      if (a.items) walk(a.items, `${path}[]`, depth + 1);
    }
  };
  walk(root, '', 0);
  // A key reached through several alternatives is listed once.
  return [...new Map(out.map((k) => [k.path, k])).values()];
}

/** The rows of a markdown key table: `a.b` / `.c` keys with `x` / `y` defaults, expanded to one per key. */
export function documentedKeys(markdown: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const line of markdown.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| `') || cells.length < 3) continue;
    const keys = [...cells[0]!.slice(2).matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const defaults = cells[1]!.split(' / ').map((d) => (/^`[^`]+`$/.test(d.trim()) ? d.trim().slice(1, -1) : null));
    let base = '';
    keys.forEach((k, i) => {
      // `.maxRetries` after `evaluate.timeoutMs` is `evaluate.maxRetries`.
      const path = k.startsWith('.') ? `${base.slice(0, base.lastIndexOf('.'))}${k}` : k;
      if (!k.startsWith('.')) base = k;
      out.set(path, defaults.length === keys.length ? defaults[i]! : null);
    });
  }
  return out;
}
