#!/usr/bin/env bash
# The checks only a CUDA GPU can run, by hand, on a machine where `nvidia-smi` works (nothing depends on them;
# without a GPU the script says so and exits 0):
#   1. the trainer's CUDA path: a router adapter trained in bf16 on the packaged smollm2-135m-instruct base from
#      trainer/tests/synthetic.py's rows (real trainer, real job file);
#   2. the trainer's throughput benchmark (trainer/bench/lora_throughput.py: Llama-3-8B's shape, bf16, ours vs TRL's
#      defaults, tokens/s and MFU);
#   3. the official `vllm` wheel (CUDA) in a venv of its own, serving that base with the adapter through its runtime
#      LoRA API, one router decision decoded inside the answer's JSON Schema (flywheel's vllm target, as deployed).
#
#   make install && bash scripts/bench/gpu-check.sh [OUT_DIR]
#
# Needs `make install` (.venv with the trainer's requirements and a CUDA torch) and a package registry for the
# vllm wheel (VLLM_GPU_VERSION, default 0.32.0: the version the CPU tier tests). Prints one `gpu-check:` line per
# check; the docs quote them only from a run that printed them.
set -euo pipefail
cd "$(dirname "$0")/../.."

NVIDIA_SMI=${NVIDIA_SMI:-nvidia-smi}
if ! "$NVIDIA_SMI" >/dev/null 2>&1; then
  echo "gpu-check: skipped, no CUDA GPU here ($NVIDIA_SMI does not run)"
  exit 0
fi
OUT=${1:-$(mktemp -d /tmp/flywheel-gpu-check-XXXXXX)}
mkdir -p "$OUT"
PY=.venv/bin/python
VLLM_VERSION=${VLLM_GPU_VERSION:-0.32.0}
"$NVIDIA_SMI" --query-gpu=name,memory.total,driver_version --format=csv,noheader | sed 's/^/gpu-check: gpu /'

# 1. The trainer on CUDA, bf16, on the packaged base.
BASE=$(node --import tsx -e "
  Promise.all([import('./core/train/base-model.js'), import('./core/train/trainer-process.js')]).then(async ([b, t]) =>
    console.log((await b.convertedBase('smollm2-135m-instruct', t.baseCacheRoot(), t.convertBase)).dir));")
"$PY" trainer/tests/synthetic.py "$OUT/rows" 0
cat >"$OUT/job.json" <<EOF
{"version": 1, "baseModel": "$BASE", "data": {"train": "$OUT/rows/train.jsonl", "val": "$OUT/rows/val.jsonl"},
 "outputDir": "$OUT/train", "precision": "bf16",
 "optim": {"epochs": 3, "maxSteps": 60, "effectiveBatchSize": 8, "microBatchSize": 8, "learningRate": 0.002},
 "checkpointEvery": 60}
EOF
started=$(date +%s)
PYTHONPATH=trainer "$PY" -m flywheel_trainer train --job "$OUT/job.json" >"$OUT/train.out" 2>"$OUT/train.log"
echo "gpu-check: train bf16 on cuda: $(($(date +%s) - started)) s; last progress: $(grep -o '"loss":[0-9.e-]*' "$OUT/train.out" | tail -1)"
ADAPTER="$OUT/train/adapter"

# 2. The trainer's throughput benchmark (short: the figure, not a soak).
PYTHONPATH=trainer "$PY" trainer/bench/lora_throughput.py --steps 12 | tail -4 | sed 's/^/gpu-check: throughput /'

# 3. The official vLLM wheel, the adapter loaded at runtime, one decision inside the answer schema.
if ! .venv-vllm-gpu/bin/python -c 'import vllm' 2>/dev/null; then
  python3 -m venv .venv-vllm-gpu
  .venv-vllm-gpu/bin/pip install --quiet "vllm==$VLLM_VERSION"
fi
KEY=gpu-check-key
# Its own process group (setsid), so that stopping it stops the engine process it starts too.
VLLM_ALLOW_RUNTIME_LORA_UPDATING=True setsid .venv-vllm-gpu/bin/python -m vllm.entrypoints.openai.api_server \
  --model "$BASE" --served-model-name base --host 127.0.0.1 --port 8391 --api-key $KEY \
  --enable-lora --max-lora-rank 16 --max-loras 2 --dtype bfloat16 --max-model-len 4096 >"$OUT/vllm.log" 2>&1 &
VLLM_PID=$!
trap 'kill -- -$VLLM_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 180); do curl -sf http://127.0.0.1:8391/health >/dev/null && break; sleep 2; done
curl -sf http://127.0.0.1:8391/health >/dev/null || { echo "gpu-check: vllm not healthy; log $OUT/vllm.log"; exit 1; }
curl -sf -H "authorization: Bearer $KEY" -H 'content-type: application/json' http://127.0.0.1:8391/v1/load_lora_adapter \
  -d "{\"lora_name\": \"router\", \"lora_path\": \"$ADAPTER\"}" >/dev/null
node --import tsx -e "
  import('./core/eval/answer-schema.js').then(async ({ answerConstraint }) => {
    const fs = await import('node:fs');
    const row = JSON.parse(fs.readFileSync('$OUT/rows/val.jsonl', 'utf8').split('\n')[0]);
    const started = performance.now();
    const res = await fetch('http://127.0.0.1:8391/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer $KEY', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'router', messages: row.prompt, tools: row.tools, temperature: 0, max_tokens: 160,
        ...answerConstraint(row.tools) }),
    });
    const body = await res.json();
    const ms = (performance.now() - started).toFixed(0);
    console.log('gpu-check: vllm $VLLM_VERSION cuda decision in ' + ms + ' ms: ' + JSON.stringify(body.choices?.[0]?.message?.content ?? body));
    console.log('gpu-check: expected ' + row.completion[0].content);
  });"
echo "gpu-check: done; logs in $OUT"
