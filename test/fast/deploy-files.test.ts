/**
 * The container images and Kubernetes manifests under deploy/ and trainer/, checked statically (nothing here
 * builds images or reaches a cluster): every manifest parses and names its kind, what a Deployment reads from
 * its ConfigMap exists there, the autoscaler targets the worker Deployment and its queue, each image runs the
 * worker for its queue, and every path a Dockerfile copies exists.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CPU_TASK_QUEUE, GPU_TASK_QUEUE } from '../../workflows/contract/queues.js';
import { REPO } from '../helpers/fixtures.js';

type Doc = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
};
const K8S = join(REPO, 'deploy', 'k8s');
const docs = (file: string): Doc[] =>
  parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((d) => {
    assert.deepEqual(d.errors, [], file);
    return d.toJS() as Doc;
  });
const all = readdirSync(K8S)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => docs(f).map((d) => ({ file: f, ...d })));
const byKind = (kind: string) => all.filter((d) => d.kind === kind);

describe('deploy files', () => {
  it('every manifest has an apiVersion, a kind and a name', () => {
    assert.ok(all.length >= 5, `${all.length} documents`);
    for (const d of all)
      assert.ok(d.apiVersion && d.kind && d.metadata?.name, `${d.file}: ${JSON.stringify(d).slice(0, 80)}`);
  });

  it('each worker Deployment reads its settings from a ConfigMap that has them, and polls a queue that exists', () => {
    const deployments = byKind('Deployment');
    assert.deepEqual(deployments.map((d) => d.metadata!.name).sort(), ['flywheel-gpu-worker', 'flywheel-worker']);
    for (const d of deployments) {
      const container = (
        d.spec as {
          template: {
            spec: { containers: Array<{ args?: string[]; envFrom: Array<{ configMapRef?: { name: string } }> }> };
          };
        }
      ).template.spec.containers[0]!;
      const configMap = byKind('ConfigMap').find(
        (c) => c.metadata!.name === container.envFrom.find((e) => e.configMapRef)?.configMapRef?.name,
      );
      assert.ok(configMap, `${d.metadata!.name}: its ConfigMap`);
      for (const ref of (container.args ?? []).join(' ').matchAll(/\$\(([A-Z_]+)\)/g))
        assert.ok(ref[1]! in configMap.data!, `${d.metadata!.name} reads ${ref[1]}, which its ConfigMap lacks`);
      if (configMap.data!.FLYWHEEL_QUEUE)
        assert.ok(
          [CPU_TASK_QUEUE, GPU_TASK_QUEUE].includes(configMap.data!.FLYWHEEL_QUEUE),
          configMap.data!.FLYWHEEL_QUEUE,
        );
      assert.ok(configMap.data!.TEMPORAL_ADDRESS, `${d.metadata!.name}: TEMPORAL_ADDRESS`);
    }
  });

  it('a GPU pod says it has the GPUs it is given', () => {
    const gpu = byKind('Deployment').find((d) => d.metadata!.name === 'flywheel-gpu-worker')!;
    const container = (
      gpu.spec as { template: { spec: { containers: Array<{ resources: { limits: Record<string, unknown> } }> } } }
    ).template.spec.containers[0]!;
    const configMap = byKind('ConfigMap').find((c) => c.metadata!.name === 'flywheel-gpu-worker')!;
    assert.equal(Number(configMap.data!.FLYWHEEL_GPUS), Number(container.resources.limits['nvidia.com/gpu']));
    assert.equal(configMap.data!.FLYWHEEL_QUEUE, GPU_TASK_QUEUE);
  });

  it('the autoscaler scales the CPU workers on their queue', () => {
    const [scaled] = byKind('ScaledObject');
    const spec = scaled!.spec as {
      scaleTargetRef: { name: string };
      triggers: Array<{ type: string; metadata: Record<string, string>; authenticationRef?: { name: string } }>;
    };
    assert.equal(spec.scaleTargetRef.name, 'flywheel-worker');
    assert.equal(spec.triggers[0]!.type, 'temporal');
    assert.equal(spec.triggers[0]!.metadata.taskQueue, CPU_TASK_QUEUE);
    assert.ok(
      byKind('TriggerAuthentication').some((t) => t.metadata!.name === spec.triggers[0]!.authenticationRef?.name),
    );
  });

  for (const [file, queue] of [
    ['deploy/Dockerfile.worker', CPU_TASK_QUEUE],
    ['trainer/Dockerfile', GPU_TASK_QUEUE],
  ] as const) {
    it(`${file} runs the worker for ${queue} and copies only what exists`, () => {
      const text = readFileSync(join(REPO, file), 'utf8');
      const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
      assert.match(lines[0]!, /^FROM \S+:\S+/, 'a tagged base image first');
      const entry = [...text.matchAll(/^(ENTRYPOINT|CMD) (\[.*\])$/gm)].flatMap((m) => JSON.parse(m[2]!) as string[]);
      assert.deepEqual(entry.slice(0, 3), ['node', 'bin/flywheel.js', 'worker']);
      assert.ok(
        entry.includes(queue) || (queue === CPU_TASK_QUEUE && !entry.includes('--queue')),
        `${file} runs ${entry.join(' ')}`,
      );
      for (const m of text.matchAll(/^COPY (?!--)(.+) \S+$/gm))
        for (const src of m[1]!.split(/\s+/))
          assert.ok(src === '.' || existsSync(join(REPO, src)), `${file} copies ${src}, which does not exist`);
      assert.match(text, /^USER \S+$/m, 'runs as a non-root user');
    });
  }
});
