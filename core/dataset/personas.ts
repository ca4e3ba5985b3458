import type { Catalog } from '../catalog/types.js';
import type { DatasetConfig } from '../config/schema.js';
import { derivePersonas } from './generic/personas.js';
import { packFor, type DomainPack } from './packs.js';
import type { Persona } from './types.js';

/**
 * Who asks, per server (config name): the config's `dataset.personas` for that server if it lists any,
 * else the server's domain pack, else personas derived from the scopes its tools declare.
 */
export function domainPersonas(catalog: Catalog, dataset: DatasetConfig, packs: readonly DomainPack[]): Persona[] {
  return catalog.servers.flatMap((server) => {
    const configured = (dataset.personas ?? []).filter((p) => p.domain === server.name);
    if (configured.length) return configured.map((p) => ({ ...p }));
    const pack = packFor(packs, server.serverInfo?.name);
    if (pack) return pack.personas.map((p) => ({ ...p, domain: server.name }));
    return derivePersonas(
      server.name,
      catalog.tools.filter((t) => t.server === server.name),
    );
  });
}

/** Personas of a domain allowed to call a tool with these required scopes. */
export function personasFor(personas: Persona[], domain: string, required: string[]): Persona[] {
  return personas.filter((p) => p.domain === domain && required.every((s) => p.scopes.includes(s)));
}
