import { z } from 'zod';

/**
 * The flywheel config: one YAML/JSON document. Every object is strict, so a typo'd key is an error that
 * names its path instead of a silently ignored setting. Later stages add their own sections here.
 */

const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'use lowercase letters, digits and dashes (max 63), starting with a letter or digit');

export const stdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Extra environment for the server process (merged over the worker's PATH/HOME only). */
  env: z.record(z.string(), z.string()).default({}),
  /** Working directory; relative paths resolve against the worker's working directory. */
  cwd: z.string().optional(),
});

export const httpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  /** Name of an environment variable on the worker holding a bearer token (never the token itself). */
  bearerTokenEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name').optional(),
});

export const serverSchema = z
  .strictObject({
    name,
    stdio: stdioServerSchema.optional(),
    http: httpServerSchema.optional(),
    /** Connect + each tools/list page must finish within this many milliseconds. */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  })
  .refine((s) => Boolean(s.stdio) !== Boolean(s.http), {
    message: 'set exactly one of "stdio" or "http"',
  });

export const configSchema = z.strictObject({
  version: z.literal(1),
  /** Project name: keys workflow ids, catalog history and schedules. */
  name,
  artifacts: z
    .strictObject({
      /** file:PATH (relative to the worker's cwd), file:///abs/path, or s3://bucket/prefix. */
      store: z.string().min(1).default('file:.flywheel/artifacts'),
      s3: z
        .strictObject({
          endpoint: z.url().optional(),
          region: z.string().optional(),
          forcePathStyle: z.boolean().optional(),
        })
        .default({}),
    })
    .default({ store: 'file:.flywheel/artifacts', s3: {} }),
  servers: z
    .array(serverSchema)
    .min(1, 'at least one MCP server is needed')
    .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, {
      message: 'server names must be unique',
    }),
  catalog: z
    .strictObject({
      /** Stop following nextCursor after this many pages (guards against a server that never ends). */
      maxPages: z.number().int().min(1).max(10_000).default(100),
    })
    .default({ maxPages: 100 }),
});

export type FlywheelConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
