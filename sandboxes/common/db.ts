import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Rng } from './rng.js';

export type Db = Database.Database;

export interface DataModel {
  /** Sandbox name, used in file names. */
  name: string;
  /** Bump when the DDL or the generator changes: old cached templates are then ignored. */
  dataVersion: string;
  ddl: string;
  generate(db: Db, rng: Rng): void;
}

/** Build the database for a seed: DDL, generated rows, VACUUM. Same seed and version, same bytes. */
export function buildDatabase(model: DataModel, seed: string | number, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${randomUUID()}.partial`;
  const db = new Database(tmp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('page_size = 4096');
    db.exec(model.ddl);
    db.transaction(() => model.generate(db, new Rng(`${model.name}:${seed}`)))();
    db.exec('VACUUM');
    db.close();
    renameSync(tmp, file);
  } catch (err) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The cached pristine database for a seed, built on first use. */
export function templatePath(model: DataModel, seed: string | number, cacheDir: string): string {
  const file = join(cacheDir, `${model.name}-v${model.dataVersion}-seed-${seed}.db`);
  if (!existsSync(file)) buildDatabase(model, seed, file);
  return file;
}

/**
 * Open a working copy of the template. With `path`, the copy lives there (kept across restarts unless
 * `reset`); without, a fresh temporary copy that is removed on close: a fresh sandbox per run.
 */
export function openWorkingCopy(
  template: string,
  opts: { path?: string; reset?: boolean } = {},
): { db: Db; file: string; close: () => void } {
  const file = opts.path ?? join(tmpdir(), `sandbox-${randomUUID()}.db`);
  if (opts.reset || !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    copyFileSync(template, `${file}.partial`);
    renameSync(`${file}.partial`, file);
  }
  const db = new Database(file);
  // The busy handler first: switching to WAL takes a lock another process opening the file may hold.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  return {
    db,
    file,
    close: () => {
      db.close();
      if (!opts.path) for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

/** sha256 over every row of every table in a fixed order: equal iff the content is equal. */
export function contentHash(db: Db): string {
  const hash = createHash('sha256');
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .all() as Array<{ name: string }>;
  for (const { name } of tables) {
    hash.update(`\u0000table ${name}\n`);
    for (const row of db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).iterate())
      hash.update(`${JSON.stringify(row)}\n`);
  }
  return hash.digest('hex');
}
