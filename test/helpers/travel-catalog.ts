import { join } from 'node:path';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog } from '../../core/catalog/types.js';
import { REPO } from './fixtures.js';

/** The catalog of the travel tool file (test/fixtures/tools/travel-agent.openai.json), server `travel`: what the trace-format fixtures call. */
export async function travelCatalog(): Promise<Catalog> {
  return buildCatalog('t', [
    await listServerTools(
      { name: 'travel', tools: join(REPO, 'test', 'fixtures', 'tools', 'travel-agent.openai.json') } as never,
      { maxPages: 1 },
    ),
  ]);
}
