/**
 * Catalog servers from tool files (core/catalog/tools-file.ts): each format detected and reported, BFCL's types
 * converted as BFCL's OpenAI handler converts them, repeated names made unique, and every bad input refused
 * whole with the file, the entry and the field named.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bfclParametersToJsonSchema } from '../../core/catalog/bfcl-types.js';
import { buildCatalog } from '../../core/catalog/build.js';
import {
  parseToolsFile,
  SOURCE_NAME_META,
  TOOLS_FILE_FORMATS,
  ToolsFileError,
  toolsFileSnapshot,
} from '../../core/catalog/tools-file.js';
import { checkConfigFiles } from '../../core/config/files.js';
import { ConfigError, parseConfig } from '../../core/config/load.js';
import { hashOf } from '../../core/hash.js';
import { callModeFor } from '../../core/probe/call-mode.js';
import { tempDir } from '../helpers/fixtures.js';

const weather = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
  },
};
const ride = {
  name: 'uber.ride',
  description: 'Book a ride.',
  parameters: { type: 'object', properties: { loc: { type: 'string' } }, required: ['loc'] },
};

const lines = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function refused(text: string, file = 'tools.json'): string[] {
  try {
    parseToolsFile(text, file);
  } catch (err) {
    assert.ok(err instanceof ToolsFileError, String(err));
    assert.equal(err.file, file);
    assert.ok(err.message.startsWith(`${file}: `), err.message);
    return err.problems;
  }
  throw new Error('the file was accepted');
}

describe('tools files: formats', () => {
  it('reads an OpenAI tools array, keeping names MCP allows and OpenAI refuses', () => {
    const f = parseToolsFile(
      JSON.stringify([
        { type: 'function', function: weather },
        { type: 'function', function: { ...ride, strict: true } },
      ]),
      'agent.json',
    );
    assert.equal(f.format, 'openai-tools');
    assert.deepEqual(
      f.tools.map((t) => t.name),
      ['get_weather', 'uber.ride'],
    );
    assert.deepEqual(f.tools[0]!.inputSchema, weather.parameters);
    assert.equal(f.tools[0]!.description, weather.description);
  });

  it('reads OpenAI function definitions, and a function without parameters takes no arguments', () => {
    const f = parseToolsFile(JSON.stringify([weather, { name: 'ping', description: 'Is it up?' }]), 'fns.json');
    assert.equal(f.format, 'openai-functions');
    assert.deepEqual(f.tools[1]!.inputSchema, { type: 'object', properties: {} });
  });

  it('reads a tools/list result, pages of them as JSON lines, and a JSON-RPC response', () => {
    const tool = {
      name: 'read_graph',
      description: 'Read the graph.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    };
    const other = { name: 'add', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } };
    const one = parseToolsFile(JSON.stringify({ tools: [tool] }), 'list.json');
    assert.equal(one.format, 'mcp-tools-list');
    assert.deepEqual(one.tools[0]!.annotations, { readOnlyHint: true });
    const pages = parseToolsFile(lines({ tools: [tool], nextCursor: '1' }, { tools: [other] }), 'pages.jsonl');
    assert.deepEqual(
      pages.tools.map((t) => t.name),
      ['read_graph', 'add'],
    );
    const rpc = parseToolsFile(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: [other] } }), 'rpc.json');
    assert.equal(rpc.tools[0]!.name, 'add');
  });

  it('reads BFCL function docs and BFCL question files, whose repeated functions are unioned', () => {
    const doc = {
      name: 'math.hypot',
      description: 'Euclidean norm.',
      parameters: {
        type: 'dict',
        properties: { x: { type: 'float', description: 'x.' }, y: { type: 'integer', description: 'y.' } },
        required: ['x', 'y'],
      },
    };
    const docs = parseToolsFile(lines(doc), 'func_doc.json');
    assert.equal(docs.format, 'bfcl-functions');
    assert.equal(docs.tools[0]!.inputSchema.type, 'object');
    const q = (id: string, fns: unknown[]) => ({ id, question: [[{ role: 'user', content: 'hi' }]], function: fns });
    const questions = parseToolsFile(lines(q('a', [doc]), q('b', [doc, weather])), 'live_simple.json');
    assert.equal(questions.format, 'bfcl-questions');
    assert.deepEqual(
      questions.tools.map((t) => t.name),
      ['math.hypot', 'get_weather'],
    );
    assert.equal(questions.entries, 3);
    assert.equal(questions.collapsed, 1);
  });

  it('reads an Anthropic tools array, and the tools of a request body (OpenAI, Anthropic, older functions)', () => {
    const anthropic = [{ name: 'get_weather', description: weather.description, input_schema: weather.parameters }];
    const a = parseToolsFile(JSON.stringify(anthropic), 'claude.json');
    assert.equal(a.format, 'anthropic-tools');
    assert.deepEqual(a.tools[0]!.inputSchema, weather.parameters);
    const body = { model: 'gpt-x', messages: [], tools: [{ type: 'function', function: weather }] };
    assert.equal(parseToolsFile(JSON.stringify(body), 'request.json').format, 'openai-tools');
    const claude = { model: 'claude-x', max_tokens: 100, messages: [], tools: anthropic };
    assert.equal(parseToolsFile(JSON.stringify(claude), 'request.json').format, 'anthropic-tools');
    const legacy = parseToolsFile(JSON.stringify({ model: 'gpt-x', functions: [weather] }), 'old.json');
    assert.equal(legacy.format, 'openai-functions');
  });

  it('takes what SDKs write: null for unset fields, a byte order mark, parameters {}', () => {
    const dump = {
      tools: [
        {
          name: 'read_graph',
          title: null,
          description: null,
          inputSchema: { type: 'object' },
          outputSchema: null,
          annotations: null,
          _meta: null,
        },
      ],
    };
    assert.deepEqual(parseToolsFile(JSON.stringify(dump), 'py-dump.json').tools, [
      { name: 'read_graph', inputSchema: { type: 'object' } },
    ]);
    const bom = parseToolsFile(`\uFEFF${JSON.stringify([weather])}`, 'bom.json');
    assert.equal(bom.tools[0]!.name, 'get_weather');
    assert.notEqual(
      bom.sha256,
      parseToolsFile(JSON.stringify([weather]), 'bom.json').sha256,
      'the hash is of the bytes',
    );
    assert.deepEqual(parseToolsFile(JSON.stringify([{ ...weather, parameters: {} }]), 'f.json').tools[0]!.inputSchema, {
      type: 'object',
      properties: {},
    });
  });

  it("converts BFCL types as BFCL's OpenAI handler does", () => {
    const converted = bfclParametersToJsonSchema({
      type: 'dict',
      required: ['a'],
      properties: {
        a: { type: 'float', description: 'A rate.' },
        b: { type: 'tuple', items: { type: 'float' } },
        c: { type: 'any', description: 'Anything.' },
        d: { type: 'dict', properties: { e: { type: 'bool', description: '' }, f: { description: 'no type' } } },
        g: { type: 'list', items: { type: 'list', items: { type: 'dict' } } },
        h: { type: 'HashMap', description: 'A Java map.' },
        i: { type: 'weird', description: 'Unknown.' },
        j: { type: 'constructor', description: 'Not a type.' },
      },
    });
    assert.deepEqual(converted, {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'number', format: 'float', description: 'A rate. This is a float type value.' },
        b: { type: 'array', items: { type: 'number' } },
        c: { type: 'string', description: 'Anything.' },
        d: {
          type: 'object',
          properties: { e: { type: 'boolean', description: '' }, f: { type: 'string', description: 'no type' } },
        },
        g: { type: 'array', items: { type: 'array', items: { type: 'object' } } },
        h: { type: 'object', description: 'A Java map.' },
        i: { type: 'string', description: 'Unknown.' },
        j: { type: 'string', description: 'Not a type.' },
      },
    });
  });
});

describe('tools files: names', () => {
  it('keeps a repeated tool once, and renames a different tool of the same name, recording its own', () => {
    const other = { ...weather, parameters: { type: 'object', properties: { zip: { type: 'string' } } } };
    const third = { ...weather, description: 'Weather, another way.' };
    const f = parseToolsFile(
      JSON.stringify([weather, weather, other, { ...weather, name: 'get_weather__2' }, third]),
      'fns.json',
    );
    assert.deepEqual(
      f.tools.map((t) => t.name),
      ['get_weather', 'get_weather__3', 'get_weather__2', 'get_weather__4'],
    );
    assert.equal(f.collapsed, 1);
    assert.deepEqual(
      f.renamed.map((r) => [r.from, r.to, r.where]),
      [
        ['get_weather', 'get_weather__3', 'entry [2]'],
        ['get_weather', 'get_weather__4', 'entry [4]'],
      ],
    );
    assert.equal(f.tools[1]!._meta?.[SOURCE_NAME_META], 'get_weather');
    assert.equal(f.tools[2]!._meta, undefined);
  });
});

describe('tools files: bad input is refused whole, naming file, entry and field', () => {
  it('a file that does not parse', () => {
    assert.match(refused('[{"name": "a",')[0]!, /^not JSON: /);
    assert.match(refused(lines(weather) + '{"name": \n')[0]!, /^line 2: not JSON: /);
    assert.deepEqual(refused('   \n'), ['the file holds no tools']);
  });

  it('an entry without a name', () => {
    const { name: _n, ...nameless } = ride;
    assert.deepEqual(
      refused(
        JSON.stringify([
          { type: 'function', function: weather },
          { type: 'function', function: nameless },
        ]),
      ),
      ['entry [1]: function.name: missing or not a string'],
    );
    assert.deepEqual(refused(lines(weather, { ...weather, name: 7 })), ['line 2: name: missing or not a string']);
    assert.match(
      refused(JSON.stringify([{ ...weather, name: 'has space' }]))[0]!,
      /entry \[0\] .*name: .* is not 1-128/,
    );
  });

  it('a parameters object that is not a schema', () => {
    assert.deepEqual(refused(JSON.stringify([{ ...weather, parameters: 'city' }])), [
      'entry [0] (get_weather): parameters: not a JSON object',
    ]);
    assert.deepEqual(refused(JSON.stringify([{ ...weather, parameters: { type: 'array' } }])), [
      'entry [0] (get_weather): parameters.type: must be "object", got "array"',
    ]);
    const [p] = refused(JSON.stringify([{ ...weather, parameters: { type: 'object', properties: 5 } }]));
    assert.match(p!, /^entry \[0\] \(get_weather\): parameters: not a usable JSON Schema: .*properties/);
    const [mcp] = refused(JSON.stringify({ tools: [{ name: 'x' }] }));
    assert.equal(mcp, 'the top-level object, tools[0] (x): inputSchema: missing');
  });

  it('a $ref that does not resolve', () => {
    const [p] = refused(
      JSON.stringify([
        {
          type: 'function',
          function: { ...weather, parameters: { type: 'object', properties: { c: { $ref: '#/$defs/City' } } } },
        },
      ]),
    );
    assert.match(p!, /^entry \[0\] \(get_weather\): function\.parameters: not a usable JSON Schema: .*\$defs\/City/);
  });

  it('mixed formats, and a value that is no tool at all', () => {
    assert.match(
      refused(JSON.stringify([weather, { type: 'function', function: ride }]))[0]!,
      /^mixes formats: openai-functions \(first at entry \[0\]\), openai-tools \(first at entry \[1\]\)/,
    );
    assert.match(refused(JSON.stringify([weather, 42]))[0]!, /^entry \[1\]: not a tool: expected .*\(it is a number\)/);
  });

  it('reports every bad entry, not only the first', () => {
    const problems = refused(
      JSON.stringify([{ description: 'x' }, weather, { ...weather, name: '' }, { ...ride, parameters: 1 }]),
    );
    assert.deepEqual(problems, [
      'entry [0]: not a tool: expected ' + Object.values(TOOLS_FILE_FORMATS).join('; or ') + ' (it has description)',
      'entry [2]: name: missing or not a string',
      'entry [3] (uber.ride): parameters: not a JSON object',
    ]);
  });
});

describe('tools files: the catalog and the config', () => {
  it("the catalog's version changes when the file's bytes do, and says where its tools came from", () => {
    const text = JSON.stringify([weather]);
    const a = buildCatalog('p', [toolsFileSnapshot('agent', parseToolsFile(text, 'a.json'))]);
    const same = buildCatalog('p', [toolsFileSnapshot('agent', parseToolsFile(text, 'a.json'))]);
    const spaced = buildCatalog('p', [toolsFileSnapshot('agent', parseToolsFile(`${text}\n`, 'a.json'))]);
    assert.equal(hashOf(a), hashOf(same));
    assert.notEqual(hashOf(a), hashOf(spaced));
    assert.deepEqual(
      a.tools.map((t) => t.id),
      ['agent/get_weather'],
    );
    assert.equal(a.servers[0]!.toolsFile?.format, 'openai-functions');
  });

  it('a server sets exactly one of stdio, http and tools, and a tools file takes no probe', () => {
    const base = { version: 1, name: 'p' };
    const problems = (servers: unknown[]) => {
      try {
        parseConfig({ ...base, servers }, 'p.yaml');
      } catch (err) {
        return (err as ConfigError).problems;
      }
      return [];
    };
    assert.deepEqual(problems([{ name: 'a', tools: 'a.json' }]), []);
    assert.deepEqual(problems([{ name: 'a', tools: 'a.json', http: { url: 'http://x/mcp' } }]), [
      'servers[0]: set exactly one of "stdio", "http" or "tools"',
    ]);
    assert.deepEqual(problems([{ name: 'a', tools: 'a.json', probe: false }]), [
      'servers[0].probe: a "tools" file has no server to probe: remove "probe"',
    ]);
  });

  it('config check reads each tools file and names key, file, entry and field', async () => {
    const dir = tempDir();
    const good = join(dir, 'good.json');
    const bad = join(dir, 'bad.json');
    writeFileSync(good, JSON.stringify([weather]));
    writeFileSync(bad, JSON.stringify([weather, { ...ride, parameters: [] }]));
    const config = parseConfig({
      version: 1,
      name: 'p',
      servers: [
        { name: 'good', tools: good },
        { name: 'bad', tools: bad },
      ],
    });
    await assert.rejects(checkConfigFiles(config, 'p.yaml'), (err: ConfigError) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems, [
        `servers[1].tools: ${bad}: entry [1] (uber.ride): parameters: not a JSON object`,
      ]);
      return true;
    });
    await checkConfigFiles({ ...config, servers: [config.servers[0]!] }, 'p.yaml');
    // A file missing here: config check names it; `flywheel run` leaves it to the worker that reads it.
    const elsewhere = { ...config, servers: [{ ...config.servers[0]!, tools: join(dir, 'on-the-worker.json') }] };
    await assert.rejects(
      checkConfigFiles(elsewhere, 'p.yaml'),
      /servers\[0\]\.tools: .*on-the-worker\.json: cannot read the file/,
    );
    await checkConfigFiles(elsewhere, 'p.yaml', { missingOk: true });
  });

  it('a tools file is never called: every tool is checked by schema only', () => {
    const config = parseConfig({ version: 1, name: 'p', servers: [{ name: 'agent', tools: 'a.json' }] });
    const catalog = buildCatalog('p', [
      toolsFileSnapshot(
        'agent',
        parseToolsFile(
          JSON.stringify({
            tools: [
              {
                name: 'get_weather',
                inputSchema: weather.parameters,
                annotations: { readOnlyHint: true, openWorldHint: false },
              },
            ],
          }),
          'a.json',
        ),
      ),
    ]);
    assert.deepEqual(callModeFor(config.servers)(catalog.tools[0]!), {
      mode: 'schema',
      why: 'listed in a tools file: there is no server to call',
    });
  });
});
