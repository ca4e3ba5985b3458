import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { Catalog } from '../../core/catalog/types.js';
import { preferencePairs } from '../../core/dataset/pairs.js';
import { renderRows } from '../../core/dataset/render.js';
import { asTaught } from '../../core/dataset/taught.js';
import type { RouterRow } from '../../core/dataset/types.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { beat } from '../../activities/heartbeat.js';
import { runStage } from '../../activities/stage.js';
import type { RenderArgs } from './spec.js';

/** The render stage's activity: rendered train / val / test rows and their preference pairs. */
export async function render(a: RenderArgs): Promise<StageOutcome> {
  return runStage(a, 'render', async (store) => {
    const catalog = await store.readJson<Catalog>(a.catalog);
    const outputs: Record<string, ArtifactRef> = {};
    const counts: string[] = [];
    for (const name of ['train', 'val', 'test'] as const) {
      beat({ rendering: name });
      const rows = await store.readJsonl<RouterRow>(a[name]);
      // The test set keeps its labels: it scores the model and the checks after it together (taught.ts).
      const rendered = renderRows(
        name === 'test' ? rows : asTaught(rows, a.dataset.render.format),
        catalog,
        a.dataset.render.format,
      );
      const Name = `${name[0]!.toUpperCase()}${name.slice(1)}`;
      outputs[`rendered${Name}`] = await store.putJsonl(`rendered-${name}`, rendered, {
        parents: [a[name], a.catalog],
        stats: { rows: rendered.length, format: a.dataset.render.format },
      });
      // Preference pairs from this split's near-miss negatives, for preference tuning after SFT. Each names the
      // SFT dataset it belongs with (the rendered train file's sha256), which the trainer checks against the
      // starting adapter's.
      const { pairs, counts: byOperator } = preferencePairs(rows, catalog, a.dataset.render.format);
      const dataset = outputs.renderedTrain!.sha256;
      outputs[`pairs${Name}`] = await store.putJsonl(
        `pairs-${name}`,
        pairs.map((p) => ({ ...p, dataset })),
        { parents: [a[name], a.catalog], stats: { pairs: pairs.length, byOperator, format: a.dataset.render.format } },
      );
      counts.push(`${name} ${rendered.length} (${pairs.length} pairs)`);
    }
    return { outputs, summary: `${a.dataset.render.format} rows: ${counts.join(', ')}` };
  });
}
