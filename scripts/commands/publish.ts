import { existsSync, readdirSync } from 'node:fs';
import { storeUriFrom } from '../lib/paths.js';
import { DEFAULT_REGISTRY } from '../../core/deploy/types.js';
import { registryExists } from '../../core/deploy/registry.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { stageVersion } from '../../workflows/contract/table.js';
import { openStore } from '../../core/artifacts/index.js';
import { shortSha } from '../../core/hash.js';
import { collectAdapter, collectDataset, type CollectOptions, DEFAULT_LICENSE } from '../../core/publish/collect.js';
import { DEFAULT_HUB_URL, publishToHub } from '../../core/publish/hub.js';
import { publishToS3 } from '../../core/publish/s3.js';
import { parseTarget, type PublishTarget } from '../../core/publish/target.js';
import { PublishInputError, type Publication } from '../../core/publish/types.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { humanBytes, printJson, table } from '../lib/output.js';
import { DEFAULT_STORE_URI } from '../../core/defaults.js';

export const publishCommand: Command = {
  name: 'publish',
  summary: 'publish a dataset or an adapter, with its card, to S3 or the Hugging Face Hub',
  usage: `flywheel publish dataset ADAPTER_VERSION|SHA --to URI [options]
flywheel publish adapter ADAPTER_VERSION|SHA --to URI [options]

dataset  rendered rows (data/{train,validation,test}.jsonl) and the router rows they came from (rows/…), with a
         dataset card (README.md: dataset hash, catalog version, row counts) and manifest.json. SHA is one split
         artifact (rendered-train/val/test or train/val/test; its siblings come along), or give an adapter
         (adp-… or its sha) for the data it was trained on and the test set it was scored on.
adapter  the adapter artifact's files (adapter/, base/ for a tiny base, metrics.jsonl) and its evaluation
         (eval/), with a model card (README.md: dataset hash, base model, hyperparameters, eval metrics with
         95 % intervals, or "not evaluated") and manifest.json.

  --to URI         s3://bucket/prefix       files go to s3://bucket/prefix/<ds-…|adp-…>/, manifest.json last;
                                            files already there with the same sha256 are skipped
                   hf://datasets/ORG/NAME   a Hub dataset repo (for a dataset)
                   hf://ORG/NAME            a Hub model repo (for an adapter)
                   On the Hub the repo is created when missing and every file lands in one commit, which
                   also deletes files an earlier publication left there (.gitattributes stays).
  --private        a Hub repo this creates is private (the default); --public makes it public.
                   An existing repo keeps its visibility.
  --license ID     the card's license (default ${DEFAULT_LICENSE}; an adapter on gemma3-270m: gemma, its base's terms)
  --dataset-repo ORG/NAME  adapter: the Hub dataset its training data went to (card datasets + model-index)
  --with-examples  adapter: also publish adapter/examples.jsonl, its training requests (the retrieval prior's
                   neighbours, docs/training-and-serving.md); left out by default: they are training data
  --registry PATH|URL  the deploy registry (default ${DEFAULT_REGISTRY} when it exists): when a deployed version of
                   the adapter names an eval report in the store, that evaluation (the one its deploy was gated
                   on) is used instead of the newest, and the card names the version
  --dry-run        publish nothing: list the files and print the card (--to is optional)
  --out DIR        with --dry-run: also write the files under DIR (must be absent or empty)
  --hub-url URL    default $HF_ENDPOINT or ${DEFAULT_HUB_URL}
  --token-env VAR  the environment variable holding the Hub token (default HF_TOKEN); never on argv or in config
  --s3-endpoint URL  S3-compatible endpoint (default $FLYWHEEL_S3_ENDPOINT); credentials: the AWS env/profile chain
  --store URI      default $FLYWHEEL_ARTIFACTS or ${DEFAULT_STORE_URI}
  --json           print the result as JSON`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      {
        to: { type: 'string' },
        private: { type: 'boolean', default: false },
        public: { type: 'boolean', default: false },
        license: { type: 'string' },
        'dataset-repo': { type: 'string' },
        'with-examples': { type: 'boolean', default: false },
        registry: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        out: { type: 'string' },
        'hub-url': { type: 'string' },
        'token-env': { type: 'string', default: 'HF_TOKEN' },
        's3-endpoint': { type: 'string' },
        store: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    const [what, id, ...extra] = positionals;
    if ((what !== 'dataset' && what !== 'adapter') || !id || extra.length)
      throw new UsageError('expected: flywheel publish dataset|adapter ADAPTER_VERSION|SHA --to URI');
    if (values.private && values.public) throw new UsageError('--private and --public exclude each other');
    if (values.out && !values['dry-run']) throw new UsageError('--out goes with --dry-run');
    if (!values.to && !values['dry-run'])
      throw new UsageError('--to is required (s3://bucket/prefix, hf://datasets/ORG/NAME or hf://ORG/NAME)');
    if (values['dataset-repo'] && !/^[\w.-]+\/[\w.-]+$/.test(values['dataset-repo']))
      throw new UsageError(`--dataset-repo ${values['dataset-repo']}: expected ORG/NAME`);
    if (values.registry && !registryExists(values.registry))
      throw new UsageError(`--registry ${values.registry}: no such file`);
    const registry = values.registry ?? (existsSync(DEFAULT_REGISTRY) ? DEFAULT_REGISTRY : undefined);
    const target = values.to ? await inputError(() => parseTarget(values.to!, what)) : undefined;
    if ((values.private || values.public) && target?.kind === 's3')
      throw new UsageError("--private/--public apply to hf:// targets; S3 access is the bucket policy's");
    // The token is checked before any work, so a missing one costs nothing; it is never echoed.
    const tokenEnv = values['token-env'];
    // Not echoed when malformed: a token pasted here by mistake must not end up in a terminal log.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
      throw new UsageError('--token-env takes the NAME of an environment variable (letters, digits, _)');
    const token = process.env[tokenEnv];
    if (target?.kind === 'hf' && !values['dry-run'] && !token)
      throw new UsageError(
        `${tokenEnv} is not set: put a Hugging Face access token with write access in the environment variable ${tokenEnv}`,
      );

    const store = openStore(storeUriFrom(values.store));
    const opts: CollectOptions = {
      trainStageVersion: stageVersion('train'),
      ...(registry ? { registry } : {}),
      ...(values.license ? { license: values.license } : {}),
      ...(values['dataset-repo'] ? { datasetRepo: values['dataset-repo'] } : {}),
      withExamples: values['with-examples'],
    };
    const pub = await inputError(() =>
      what === 'dataset' ? collectDataset(store, id, opts) : collectAdapter(store, id, opts),
    );

    if (values['dry-run']) return dryRun(pub, target, values.out, values.json);
    if (target!.kind === 's3') {
      const result = await publishToS3(pub, target!, values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] } : {});
      if (values.json)
        printJson({ kind: pub.kind, name: pub.name, datasetHash: pub.datasetHash, notes: pub.notes, ...result });
      else {
        printNotes(pub);
        console.log(
          `published ${pub.kind} ${pub.name} to ${result.uri}: ${result.uploaded.length} uploaded, ${result.unchanged.length} unchanged${result.manifestWritten ? ', manifest.json written' : ' (already published: nothing to do)'}`,
        );
      }
      return 0;
    }
    const hubUrl = values['hub-url'] ?? process.env.HF_ENDPOINT ?? DEFAULT_HUB_URL;
    const result = await inputError(() =>
      publishToHub(pub, target!, {
        accessToken: token!,
        tokenEnv,
        hubUrl,
        visibility: values.public ? 'public' : 'private',
      }),
    );
    if (values.json)
      printJson({
        kind: pub.kind,
        name: pub.name,
        datasetHash: pub.datasetHash,
        notes: pub.notes,
        files: pub.files.length,
        ...result,
      });
    else {
      printNotes(pub);
      console.log(
        `published ${pub.kind} ${pub.name} to ${result.url}${result.created ? ` (created, ${values.public ? 'public' : 'private'})` : ''}: ${pub.files.length} files${result.deleted.length ? `, ${result.deleted.length} stale deleted` : ''} in one commit${result.commit ? ` ${result.commit.oid} — ${result.commit.url}` : ''}`,
      );
    }
    return 0;
  },
};

/** Bad input found by core/publish (unknown version, wrong artifact kind, bad --to) is a usage error: exit 2. */
async function inputError<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof PublishInputError) throw new UsageError(err.message);
    throw err;
  }
}

function printNotes(pub: Publication): void {
  for (const n of pub.notes) console.log(`note: ${n}`);
}

async function dryRun(
  pub: Publication,
  target: PublishTarget | undefined,
  out: string | undefined,
  json: boolean,
): Promise<number> {
  if (out) {
    const dir = resolve(out);
    if (existsSync(dir) && readdirSync(dir).length)
      throw new UsageError(`--out ${out}: directory exists and is not empty`);
    for (const f of pub.files) {
      await mkdir(dirname(join(dir, f.path)), { recursive: true });
      await writeFile(join(dir, f.path), f.bytes);
    }
  }
  const where = target ? target.uri : 'nowhere (no --to)';
  if (json) {
    printJson({
      dryRun: true,
      kind: pub.kind,
      name: pub.name,
      datasetHash: pub.datasetHash,
      to: target?.uri ?? null,
      out: out ? resolve(out) : null,
      notes: pub.notes,
      files: pub.files.map((f) => ({ path: f.path, bytes: f.bytes.length, sha256: f.sha256 })),
      card: pub.card,
    });
    return 0;
  }
  const total = pub.files.reduce((n, f) => n + f.bytes.length, 0);
  console.log(
    `dry run: would publish ${pub.kind} ${pub.name} (${pub.files.length} files, ${humanBytes(total)}) to ${where}${out ? `; files written to ${resolve(out)}` : ''}`,
  );
  printNotes(pub);
  console.log(
    `\n${table(
      ['path', 'size', 'sha256'],
      pub.files.map((f) => [f.path, humanBytes(f.bytes.length), shortSha(f.sha256)]),
    )}\n\n--- README.md ---\n${pub.card}`,
  );
  return 0;
}
