import { shortSha } from '../hash.js';
import type { AdapterParts } from './adapter.js';
import { cell, code, COMMON_TAGS, fixed, frontMatter, isHubModelId, table } from './card-format.js';
import { datasetName } from './dataset.js';
import { candidateResult, metricRows, type MetricRow } from './evaluation.js';
import { hyperparameters } from './hyperparameters.js';

export interface ModelCardInput {
  parts: AdapterParts;
  catalogVersion?: string;
  license: string;
  /** The Hub dataset repo the training data was published to (ORG/NAME): goes into `datasets` and model-index. */
  datasetRepo?: string;
  /** Whether the adapter's EXAMPLES_PATH goes out with it (`none`: the adapter has none). Default `none`. */
  examples?: 'published' | 'withheld' | 'none';
}

/** The adapter's training requests and their decisions (trainer/flywheel_trainer/examples.py): training data. */
export const EXAMPLES_PATH = 'adapter/examples.jsonl';

function baseModel(p: AdapterParts): string {
  return String(p.meta?.baseModel ?? p.adapter.stats.baseModel ?? 'unknown');
}

/** model-index: the Hub's structured eval results (only metrics with a value; the Hub wants numbers). */
function modelIndex(input: ModelCardInput, rows: MetricRow[]): unknown[] | undefined {
  const ev = input.parts.evaluation;
  if (!ev) return undefined;
  const metrics = rows
    .filter((r) => typeof r.value === 'number')
    .map((r) => ({ type: r.type, name: r.name, value: r.value }));
  return [
    {
      name: input.parts.version,
      results: [
        {
          task: { type: 'text-generation', name: 'Tool routing (one tool call or an abstention)' },
          dataset: {
            name: `mcp-flywheel frozen test set ${shortSha(ev.data.testSet.sha256)}`,
            type: input.datasetRepo ?? 'mcp-flywheel-test-set',
            split: 'test',
          },
          metrics,
        },
      ],
    },
  ];
}

function evaluationSection(p: AdapterParts, rows: MetricRow[]): string {
  const ev = p.evaluation;
  if (!ev) {
    return `**Not evaluated.** No evaluation made from this adapter (eval-results / eval-report artifact) was found in the
artifact store it was published from, so there are no metrics here. Run it through \`flywheel run\` (evaluate
stage) or score it with \`flywheel eval\`, then publish again.`;
  }
  const r = candidateResult(ev.data);
  const ci = (m: MetricRow) => (m.low === undefined ? '' : m.low === null ? '—' : `${fixed(m.low)}–${fixed(m.high)}`);
  const value = (m: MetricRow) =>
    m.type.startsWith('latency') ? fixed(m.value, 0) : m.type.startsWith('cost') ? fixed(m.value, 4) : fixed(m.value);
  const others = ev.data.results.filter((x) => x !== r).map((x) => `${x.label} ${fixed(x.metrics.exactMatch.value)}`);
  const gate = ev.data.gate;
  return [
    `Scored as \`${r?.label ?? '?'}\` on ${ev.data.testSet.cases} cases (${ev.data.testSet.source}) of the rendered test set ${code(ev.data.testSet.sha256)};`,
    `95 % percentile-bootstrap intervals (${ev.data.bootstrap.resamples} resamples, seed ${ev.data.bootstrap.seed}).`,
    `Source: ${ev.report ? `eval-report ${code(ev.report.sha256)}` : `eval-results ${code(ev.results.sha256)}`} (files under \`eval/\`).`,
    ...(ev.deployed
      ? [
          `Gated as deployed version ${code(ev.deployed.version)} (alias ${code(ev.deployed.alias)}): the eval report the deploy registry records for it.`,
        ]
      : []),
    '',
    table(
      ['metric', 'value', '95 % CI'],
      rows.map((m) => [m.name, value(m), ci(m)]),
    ),
    '',
    ...(others.length ? [`Exact match of the other endpoints on the same cases: ${cell(others.join(', '))}.`, ''] : []),
    ...(gate ? [`Gate: **${gate.promote ? 'PROMOTE' : 'REJECT'}**`, ...gate.reasons.map((x) => `- ${cell(x)}`)] : []),
  ].join('\n');
}

function usage(p: AdapterParts): string {
  const base = baseModel(p);
  if (p.tinyBase || base.startsWith('tiny:')) {
    return `The base is a tiny model built from a config (\`${cell(base)}\`); it is included under \`base/\`, and
\`adapter/flywheel.json\` points the mcp-flywheel serve command at it (from an mcp-flywheel checkout):

\`\`\`sh
PYTHONPATH=trainer python -m flywheel_trainer serve --adapter router=./adapter
\`\`\``;
  }
  return `\`\`\`python
from huggingface_hub import snapshot_download
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer

path = snapshot_download("<this repo>")
base = AutoModelForCausalLM.from_pretrained(${JSON.stringify(base)})
model = PeftModel.from_pretrained(base, f"{path}/adapter")
tokenizer = AutoTokenizer.from_pretrained(f"{path}/adapter")
\`\`\``;
}

function examplesNote(examples: 'published' | 'withheld' | 'none'): string {
  if (examples === 'none') return '';
  const what = `\`${EXAMPLES_PATH}\` holds the training rows' requests (their user turns) and the decision each was
taught: mcp-flywheel's serve looks the nearest ones up to steer which tool the router names (its retrieval prior).`;
  return examples === 'published'
    ? `\n\n${what} It is training data, published here on purpose (\`flywheel publish --with-examples\`).`
    : `\n\n${what} It is training data and is not published here (\`flywheel publish --with-examples\` would);
without it serve answers from the weights alone.`;
}

/** The model card: Hub metadata, then provenance, hyperparameters, eval metrics, files and usage. */
export function modelCard(input: ModelCardInput): string {
  const p = input.parts;
  const base = baseModel(p);
  const rows = p.evaluation
    ? candidateResult(p.evaluation.data)
      ? metricRows(candidateResult(p.evaluation.data)!)
      : []
    : [];
  const meta = {
    library_name: 'peft',
    license: input.license,
    base_model: isHubModelId(base) ? base : undefined,
    pipeline_tag: 'text-generation',
    tags: [String(p.meta?.method ?? p.adapter.stats.method ?? 'lora'), 'peft', ...COMMON_TAGS],
    datasets: input.datasetRepo ? [input.datasetRepo] : undefined,
    'model-index': modelIndex(input, rows),
  };
  const split = (name: string) => p.dataset.splits.find((s) => s.split === name);
  const provenance: Array<[string, string]> = [
    ['flywheel adapter version', code(p.version)],
    ['adapter artifact sha256', code(p.adapter.sha256)],
    ['base model', code(base)],
    ['catalog version', input.catalogVersion ? code(input.catalogVersion) : 'not in the store'],
    [
      'dataset hash',
      `${code(p.dataset.hash)} (${datasetName(p.dataset.hash)}; \`flywheel publish dataset ${p.version}\` publishes it)`,
    ],
    ...p.dataset.splits.map((s): [string, string] => [
      `${s.split} rows`,
      `${s.rendered?.count ?? s.rows?.count ?? 0} (rendered ${s.rendered ? code(s.rendered.sha256) : '—'}, router rows ${s.rows ? code(s.rows.sha256) : '—'})`,
    ]),
    ...(split('test') ? [] : [['test rows', 'not known (no evaluation found)'] as [string, string]]),
    ...(p.job ? [['run config', code(p.job.config.sha256)] as [string, string]] : []),
    ['trained', p.adapter.createdAt],
  ];
  const hp = hyperparameters(p);
  return `${frontMatter(meta)}
# ${p.version}: tool-router ${cell(p.meta?.method ?? 'lora')} adapter (mcp-flywheel)

Given a user request and a slice of an MCP tool catalog, this adapter makes its base model emit exactly one
schema-valid tool call as JSON (\`{"tool": NAME, "arguments": {...}}\`), or an explicit abstention
(\`{"tool": null, "verdict": ..., "code": ...}\`). Trained by mcp-flywheel with completion-only
LoRA SFT on the dataset named below.

## Provenance

${provenance.map(([k, v]) => `- **${k}:** ${v}`).join('\n')}

## Training hyperparameters

${table(
  ['hyperparameter', 'value', 'from'],
  hp.map((h) => [h.name, h.value, h.source]),
)}
${p.job ? `\nThe full train job (normalised, defaults filled; its hash is part of the adapter version):\n\n\`\`\`json\n${JSON.stringify(p.job.identity, null, 2)}\n\`\`\`\n` : ''}
## Evaluation

${evaluationSection(p, rows)}

## Files

${table(
  ['path', 'bytes', 'sha256'],
  p.files
    .filter((f) => !(f.path === EXAMPLES_PATH && input.examples === 'withheld'))
    .map((f) => [f.path, f.bytes, code(f.sha256)]),
)}

Plus \`README.md\` (this card), the evaluation under \`eval/\` when there is one, and \`manifest.json\` (every
file with its sha256).${examplesNote(input.examples ?? 'none')}

## Usage

${usage(p)}
${p.notes.length ? `\n## Notes\n\n${[...new Set(p.notes)].map((n) => `- ${n}`).join('\n')}\n` : ''}`;
}
