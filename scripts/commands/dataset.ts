import { openStore } from '../../core/artifacts/index.js';
import type { RenderedRow } from '../../core/dataset/render.js';
import { approxTokens } from '../../core/dataset/tokens.js';
import type { RunProgress } from '../../core/pipeline/types.js';
import { intOption, parse, UsageError, type Command } from '../lib/args.js';
import { datasetReport } from '../lib/dataset-report.js';
import { connect, findRun, runProgress, runStatus } from '../lib/runs.js';

export const datasetCommand: Command = {
  name: 'dataset',
  summary: "look at a run's dataset: stats and rendered rows",
  usage: `flywheel dataset stats RUN_ID
flywheel dataset preview RUN_ID [--n 3] [--split train|val|test]

stats    rows per split by verdict and domain, the train split's request styles (dataset.phrasing: natural),
         validation rejections by reason, negatives by operator,
         and the coverage table: per tool its intents, valid rows, distinct training rows, how calls
         were checked (execute / dry-run / schema), rejections by reason, its probe, and why a tool has no data
preview  N rendered rows: the prompt (system, conversation, offered tools) and the completion, which is
         the only part that gets loss, with approximate token counts (regex pre-tokenizer; exact counts
         depend on the base model's tokenizer)`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      { n: { type: 'string' }, split: { type: 'string', default: 'train' } },
      true,
    );
    const [verb, id, ...rest] = positionals;
    if (!['stats', 'preview'].includes(verb ?? '') || !id || rest.length)
      throw new UsageError('expected: flywheel dataset stats|preview RUN_ID');
    if (!['train', 'val', 'test'].includes(values.split)) throw new UsageError('--split must be train, val or test');
    const client = await connect();
    try {
      const handle = await findRun(client, id);
      const status = await runStatus(handle);
      const progress = (await runProgress(handle)) as RunProgress | undefined;
      const store = openStore(progress?.configStore ?? undefined);
      if (verb === 'stats') {
        const report = await datasetReport(store, status);
        if (!report) throw new UsageError(`run ${status.runId} has no dataset (its split stage did not complete)`);
        console.log(report);
        return 0;
      }
      const rendered = status.stages.find((s) => s.name === 'render')?.outputs[
        `rendered${values.split[0]!.toUpperCase()}${values.split.slice(1)}`
      ];
      if (!rendered) throw new UsageError(`run ${status.runId} has no rendered ${values.split} split`);
      const rows = await store.readJsonl<RenderedRow>(rendered);
      for (const row of rows.slice(0, intOption(values.n, 'n', 3))) {
        const promptText = row.prompt.map((m) => m.content ?? JSON.stringify(m.tool_calls ?? '')).join('\n');
        const toolsText = JSON.stringify(row.tools);
        const completion = row.completion.map((m) => m.content).join('\n');
        console.log(
          `── ${row.id} ─ prompt ≈${approxTokens(promptText) + approxTokens(toolsText)} tokens (${row.tools.length} tools ≈${approxTokens(toolsText)}), completion ≈${approxTokens(completion ?? '')} tokens`,
        );
        for (const m of row.prompt)
          console.log(`  [${m.role}] ${(m.content ?? JSON.stringify(m.tool_calls)).replace(/\n/g, '\n          ')}`);
        console.log(`  [tools] ${row.tools.map((t) => t.function.name).join(', ')}`);
        console.log(`  [completion — gets loss] ${completion}\n`);
      }
      return 0;
    } finally {
      await client.connection.close();
    }
  },
};
