/**
 * core/ is the logic, testable without Temporal: a file in it does I/O only as an adapter to one outside thing,
 * and docs/layout.md ("What each folder may do") lists those files. This test keeps the list and the code equal:
 * a core/ file that imports an I/O module as a value (files, network, processes, databases, SDK clients; type
 * imports do not count) or calls fetch must be listed there, and a listed one must still do so.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

const IO_MODULES =
  /^(node:(fs|fs\/promises|child_process|net|http|https|dgram)|better-sqlite3|pg|openai|@aws-sdk\/.+|@huggingface\/hub|@temporalio\/client|@modelcontextprotocol\/sdk\/.+)$/;

const tsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });

/** Whether a source imports an I/O module as a value (not `import type`) or calls fetch. */
export function doesIo(source: string): boolean {
  const imports = [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gms)].map((m) => m[1]!);
  return imports.some((m) => IO_MODULES.test(m)) || /(^|[^\w.])fetch\(/m.test(source);
}

function listed(): string[] {
  const layout = readFileSync(join(REPO, 'docs', 'layout.md'), 'utf8');
  const section = layout.split('## What each folder may do')[1]?.split('\n## ')[0];
  assert.ok(section, 'docs/layout.md has a "What each folder may do" section');
  return [...new Set([...section.matchAll(/`(core\/[\w/.-]+\.ts)`/g)].map((m) => m[1]!))].sort();
}

describe('I/O in core/', () => {
  it('is done only by the files docs/layout.md lists, and every listed file does it', () => {
    const actual = tsFiles(join(REPO, 'core'))
      .filter((f) => doesIo(readFileSync(f, 'utf8')))
      .map((f) => relative(REPO, f))
      .sort();
    assert.deepEqual(actual, listed(), 'list the adapter in docs/layout.md, or take the I/O as an argument');
  });

  it('tells a value import from a type import, and sees fetch', () => {
    assert.equal(doesIo("import { readFile } from 'node:fs/promises';\n"), true);
    assert.equal(doesIo("import type { Client } from '@modelcontextprotocol/sdk/client/index.js';\n"), false);
    assert.equal(doesIo("import {\n  S3Client,\n  GetObjectCommand,\n} from '@aws-sdk/client-s3';\n"), true);
    assert.equal(doesIo('const res = await fetch(url);\n'), true);
    assert.equal(doesIo('await this.fetch(url);\n'), false);
  });
});
