import { PublishInputError } from './types.js';

/** Where a publication goes: a prefix in an S3(-compatible) bucket, or a Hub repo. */
export type PublishTarget =
  | { kind: 's3'; uri: string; bucket: string; prefix: string }
  | { kind: 'hf'; uri: string; repoType: 'model' | 'dataset'; name: string };

const HUB_NAME = /^[A-Za-z0-9][\w.-]{0,95}\/[A-Za-z0-9][\w.-]{0,95}$/;

/**
 * s3://bucket[/prefix], hf://datasets/ORG/NAME, hf://ORG/NAME or hf://models/ORG/NAME. A dataset goes to a
 * dataset repo and an adapter to a model repo; the other way round is refused (the Hub would take it, and
 * neither the viewer nor PEFT would make sense of it).
 */
export function parseTarget(uri: string, kind: 'dataset' | 'adapter'): PublishTarget {
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(uri);
  if (s3) {
    const prefix = (s3[2] ?? '').replace(/^\/+|\/+$/g, '');
    if (prefix.split('/').some((p) => p === '..' || p === '.'))
      throw new PublishInputError(`--to ${uri}: the prefix may not contain . or .. segments`);
    return { kind: 's3', uri, bucket: s3[1]!, prefix };
  }
  const hf = /^hf:\/\/(?:(datasets|models)\/)?([^/]+\/[^/]+)\/?$/.exec(uri);
  if (hf) {
    const repoType = hf[1] === 'datasets' ? 'dataset' : 'model';
    const name = hf[2]!;
    if (!HUB_NAME.test(name) || name.includes('..') || name.includes('--'))
      throw new PublishInputError(`--to ${uri}: "${name}" is not a Hub repo id (ORG/NAME: letters, digits, - _ .)`);
    if (kind === 'dataset' && repoType !== 'dataset')
      throw new PublishInputError(`--to ${uri}: a dataset goes to a dataset repo, hf://datasets/${name}`);
    if (kind === 'adapter' && repoType !== 'model')
      throw new PublishInputError(`--to ${uri}: an adapter goes to a model repo, hf://${name}`);
    return { kind: 'hf', uri, repoType, name };
  }
  throw new PublishInputError(
    `--to ${uri}: expected s3://bucket/prefix, hf://datasets/ORG/NAME (dataset) or hf://ORG/NAME (adapter)`,
  );
}
