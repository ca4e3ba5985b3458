"""Progress as JSON lines on stdout (what the GPU worker turns into heartbeats) and in metrics.jsonl.

Events: start, step, eval, checkpoint, done, error. Fields: {event, step, total, epoch, loss, eval_loss, lr,
tokens_per_s, checkpoint}; absent fields are left out."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from transformers import TrainerCallback


class Progress:
    def __init__(self, metrics_path: Path | None, out: TextIO = sys.stdout):
        self.out = out
        self.metrics = metrics_path.open("a", encoding="utf-8") if metrics_path else None

    def emit(self, event: str, **fields: Any) -> None:
        record = {"event": event, **{k: v for k, v in fields.items() if v is not None}}
        line = json.dumps(record, separators=(",", ":"))
        print(line, file=self.out, flush=True)
        if self.metrics:
            self.metrics.write(line + "\n")
            self.metrics.flush()

    def close(self) -> None:
        if self.metrics:
            self.metrics.close()


def _round(x: Any, digits: int = 6) -> Any:
    return round(float(x), digits) if isinstance(x, (int, float)) else None


class ProgressCallback(TrainerCallback):
    """Turns Trainer events into progress lines. tokens_per_s counts non-padding input tokens."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self._last_time = 0.0
        self._last_tokens = 0

    def on_train_begin(self, args, state, control, **kwargs):
        self._last_time = time.perf_counter()
        self._last_tokens = state.num_input_tokens_seen
        self.progress.emit("start", step=state.global_step, total=state.max_steps, epoch=_round(state.epoch, 4))

    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = logs or {}
        common = {"step": state.global_step, "total": state.max_steps, "epoch": _round(state.epoch, 4)}
        if "loss" in logs:
            now = time.perf_counter()
            tokens = state.num_input_tokens_seen - self._last_tokens
            rate = tokens / (now - self._last_time) if now > self._last_time else None
            self._last_time, self._last_tokens = now, state.num_input_tokens_seen
            self.progress.emit(
                "step",
                **common,
                loss=_round(logs["loss"]),
                lr=_round(logs.get("learning_rate"), 10),
                tokens_per_s=_round(rate, 1),
            )
        if "eval_loss" in logs:
            self.progress.emit("eval", **common, eval_loss=_round(logs["eval_loss"]))

    def on_save(self, args, state, control, **kwargs):
        path = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        self.progress.emit("checkpoint", step=state.global_step, total=state.max_steps, checkpoint=str(path))
