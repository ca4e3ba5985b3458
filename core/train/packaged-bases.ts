import { join } from 'node:path';
import { CONTRACT } from '../router/contract.js';

/**
 * Base models that ship inside pip packages, as the router contract lists them (trainer/router-contract.json,
 * which the trainer's packaged.py reads too). A name resolves to a GGUF checked by sha256; its conversion to
 * safetensors is stored once as a content-addressed `base-model` artifact, so every GPU worker and serve load the
 * same bytes. `license` is what derivatives are published under (publish's card licence).
 */
export const PACKAGED_BASES: Record<string, { pip: string; ggufSha256: string; license: string }> = Object.fromEntries(
  Object.entries(CONTRACT.packagedBases.bases).map(([name, b]) => [
    name,
    { pip: b.pip, ggufSha256: b.sha256, license: b.license },
  ]),
);

/** The marker the trainer writes into a converted directory (and reads to skip converting again). */
export const BASE_MARKER = 'flywheel-base.json';
/** The conversion's number: stored bases are keyed by it, so a changed conversion is stored anew. */
export const BASE_CONVERSION = CONTRACT.packagedBases.conversion;

export function isPackagedBase(name: string): boolean {
  return Object.hasOwn(PACKAGED_BASES, name);
}

/** A name of a packaged family that is not packaged ("smollm2-360m-instruct"): a typo, not a hub id. */
export function packagedNameProblem(name: string): string | undefined {
  if (isPackagedBase(name) || name.includes('/') || name.startsWith('tiny:')) return undefined;
  const families = new Set(Object.keys(PACKAGED_BASES).map((n) => n.split('-')[0]));
  if (!families.has(name.split('-')[0]!)) return undefined;
  return `unknown packaged base "${name}" (packaged: ${Object.keys(PACKAGED_BASES).join(', ')}; or give a Hugging Face id with its org, a local path, or tiny:<preset>)`;
}

/** Where the trainer and serve look for a converted base: $FLYWHEEL_BASE_CACHE/<name>-<gguf sha 12>. */
export function convertedDir(cacheRoot: string, name: string): string {
  return join(cacheRoot, `${name}-${PACKAGED_BASES[name]!.ggufSha256.slice(0, 12)}`);
}
