import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DomainPack } from '../core/dataset/packs.js';
import { InputError } from '../core/errors.js';
import { DOMAIN_PACKS } from '../sandboxes/packs.js';

/**
 * The domain packs a CPU worker hands its dataset stages: the ones this project ships (the sandboxes') and a
 * user's, loaded from module files (`flywheel worker --packs FILE`). Activities and core/ import no pack.
 */

/** The sandboxes' packs, which every worker has unless a user's pack for the same server replaces one. */
export const SHIPPED_PACKS: readonly DomainPack[] = DOMAIN_PACKS;

/** A pack file that cannot be loaded, or a pack in it that is malformed: names the file, the pack and the field. */
export class PackFileError extends InputError {}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** What is wrong with one exported pack, field by field (empty when it is a usable, versioned pack). */
export function packProblems(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return ['is not an object'];
  const p = value as Record<string, unknown>;
  const problems: string[] = [];
  if (!nonEmpty(p.server)) problems.push('server: expected the serverInfo.name of the server it describes');
  if (!nonEmpty(p.version))
    problems.push('version: expected a string (change it whenever the pack changes: it keys the stages that read it)');
  if (!Array.isArray(p.goals)) problems.push('goals: expected an array');
  else
    p.goals.forEach((g: Record<string, unknown> | null, i) => {
      if (!g || typeof g !== 'object') return problems.push(`goals[${i}]: expected an object`);
      if (!nonEmpty(g.id)) problems.push(`goals[${i}].id: expected a string`);
      if (!nonEmpty(g.tool)) problems.push(`goals[${i}].tool: expected a tool name`);
      if (!isStrings(g.phrasings) || g.phrasings.length === 0)
        problems.push(`goals[${i}].phrasings: expected one or more strings`);
      if (typeof g.draw !== 'function') problems.push(`goals[${i}].draw: expected a function (pools, rng) => draw`);
    });
  if (!Array.isArray(p.personas)) problems.push('personas: expected an array');
  else
    p.personas.forEach((q: Record<string, unknown> | null, i) => {
      if (!q || !nonEmpty(q.name) || !isStrings(q.scopes))
        problems.push(`personas[${i}]: expected { name: string, scopes: string[] }`);
    });
  if (!isStrings(p.unsatisfiable)) problems.push('unsatisfiable: expected an array of strings');
  if (typeof p.probes !== 'function') problems.push('probes: expected a function (limit) => probes');
  return problems;
}

/** The packs a module exports: `packs` (an array) or its default export (a pack or an array of them). */
function exported(mod: Record<string, unknown>): unknown[] | undefined {
  const value = mod.packs ?? mod.default;
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Load the packs of each module file, in order. Fails naming the file (and pack and field) on anything wrong. */
export async function loadPackFiles(files: readonly string[]): Promise<DomainPack[]> {
  const loaded: Array<{ pack: DomainPack; file: string }> = [];
  for (const file of files) {
    const path = resolve(file);
    if (!existsSync(path)) throw new PackFileError(`${file}: no such pack file`);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (err) {
      throw new PackFileError(`${file}: cannot be loaded: ${(err as Error).message}`);
    }
    const packs = exported(mod);
    if (!packs?.length)
      throw new PackFileError(`${file}: exports no pack (export \`packs\`, an array, or a default pack)`);
    packs.forEach((pack, i) => {
      const name = nonEmpty((pack as { server?: unknown } | null)?.server) ? (pack as DomainPack).server : `#${i}`;
      const problems = packProblems(pack);
      if (problems.length)
        throw new PackFileError(`${file}: pack ${name}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
      const twin = loaded.find((l) => l.pack.server === name);
      if (twin) throw new PackFileError(`${file}: a second pack for server ${name} (the first is in ${twin.file})`);
      loaded.push({ pack: pack as DomainPack, file });
    });
  }
  return loaded.map((l) => l.pack);
}

/** The worker's packs: the shipped ones, each replaced by a loaded pack for the same server, then the rest. */
export function workerPacks(loaded: readonly DomainPack[]): DomainPack[] {
  const servers = new Set(loaded.map((p) => p.server));
  return [...SHIPPED_PACKS.filter((p) => !servers.has(p.server)), ...loaded];
}
