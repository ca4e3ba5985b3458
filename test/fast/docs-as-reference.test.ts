/**
 * The docs, the README and the source describe the product as it is: no past work round ("session 12") and no
 * issue number ("issue 14") in them. History lives in git and in the issue notes.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

/** The words that date a text (case-insensitive): a work round or an issue by its number. */
const HISTORY_WORDS = /sessions?[ -]?[0-9]|sessions so far|issues?[ -]#?[0-9]/i;

/** Everything a person reads as the product's own words: docs, README, code and its comments, configs. */
const ROOTS = [
  'README.md',
  'Makefile',
  '.ci',
  'docs',
  'activities',
  'bin',
  'core',
  'deploy',
  'examples',
  'gateway',
  'sandboxes',
  'scripts',
  'stages',
  'temporal-config',
  'test',
  'trainer',
  'workers',
  'workflows',
];
/** Not ours to word, or data: installed packages, caches, and test fixtures (requests a person typed may say "issue 12"). */
const SKIP = new Set(['node_modules', '.venv', '__pycache__', '.pytest_cache', '.flywheel', 'fixtures']);
const TEXT = /\.(ts|js|mjs|py|md|ya?ml|json|jinja|txt|sh|toml)$|^(Makefile|Dockerfile|run)$|^Dockerfile\./;

function files(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const p = join(path, e.name);
    if (e.isDirectory()) return files(p);
    return TEXT.test(e.name) ? [p] : [];
  });
}

describe('docs as reference', () => {
  it('the pattern catches the ways a text names a round or an issue, and leaves plain words alone', () => {
    for (const dated of [
      'Session 34',
      'sessions 29-37',
      'session-36 demo',
      'no GPU in the sessions so far',
      'issue 14',
      'Issue #7',
      'issues 40',
    ])
      assert.ok(HISTORY_WORDS.test(dated), dated);
    for (const plain of [
      'a session of the worker',
      'session ids',
      'an issue with the schema',
      'issues the teacher raises',
    ])
      assert.ok(!HISTORY_WORDS.test(plain), plain);
  });

  it('no doc, README or source file names a past work round or an issue number', () => {
    const hits = ROOTS.flatMap((root) => files(join(REPO, root))).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (HISTORY_WORDS.test(line) ? [`${relative(REPO, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    // This file's own examples above are the pattern's test, not history.
    const own = relative(REPO, new URL(import.meta.url).pathname);
    assert.deepEqual(
      hits.filter((h) => !h.startsWith(`${own}:`)),
      [],
      'describe the product as it is; history goes in git and the issue notes',
    );
  });
});
