/**
 * A local stand-in for huggingface.co, which cannot be reached from here: it serves only the endpoints the real
 * @huggingface/hub client calls for a repo check, repo creation, the repo's file listing and one commit
 * (preupload, the LFS batch API, the LFS PUT, the NDJSON commit with deletes), keeps each repo's files, records
 * every request, and answers the way the Hub documents. Everything past the HTTP boundary (the Hub's storage,
 * its YAML validation, xet) is not exercised.
 */
import { createHash } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { sha256Hex } from '../../core/hash.js';

/** What the stand-in recorded of one request. */
export interface Recorded {
  method: string;
  path: string;
  query: string;
  auth: string | undefined;
  body: Buffer;
}

/** Tree entries as GET /api/{type}s/{id}/tree/{rev}[/path] lists them: folders too, sorted by path. */
function treeEntries(files: Map<string, Buffer>, dir: string, recursive: boolean) {
  const prefix = dir ? `${dir}/` : '';
  const out = new Map<string, { type: 'file' | 'directory'; oid: string; size: number; path: string }>();
  for (const [path, bytes] of files) {
    if (!path.startsWith(prefix)) continue;
    const parts = path.slice(prefix.length).split('/');
    for (let i = 1; i < parts.length && (recursive || i === 1); i++) {
      const d = prefix + parts.slice(0, i).join('/');
      out.set(d, { type: 'directory', oid: createHash('sha1').update(d).digest('hex'), size: 0, path: d });
    }
    if (recursive || parts.length === 1)
      out.set(path, { type: 'file', oid: createHash('sha1').update(bytes).digest('hex'), size: bytes.length, path });
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Entries per tree page: small, so a listing of one publication spans pages (Link: <…>; rel="next"). */
const TREE_PAGE = 5;

/**
 * A stand-in for huggingface.co: repo existence (GET /api/{type}s/{id}), POST /api/repos/create (the repo
 * starts with the Hub's .gitattributes), GET /api/{type}s/{id}/tree/main (recursive or not, paged by cursor
 * with a Link header), POST /api/{type}s/{id}/preupload/{rev} (safetensors and files over 10 MB are "lfs", as
 * the Hub's default .gitattributes and size rule say), the LFS batch API (basic transfer: an upload href back
 * to this server), the LFS PUT, and the NDJSON commit (header, base64 `file` lines, `lfsFile` lines by oid,
 * `deletedFile` lines), applied to the repo's files.
 */
export async function startHubStandIn(token: string) {
  const requests: Recorded[] = [];
  const repos = new Map<string, { type: string; visibility: string }>();
  const trees = new Map<string, Map<string, Buffer>>();
  const lfs = new Map<string, Buffer>();
  const commits: Array<{
    repo: string;
    header: Record<string, unknown>;
    files: Map<string, Buffer>;
    deleted: string[];
  }> = [];
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
    });
  let base = '';
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node ignores the promise; a throw here fails the test that caused it
  const server: Server = createHttpServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url!, base);
    const path = decodeURIComponent(url.pathname);
    requests.push({ method: req.method!, path, query: url.search, auth: req.headers.authorization, body });
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'PUT' && path.startsWith('/lfs-upload/')) {
      const oid = path.slice('/lfs-upload/'.length);
      if (sha256Hex(body) !== oid) return send(400, { error: 'content does not match oid' });
      lfs.set(oid, body);
      return send(200, {});
    }
    // The Hub does not echo a refused token; this stand-in does, so the tests see that it is never repeated.
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, { error: `Invalid credentials in Authorization header (${req.headers.authorization})` });
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/api\/(models|datasets)\/([^/]+\/[^/]+)$/.exec(path))) {
      return repos.has(`${m[1]}/${m[2]}`) ? send(200, { id: m[2] }) : send(404, { error: 'Repository not found' });
    }
    if (req.method === 'POST' && path === '/api/repos/create') {
      const b = JSON.parse(body.toString()) as { name: string; organization: string; type: string; visibility: string };
      const key = `${b.type}s/${b.organization}/${b.name}`;
      if (repos.has(key)) return send(409, { error: 'You already created this repo' });
      repos.set(key, { type: b.type, visibility: b.visibility });
      trees.set(key, new Map([['.gitattributes', Buffer.from('*.safetensors filter=lfs diff=lfs merge=lfs -text\n')]]));
      return send(200, { url: `${base}/${b.organization}/${b.name}`, id: `${b.organization}/${b.name}` });
    }
    if (req.method === 'GET' && (m = /^\/api\/(models|datasets)\/([^/]+\/[^/]+)\/tree\/main(?:\/(.+))?$/.exec(path))) {
      const files = trees.get(`${m[1]}/${m[2]}`);
      if (!files) return send(404, { error: 'Repository not found' });
      const entries = treeEntries(files, m[3] ?? '', url.searchParams.get('recursive') === 'true');
      const from = Number(url.searchParams.get('cursor') ?? 0);
      if (from + TREE_PAGE < entries.length) {
        const next = new URL(url);
        next.searchParams.set('cursor', String(from + TREE_PAGE));
        res.setHeader('Link', `<${next.href}>; rel="next"`);
      }
      return send(200, entries.slice(from, from + TREE_PAGE));
    }
    if (req.method === 'POST' && (m = /^\/api\/(models|datasets)\/([^/]+\/[^/]+)\/preupload\/main$/.exec(path))) {
      if (!repos.has(`${m[1]}/${m[2]}`)) return send(404, { error: 'Repository not found' });
      const b = JSON.parse(body.toString()) as { files: Array<{ path: string; size: number }> };
      return send(200, {
        files: b.files.map((f) => ({
          path: f.path,
          uploadMode: f.path.endsWith('.safetensors') || f.size > 10 * 1024 * 1024 ? 'lfs' : 'regular',
          shouldIgnore: false,
        })),
      });
    }
    if (req.method === 'POST' && /^\/(?:datasets\/)?([^/]+\/[^/]+)\.git\/info\/lfs\/objects\/batch$/.test(path)) {
      const b = JSON.parse(body.toString()) as { transfers: string[]; objects: Array<{ oid: string; size: number }> };
      if (b.transfers.includes('xet')) return send(400, { error: 'this stand-in serves basic transfers only' });
      return send(200, {
        transfer: 'basic',
        objects: b.objects.map((o) => ({
          ...o,
          actions: lfs.has(o.oid) ? undefined : { upload: { href: `${base}/lfs-upload/${o.oid}` } },
        })),
      });
    }
    if (req.method === 'POST' && (m = /^\/api\/(models|datasets)\/([^/]+\/[^/]+)\/commit\/main$/.exec(path))) {
      const lines = body
        .toString()
        .split('\n')
        .map((l) => JSON.parse(l) as { key: string; value: Record<string, string> });
      const files = new Map<string, Buffer>();
      const deleted: string[] = [];
      const tree = trees.get(`${m[1]}/${m[2]}`);
      if (!tree) return send(404, { error: 'Repository not found' });
      for (const { key, value } of lines.slice(1)) {
        if (key === 'file') files.set(value.path!, Buffer.from(value.content!, 'base64'));
        else if (key === 'deletedFile') {
          if (!tree.has(value.path!))
            return send(404, { error: `deletedFile ${value.path}: no such file in the repo` });
          deleted.push(value.path!);
        } else if (key === 'lfsFile') {
          const blob = lfs.get(value.oid!);
          if (!blob) return send(400, { error: `lfs object ${value.oid} was never uploaded` });
          files.set(value.path!, blob);
        } else return send(400, { error: `unexpected commit line ${key}` });
      }
      if (deleted.some((p) => files.has(p)))
        return send(400, { error: 'a commit may not add and delete the same path' });
      // All or nothing, as the Hub's commit is.
      for (const p of deleted) tree.delete(p);
      for (const [p, b] of files) tree.set(p, b);
      commits.push({ repo: `${m[1]}/${m[2]}`, header: lines[0]!.value, files, deleted });
      return send(200, {
        commitOid: `c${commits.length}`.padEnd(40, '0'),
        commitUrl: `${base}/${m[2]}/commit/c${commits.length}`,
        hookOutput: '',
      });
    }
    return send(404, { error: `stand-in does not serve ${req.method} ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: base,
    requests,
    repos,
    trees,
    commits,
    lfs,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type HubStandIn = Awaited<ReturnType<typeof startHubStandIn>>;
