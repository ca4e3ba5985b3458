import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ArtifactStore } from '../artifacts/store.js';
import type { ArtifactRef } from '../artifacts/types.js';
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

const pointer = (name: string) =>
  `base-models/${name}/${PACKAGED_BASES[name]!.ggufSha256}/conversion-${BASE_CONVERSION}`;

async function converted(dir: string, name: string): Promise<boolean> {
  if (!existsSync(join(dir, BASE_MARKER))) return false;
  const meta = JSON.parse(await readFile(join(dir, BASE_MARKER), 'utf8')) as {
    name?: string;
    ggufSha256?: string;
    conversion?: number;
  };
  return (
    meta.name === name && meta.ggufSha256 === PACKAGED_BASES[name]!.ggufSha256 && meta.conversion === BASE_CONVERSION
  );
}

/**
 * The converted base in `cacheRoot`, converted first (`convert(name, outDir)`) when the cache has no current copy.
 * Without the artifact store: what one machine's tools and tests need; a run goes through ensureBaseModel.
 */
export async function convertedBase(
  name: string,
  cacheRoot: string,
  convert: (name: string, out: string) => Promise<void>,
): Promise<{ dir: string; converted: boolean }> {
  const dir = convertedDir(cacheRoot, name);
  if (await converted(dir, name)) return { dir, converted: false };
  await mkdir(dirname(dir), { recursive: true });
  await convert(name, dir);
  if (!(await converted(dir, name))) throw new Error(`converting ${name} left no ${BASE_MARKER} in ${dir}`);
  return { dir, converted: true };
}

/**
 * Make the converted base present in `cacheRoot` and stored in the artifact store. The store wins: a stored
 * base is put back into an empty cache (no conversion); otherwise the cache's copy, or a fresh conversion
 * (`convert(name, outDir)`, the trainer's convert-base), is stored and the pointer set.
 */
export async function ensureBaseModel(
  store: ArtifactStore,
  name: string,
  cacheRoot: string,
  convert: (name: string, out: string) => Promise<void>,
): Promise<{ dir: string; ref: ArtifactRef; converted: boolean }> {
  const dir = convertedDir(cacheRoot, name);
  const stored = await store.getPointer<ArtifactRef>(pointer(name));
  if (stored) {
    if (!(await converted(dir, name))) {
      const tmp = `${dir}.tmp-${process.pid}`;
      await rm(tmp, { recursive: true, force: true });
      await store.materializeDir(stored, tmp);
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
    }
    return { dir, ref: stored, converted: false };
  }
  const { converted: didConvert } = await convertedBase(name, cacheRoot, convert);
  const ref = await store.putDir('base-model', dir, {
    stats: { name, pip: PACKAGED_BASES[name]!.pip, ggufSha256: PACKAGED_BASES[name]!.ggufSha256 },
  });
  await store.putPointer(pointer(name), ref);
  return { dir, ref, converted: didConvert };
}
