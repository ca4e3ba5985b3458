import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { formatPath } from './path.js';
import { configSchema, type FlywheelConfig } from './schema.js';
import { InputError } from '../errors.js';

/** A config that cannot be used. `problems` each name the key path; the message names the file. */
export class ConfigError extends InputError {
  override name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source}: invalid config\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export { formatPath };

function describeIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => `${formatPath([...issue.path, k])}: unknown key`);
    }
    return [`${formatPath(issue.path)}: ${issue.message}`];
  });
}

/** Validate an already-parsed config object. `source` names where it came from, for messages. */
export function parseConfig(raw: unknown, source = 'config'): FlywheelConfig {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(source, describeIssues(result.error.issues));
  return result.data;
}

/** Parse YAML or JSON text (JSON is YAML). Syntax errors name the line and column. */
export function parseConfigText(text: string, source: string): FlywheelConfig {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      source,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return `${pos ? `line ${pos.line}, column ${pos.col}: ` : ''}${message}`;
      }),
    );
  }
  return parseConfig(doc.toJS(), source);
}

export async function loadConfigFile(file: string): Promise<FlywheelConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [`cannot read file: ${(err as Error).message}`]);
  }
  return parseConfigText(text, file);
}
