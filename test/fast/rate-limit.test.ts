/**
 * The teacher's shared budget: the GCRA arithmetic, the SQLite bucket store, and send()'s handling of 429s, quota
 * refusals and 5xx against a local HTTP server that stands in for an OpenAI-compatible endpoint.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import OpenAI from 'openai';
import { bucketShape, reserve } from '../../core/ratelimit/gcra.js';
import { openLimiter } from '../../core/ratelimit/limiter.js';
import { sqliteLimitStore } from '../../core/ratelimit/sqlite-store.js';
import {
  estimateTokens,
  retryAfterMs,
  send,
  TeacherKeyError,
  TeacherRequestError,
  TeacherQuotaError,
} from '../../core/dataset/teacher/send.js';
import { parseConfig } from '../../core/config/load.js';
import { tempDir } from '../helpers/fixtures.js';

describe('GCRA', () => {
  it('paces callers one interval apart, lets a burst through at once, and resumes at the rate after idling', () => {
    const { msPerUnit, burstMs } = bucketShape(10, 1); // 10/s, no burst
    let tat: number | undefined;
    const waits = [0, 0, 0, 0].map(() => ((r) => ((tat = r.tat), r.waitMs))(reserve(tat, 1000, msPerUnit, burstMs)));
    assert.deepEqual(waits, [0, 100, 200, 300]);
    // Idle for a second: the bucket forgets the past instead of banking it.
    assert.equal(reserve(tat, 3000, msPerUnit, burstMs).waitMs, 0);
    const burst = bucketShape(10, 3);
    let t: number | undefined;
    const burstWaits = [0, 0, 0, 0, 0].map(() =>
      ((r) => ((t = r.tat), r.waitMs))(reserve(t, 0, burst.msPerUnit, burst.burstMs)),
    );
    assert.deepEqual(burstWaits, [0, 0, 0, 100, 200]);
  });
});

describe('SQLite bucket store', () => {
  it('two handles on one file (as two worker processes) draw distinct turns, and holdFor and adjust move the bucket', async () => {
    let now = 10_000;
    const path = join(tempDir(), 'limits.sqlite');
    const a = sqliteLimitStore(path, () => now);
    const b = sqliteLimitStore(path, () => now);
    const waits = [];
    for (let i = 0; i < 6; i++) waits.push(await (i % 2 ? b : a).reserve('k', 50, 50));
    assert.deepEqual(waits, [0, 50, 100, 150, 200, 250]);
    now += 1000;
    await b.holdFor('k', 700);
    assert.equal(await a.reserve('k', 50, 50), 700);
    await a.adjust('k', -200);
    assert.equal(await b.reserve('k', 50, 50), 550);
    // Another key is another bucket.
    assert.equal(await b.reserve('other', 50, 50), 0);
    await a.close();
    await b.close();
  });

  it('a PostgreSQL URL with a password is refused at config check, naming the key (the password belongs in PGPASSWORD); a budget needs a rate', () => {
    const config = (rateLimit: Record<string, unknown>) =>
      parseConfig({
        version: 1,
        name: 'x',
        servers: [{ name: 's', stdio: { command: 'node' } }],
        dataset: { teacher: { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', rateLimit } },
      });
    assert.throws(
      () => config({ requestsPerSecond: 1, store: 'postgresql://flywheel:hunter2@db.internal/flywheel' }),
      (e: Error) =>
        /dataset\.teacher\.rateLimit\.store/.test(e.message) &&
        /PGPASSWORD/.test(e.message) &&
        !e.message.includes('hunter2'),
    );
    assert.doesNotThrow(() => config({ requestsPerSecond: 1, store: 'postgresql://flywheel@db.internal/flywheel' }));
    assert.throws(() => config({ store: 'a.sqlite' }), /requestsPerSecond, tokensPerSecond or both/);
  });
});

/** An endpoint answering each request with the next scripted status (200 afterwards). */
async function scripted(
  statuses: Array<{ status: number; body?: unknown; headers?: Record<string, string> }>,
  apiKey = 'k',
) {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(Date.now());
      const next = statuses.shift();
      const body = next?.body ?? {
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{}' } }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      };
      res
        .writeHead(next?.status ?? 200, { 'content-type': 'application/json', ...next?.headers })
        .end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new OpenAI({
    baseURL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    apiKey,
    maxRetries: 0,
  });
  return { client, arrivals, close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

const body = { model: 'm', messages: [{ role: 'user' as const, content: 'hello' }] };

describe('send', () => {
  it('backs off on 429s for as long as it takes, honouring Retry-After, without spending maxRetries', async () => {
    const end = await scripted([
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '150' } },
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '150' } },
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '150' } },
    ]);
    const waits: number[] = [];
    const out = await send(end.client, body, {
      keyEnv: 'TEST_TEACHER_KEY',
      maxRetries: 0,
      onWait: (w) => waits.push(w.waitMs),
    });
    assert.equal(out.choices[0]?.message.content, '{}');
    assert.deepEqual(waits, [150, 150, 150]);
    assert.ok(end.arrivals[3]! - end.arrivals[0]! >= 440, 'each retry waited its Retry-After');
    await end.close();
  });

  it('a 429 for a spent quota fails at once: waiting cannot help', async () => {
    const end = await scripted([
      {
        status: 429,
        body: {
          error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' },
        },
      },
    ]);
    await assert.rejects(send(end.client, body, { keyEnv: 'TEST_TEACHER_KEY', maxRetries: 5 }), TeacherQuotaError);
    assert.equal(end.arrivals.length, 1);
    await end.close();
  });

  it('a refused key (401/403) fails at once, naming the variable; a key the endpoint echoes is not repeated', async () => {
    const key = 'sk-live-0123456789abcdef';
    for (const status of [401, 403]) {
      const end = await scripted(
        [{ status, body: { error: { message: `Incorrect API key provided: ${key}.` } } }],
        key,
      );
      await assert.rejects(send(end.client, body, { maxRetries: 5, keyEnv: 'ACME_TEACHER_KEY' }), (e: Error) => {
        assert.ok(e instanceof TeacherKeyError, String(e));
        assert.match(
          e.message,
          new RegExp(
            `refused the API key in ACME_TEACHER_KEY \\(${status}\\).*Incorrect API key provided: \\$ACME_TEACHER_KEY`,
          ),
        );
        assert.ok(!e.message.includes(key), e.message);
        return true;
      });
      assert.equal(end.arrivals.length, 1, 'not retried');
      await end.close();
    }
  });

  it('retries 5xx up to maxRetries, then gives up; a 400 or 404 is never retried and names the endpoint', async () => {
    const e500 = { status: 500, body: { error: { message: 'boom' } } };
    const ok = await scripted([e500, e500]);
    await send(ok.client, body, { keyEnv: 'TEST_TEACHER_KEY', maxRetries: 2 });
    assert.equal(ok.arrivals.length, 3);
    await ok.close();
    const failing = await scripted([e500, e500, e500]);
    await assert.rejects(
      send(failing.client, body, { keyEnv: 'TEST_TEACHER_KEY', maxRetries: 1 }),
      (e: unknown) => e instanceof OpenAI.InternalServerError,
    );
    assert.equal(failing.arrivals.length, 2);
    await failing.close();
    for (const [status, message] of [
      [400, 'tools need --enable-auto-tool-choice'],
      [404, 'The model `nope` does not exist.'],
    ] as const) {
      const bad = await scripted([{ status, body: { error: { message } } }]);
      await assert.rejects(send(bad.client, body, { keyEnv: 'TEST_TEACHER_KEY', maxRetries: 5 }), (e: Error) => {
        assert.ok(e instanceof TeacherRequestError, String(e));
        assert.ok(e.message.includes(`${bad.client.baseURL} refused the request (${status})`), e.message);
        assert.ok(e.message.includes(message), e.message);
        return true;
      });
      assert.equal(bad.arrivals.length, 1, 'not retried');
      await bad.close();
    }
  });

  it('every attempt, retries included, waits for the shared budget; a 429 holds the bucket for everyone', async () => {
    const end = await scripted([
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '400' } },
    ]);
    const limiter = await openLimiter('teacher:test', {
      requestsPerSecond: 20,
      store: join(tempDir(), 'limits.sqlite'),
    });
    const t0 = Date.now();
    await Promise.all(
      [0, 1, 2, 3].map(() => send(end.client, body, { keyEnv: 'TEST_TEACHER_KEY', maxRetries: 0, limiter })),
    );
    // Four answers and one 429 retry: at 20/s they leave 50 ms apart, and the retry came after the 400 ms the 429
    // held the bucket for. Arrivals are read at the server, where one late delivery on a busy machine shortens the
    // gap after it, so the check is on the span: three gaps of 50 ms, less 30 ms of slack (unlimited, it is ~5 ms).
    assert.equal(end.arrivals.length, 5);
    const gaps = end.arrivals.slice(1).map((t, i) => t - end.arrivals[i]!);
    assert.ok(end.arrivals[3]! - end.arrivals[0]! >= 120, `gaps ${gaps.join(',')}`);
    assert.ok(
      end.arrivals[4]! - end.arrivals[0]! >= 395,
      `the retry came ${end.arrivals[4]! - end.arrivals[0]!} ms after the 429`,
    );
    assert.ok(Date.now() - t0 >= 395);
    await limiter.close();
    await end.close();
  });

  it('tokens: an estimate is charged before a request goes, and settling with the real usage gives the rest back', async () => {
    const limiter = await openLimiter('teacher:tokens', {
      tokensPerSecond: 10_000,
      store: join(tempDir(), 'limits.sqlite'),
    });
    const t0 = Date.now();
    const settleFirst = await limiter.acquire(8000); // within the one-second burst: goes at once
    assert.ok(Date.now() - t0 < 100);
    await limiter.acquire(8000); // 16,000 tokens in flight against 10,000 a second: waits ~0.6 s
    const second = Date.now() - t0;
    assert.ok(second >= 550 && second < 900, `second request went after ${second} ms`);
    await settleFirst(2000); // the first used 2,000, not 8,000: 0.6 s of the bucket comes back
    const t1 = Date.now();
    await limiter.acquire(8000); // without the give-back it would wait ~0.8 s
    assert.ok(Date.now() - t1 < 450, `third request waited ${Date.now() - t1} ms`);
    await limiter.close();
  });

  it('reads Retry-After in all three spellings and estimates a request before its usage is known', () => {
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '250' })), 250);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    const at = retryAfterMs(new Headers({ 'retry-after': new Date(Date.now() + 5000).toUTCString() }))!;
    assert.ok(at > 3000 && at <= 5000, String(at));
    assert.equal(retryAfterMs(new Headers({})), undefined);
    assert.equal(
      estimateTokens({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 10 }),
      Math.ceil(JSON.stringify([{ role: 'user', content: 'x'.repeat(400) }]).length / 4) + 10,
    );
  });
});
