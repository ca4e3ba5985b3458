/** The worker's MCP connection pool against a real MCP server (the fixture server over stdio). */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closeAllConnections, withConnections } from '../../activities/connections.js';
import { fixtureStdio } from '../helpers/fixtures.js';

const server = fixtureStdio('pooled', ['--tools', '1']);

describe('MCP connection pool', () => {
  after(() => closeAllConnections());

  it('reuses one connection across uses, replaces a dead one, and closes all on demand', async () => {
    const first = await withConnections([server], async (c) => c.get('pooled')!);
    const second = await withConnections([server], async (c) => c.get('pooled')!);
    assert.equal(second, first, 'the second use gets the pooled connection');
    // Concurrent users share it too.
    const [a, b] = await Promise.all([
      withConnections([server], async (c) => c.get('pooled')!),
      withConnections([server], async (c) => c.get('pooled')!),
    ]);
    assert.equal(a, first);
    assert.equal(b, first);
    await first.close(); // the server goes away (as if it crashed)
    const third = await withConnections([server], async (c) => {
      const conn = c.get('pooled')!;
      assert.equal((await conn.client.listTools()).tools.length, 1, 'the replacement works');
      return conn;
    });
    assert.notEqual(third, first);
    await closeAllConnections();
    const fourth = await withConnections([server], async (c) => c.get('pooled')!);
    assert.notEqual(fourth, third);
  });

  it('a server that fails to start fails the use, and the next use tries again', async () => {
    const ghost = { name: 'ghost', stdio: { command: '/nonexistent/server', args: [], env: {} }, timeoutMs: 2000 };
    await assert.rejects(
      withConnections([ghost, server], async () => 1),
      /MCP server "ghost": failed to start/,
    );
    await assert.rejects(
      withConnections([ghost], async () => 1),
      /failed to start/,
    );
  });
});
