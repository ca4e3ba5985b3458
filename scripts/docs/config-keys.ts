/**
 * The config schema's keys and defaults, read from the zod schema itself (via its JSON Schema), so the config
 * reference is generated from the one place defaults are written (core/config/schema.ts).
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

type Json = {
  properties?: Record<string, Json>;
  items?: Json;
  anyOf?: Json[];
  oneOf?: Json[];
  default?: unknown;
  $ref?: string;
};

export function configKeys(): ConfigKey[] {
  const root = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Json & {
    $defs?: Record<string, Json>;
  };
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

/** A key's default: its own, else its member of the nearest enclosing object's (`dataset.split.train` ← `dataset.split`). */
export function configDefault(keys: ReadonlyMap<string, ConfigKey>, path: string): unknown {
  const own = keys.get(path)?.default;
  if (own !== undefined) return own;
  const parts = path.split('.');
  for (let i = parts.length - 1; i > 0; i--) {
    let d = keys.get(parts.slice(0, i).join('.'))?.default;
    if (d === undefined) continue;
    for (const seg of parts.slice(i))
      d = d !== null && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>)[seg] : undefined;
    return d;
  }
  return undefined;
}
