/**
 * No import circles in the TypeScript sources: a module that (through others) imports itself runs with half its
 * neighbours undefined at load, and a circle is two modules that are really one. Type-only imports (`import type`)
 * are erased before anything runs, so they make no circle and are not counted. The trainer's Python package has
 * the same check (trainer/tests/test_import_circles.py).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

const SKIP = new Set(['node_modules', '.flywheel', '.git', 'dist', 'shared']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name) || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative modules a file imports as values: static imports and re-exports not marked `type`, bare imports,
 * and dynamic `import()` of a literal path. */
export function valueImports(file: string, text: string): string[] {
  const found: string[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]/g;
  for (const m of text.matchAll(statement)) if (!m[2]) found.push(m[4]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found.map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** The strongly connected components with more than one module, or one module importing itself (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles', () => {
  it('finds a circle, and ignores a type-only one (the check itself)', () => {
    const a = '/x/a.ts';
    const b = '/x/b.ts';
    assert.deepEqual(
      valueImports(a, "import { f } from './b.js';\nimport type { T } from './c.js';"),
      [b, '/x/c.ts'].slice(0, 1),
    );
    assert.deepEqual(valueImports(a, "export {\n  g,\n} from './b.js';\nconst m = await import('./c.js');"), [
      b,
      '/x/c.ts',
    ]);
    assert.deepEqual(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
      [[a, b]],
    );
    assert.deepEqual(
      circles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
      [],
    );
  });

  it('no TypeScript module imports itself through others', () => {
    const graph = new Map(sources(REPO).map((file) => [file, valueImports(file, readFileSync(file, 'utf8'))] as const));
    assert.ok(graph.size > 300, `${graph.size} sources read`);
    const found = circles(graph).map((c) => c.map((f) => relative(REPO, f)).join(' ↔ '));
    assert.deepEqual(found, [], 'break each circle: move what both sides need into a module of its own');
  });
});
