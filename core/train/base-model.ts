import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ArtifactStore } from '../artifacts/store.js';
import type { ArtifactRef } from '../artifacts/types.js';
import { BASE_CONVERSION, BASE_MARKER, convertedDir, PACKAGED_BASES } from './packaged-bases.js';

// The packaged bases on disk: converted once into a machine's cache and stored once as a `base-model` artifact.
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
