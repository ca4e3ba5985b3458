import { commit, createRepo, HubApiError, listFiles, repoExists } from '@huggingface/hub';
import { redact, refusedCredential } from '../secrets.js';
import { PublishInputError, type Publication } from './types.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

/** Files the Hub itself keeps in every repo: a publication never deletes them. */
const HUB_MANAGED = new Set(['.gitattributes']);

export interface HubPublishOptions {
  accessToken: string;
  /** The environment variable the token came from, named (never echoed) when the Hub refuses it. */
  tokenEnv?: string;
  /** The Hub (or a stand-in for it in tests); default https://huggingface.co. */
  hubUrl?: string;
  /** Visibility of a repo this call creates; an existing repo keeps its own. */
  visibility: 'private' | 'public';
  fetch?: typeof fetch;
}

export interface HubPublishResult {
  repo: string;
  url: string;
  created: boolean;
  commit?: { oid: string; url: string };
  /** Files of an earlier publication that this one's commit deleted. */
  deleted: string[];
}

type Common = { hubUrl: string; accessToken: string; fetch?: typeof fetch };

/** Files in the repo now that this publication does not have (an earlier one's eval/, base/, test split…). */
async function stalePaths(
  repo: { type: 'model' | 'dataset'; name: string },
  common: Common,
  pub: Publication,
): Promise<string[]> {
  const keep = new Set(pub.files.map((f) => f.path));
  const stale: string[] = [];
  for await (const f of listFiles({ repo, recursive: true, ...common })) {
    if (f.type === 'file' && !keep.has(f.path) && !HUB_MANAGED.has(f.path)) stale.push(f.path);
  }
  return stale.sort();
}

/**
 * Publish to a Hub repo with @huggingface/hub: create the repo when it does not exist, then every file in
 * ONE commit (the Hub commit endpoint is atomic: the repo never shows half a publication). Files an earlier
 * publication left (and this one lacks) are deleted in that same commit, so the repo holds exactly this
 * publication: no eval/ beside a "not evaluated" card.
 *
 * useXet is off: files go through the classic path — preupload decides per file, small ones travel base64
 * inside the NDJSON commit, LFS ones (weights, large JSONL) through the LFS batch API and a plain PUT. The Hub
 * still accepts that path for every repo (xet-backed ones through its LFS bridge), and it is the path the
 * tests exercise end to end against a local stand-in; the xet protocol (a CAS service) has no stand-in here.
 */
export async function publishToHub(
  pub: Publication,
  target: { repoType: 'model' | 'dataset'; name: string },
  opts: HubPublishOptions,
): Promise<HubPublishResult> {
  try {
    return await publishWith(pub, target, opts);
  } catch (err) {
    if (!(err instanceof HubApiError && refusedCredential(err.statusCode))) throw err;
    const env = opts.tokenEnv ?? 'HF_TOKEN';
    throw new PublishInputError(
      `the Hub refused the token in ${env} (${err.statusCode}): ${redact(err.message, opts.accessToken, env)} — it needs write access to ${target.name}`,
    );
  }
}

async function publishWith(
  pub: Publication,
  target: { repoType: 'model' | 'dataset'; name: string },
  opts: HubPublishOptions,
): Promise<HubPublishResult> {
  const hubUrl = (opts.hubUrl ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const repo = { type: target.repoType, name: target.name };
  const common: Common = { hubUrl, accessToken: opts.accessToken, ...(opts.fetch ? { fetch: opts.fetch } : {}) };
  let created = false;
  if (!(await repoExists({ repo, ...common }))) {
    try {
      await createRepo({ repo, visibility: opts.visibility, ...common });
      created = true;
    } catch (err) {
      // Created by someone else since we looked: publish into it.
      if (!(err instanceof HubApiError && err.statusCode === 409)) throw err;
    }
  }
  // A repo created just now holds only what the Hub put there: nothing to list.
  const deleted = created ? [] : await stalePaths(repo, common, pub);
  const out = await commit({
    repo,
    title: pub.title,
    description: pub.description,
    operations: [
      ...pub.files.map((f) => ({
        operation: 'addOrUpdate' as const,
        path: f.path,
        content: new Blob([new Uint8Array(f.bytes)]),
      })),
      ...deleted.map((path) => ({ operation: 'delete' as const, path })),
    ],
    useXet: false,
    ...common,
  });
  return {
    repo: target.name,
    url: `${hubUrl}/${target.repoType === 'dataset' ? 'datasets/' : ''}${target.name}`,
    created,
    deleted,
    ...(out?.commit ? { commit: out.commit } : {}),
  };
}
