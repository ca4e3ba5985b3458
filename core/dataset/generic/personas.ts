import type { CatalogTool } from '../../catalog/types.js';
import type { Persona } from '../types.js';

const MAX_SCOPED = 6;

/**
 * Personas for a server nobody described, from the scopes its tools require (`_meta.scopes`): an admin
 * holding all, a viewer holding what the read-only tools need, and one per write scope on top of the
 * viewer's (so a missing scope is a real near-miss). A server that declares no scopes gets one user.
 */
export function derivePersonas(domain: string, tools: CatalogTool[]): Persona[] {
  const all = [...new Set(tools.flatMap((t) => t.scopes))].sort();
  if (all.length === 0) return [{ name: `${domain}-user`, domain, scopes: [] }];
  const read = [...new Set(tools.filter((t) => t.annotations?.readOnlyHint === true).flatMap((t) => t.scopes))].sort();
  const personas: Persona[] = [{ name: `${domain}-admin`, domain, scopes: all }];
  if (read.length && read.length < all.length) personas.push({ name: `${domain}-viewer`, domain, scopes: read });
  for (const scope of all.filter((s) => !read.includes(s)).slice(0, MAX_SCOPED)) {
    const scopes = [...new Set([...read, scope])].sort();
    if (scopes.length < all.length)
      personas.push({ name: `${domain}-${scope.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}-user`, domain, scopes });
  }
  return personas;
}
