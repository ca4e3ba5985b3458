import { withRegistry } from '../deploy/registry.js';

/** A registry version serving one adapter artifact, with the eval report its deploy was gated on. */
export interface GatedVersion {
  version: string;
  alias: string;
  evalReport: string;
  createdAt: string;
}

/** The registry's versions of this adapter artifact that name an eval report, newest first. */
export async function gatedVersions(registryPath: string, adapterSha: string): Promise<GatedVersion[]> {
  return withRegistry(registryPath, async (r) =>
    (await Promise.all((await r.aliases()).map(({ alias }) => r.versions(alias))))
      .flat()
      .filter((v) => v.adapter.sha256 === adapterSha && v.evalReport)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
      .map((v) => ({ version: v.name, alias: v.alias, evalReport: v.evalReport!.sha256, createdAt: v.createdAt })),
  );
}
