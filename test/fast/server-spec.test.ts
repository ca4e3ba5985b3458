import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServerSpec, splitCommandLine } from '../../core/mcp/server-spec.js';

describe('server specs', () => {
  const splits: Array<[string, string[]]> = [
    ['node server.js --port 3', ['node', 'server.js', '--port', '3']],
    ['  python  -m   srv ', ['python', '-m', 'srv']],
    [`node "my server.js" 'a b' c\\ d`, ['node', 'my server.js', 'a b', 'c d']],
    [`echo "say \\"hi\\""`, ['echo', 'say "hi"']],
    [`x ''`, ['x', '']],
  ];
  for (const [line, words] of splits) {
    it(`splits ${JSON.stringify(line)}`, () => assert.deepEqual(splitCommandLine(line), words));
  }

  it('rejects an unterminated quote', () => assert.throws(() => splitCommandLine('node "oops'), /unterminated/));

  it('parses stdio and http specs', () => {
    assert.deepEqual(parseServerSpec('stdio:node s.js', 'crm'), {
      name: 'crm',
      stdio: { command: 'node', args: ['s.js'], env: {} },
      timeoutMs: 30_000,
    });
    assert.deepEqual(parseServerSpec('https://mcp.example.com/mcp', 'x', 5000), {
      name: 'x',
      http: { url: 'https://mcp.example.com/mcp', headers: {} },
      timeoutMs: 5000,
    });
  });

  it('rejects other specs with a message naming the spec', () => {
    assert.throws(() => parseServerSpec('ws://x'), /server spec "ws:\/\/x" must be stdio:/);
    assert.throws(() => parseServerSpec('stdio:   '), /has no command/);
  });
});
