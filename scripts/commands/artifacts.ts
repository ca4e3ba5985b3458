import { existsSync } from 'node:fs';
import { storeUriFrom } from '../lib/paths.js';
import { writeFile } from 'node:fs/promises';
import { openStore, TREE_MEDIA_TYPE } from '../../core/artifacts/index.js';
import { shortSha } from '../../core/hash.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { humanBytes, printJson, table } from '../lib/output.js';
import { DEFAULT_STORE_URI } from '../../core/defaults.js';

export const artifactsCommand: Command = {
  name: 'artifacts',
  summary: 'list, inspect and read stored artifacts',
  usage: `flywheel artifacts ls [--kind KIND] [--json] [--store URI]
flywheel artifacts show URI|SHA [--store URI]
flywheel artifacts cat URI|SHA [--store URI]
flywheel artifacts get URI|SHA DEST [--store URI]

ls    manifests, newest first (kind, sha256, count, size, created)
show  the manifest: kind, media type, count, bytes, parents, stats, producer
cat   the content on stdout, hash-verified; a directory artifact prints its file listing
get   write the artifact to DEST (must not exist): a directory artifact (an adapter) as its tree, else the file
SHA may be a unique prefix (8+ hex digits). --store defaults to $FLYWHEEL_ARTIFACTS or ${DEFAULT_STORE_URI}.`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      { kind: { type: 'string' }, json: { type: 'boolean', default: false }, store: { type: 'string' } },
      true,
    );
    const [verb, id, ...more] = positionals;
    const dest = verb === 'get' ? more.shift() : undefined;
    const rest = more;
    const store = openStore(storeUriFrom(values.store));
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    switch (verb) {
      case 'ls': {
        const manifests = (await store.list()).filter((m) => !values.kind || m.kind === values.kind);
        if (values.json) printJson(manifests);
        else
          console.log(
            table(
              ['kind', 'sha256', 'count', 'size', 'created'],
              manifests.map((m) => [m.kind, shortSha(m.sha256), String(m.count), humanBytes(m.bytes), m.createdAt]),
            ),
          );
        return 0;
      }
      case 'show': {
        if (!id) throw new UsageError('expected: flywheel artifacts show URI|SHA');
        const ref = await store.resolve(id);
        printJson({ uri: ref.uri, ...(await store.manifest(ref.sha256)) });
        return 0;
      }
      case 'cat': {
        if (!id) throw new UsageError('expected: flywheel artifacts cat URI|SHA');
        const ref = await store.resolve(id);
        const manifest = await store.manifest(ref.sha256);
        if (manifest.mediaType === TREE_MEDIA_TYPE) {
          for (const f of await store.readTree(ref))
            process.stdout.write(`${f.sha256}  ${String(f.bytes).padStart(10)}  ${f.path}\n`);
        } else {
          process.stdout.write(await store.read(ref));
        }
        return 0;
      }
      case 'get': {
        if (!id || !dest) throw new UsageError('expected: flywheel artifacts get URI|SHA DEST');
        if (existsSync(dest)) throw new UsageError(`${dest} exists; give a new path`);
        const ref = await store.resolve(id);
        if ((await store.manifest(ref.sha256)).mediaType === TREE_MEDIA_TYPE) await store.materializeDir(ref, dest);
        else await writeFile(dest, await store.read(ref), { flag: 'wx' });
        console.error(`${ref.sha256.slice(0, 12)} -> ${dest}`);
        return 0;
      }
      default:
        throw new UsageError('expected: flywheel artifacts ls|show|cat|get');
    }
  },
};
