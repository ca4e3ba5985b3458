"""optim.sharedPrefixRows: rows whose prompts begin alike are trained as one sequence under a tree mask, and each
answer scores what it would on its own row."""

from __future__ import annotations

import dataclasses

import pytest

from flywheel_trainer.data import encode_rows, load_rows, share_prefixes, tree_attention_mask
from flywheel_trainer.errors import BadJob
from flywheel_trainer.train import build_trainer, run_training

from conftest import make_job


def _row(prompt: list[int], answer: list[int]) -> dict:
    return {"input_ids": prompt + answer, "completion_mask": [0] * len(prompt) + [1] * len(answer)}


def test_rows_that_begin_alike_share_one_prefix_and_the_rest_follow_it():
    a = _row([1, 2, 3, 4, 5, 6, 7, 8], [50, 51])
    b = _row([1, 2, 3, 4, 5, 6, 9], [52])
    c = _row([1, 2, 3, 4, 5, 6, 7, 8], [53, 54])  # the same prompt as a: the prefix stops one token short of it
    other = _row([7, 7, 7, 7], [60])  # nothing in common: a group of its own
    packed = share_prefixes([a, b, c, other], max_rows=8, max_length=100)
    assert len(packed) == 2
    group = next(p for p in packed if len(p["segments"]) == 4)
    assert group["segments"] == [6, 4, 4, 2]  # prefix [1..6], then a's [7, 8, 50, 51], c's [7, 8, 53, 54], b's [9, 52]
    assert group["input_ids"] == [1, 2, 3, 4, 5, 6, 7, 8, 50, 51, 7, 8, 53, 54, 9, 52]
    assert group["completion_mask"] == [0] * 8 + [1, 1, 0, 0, 1, 1, 0, 1]
    assert group["position_ids"] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 6, 7, 8, 9, 6, 7]
    alone = next(p for p in packed if len(p["segments"]) == 2)
    assert alone["input_ids"] == other["input_ids"] and alone["segments"] == [3, 2]
    assert sum(sum(p["completion_mask"]) for p in packed) == 6, "every answer token is still trained"


def test_groups_keep_to_the_row_and_token_caps_and_share_at_least_half_of_each_prompt():
    rows = [_row([1, 2, 3, 4, 5, 6, 7, 8, 9, i], [40 + i]) for i in range(10, 15)]
    assert [len(p["segments"]) - 1 for p in share_prefixes(rows, max_rows=2, max_length=100)] == [2, 2, 1]
    # A group of all five would be 9 + 5 x 2 = 19 tokens; at 15 the fourth row starts a new group.
    assert [len(p["segments"]) - 1 for p in share_prefixes(rows, max_rows=8, max_length=15)] == [3, 2]
    short = _row([1, 2, 3, 9, 9, 9, 9, 9], [70])  # shares 3 of its 8 prompt tokens with the others: less than half
    assert [len(p["segments"]) - 1 for p in share_prefixes([rows[0], short], max_rows=8, max_length=100)] == [1, 1]


def test_the_tree_mask_lets_each_rest_see_the_prefix_and_itself_only():
    mask = tree_attention_mask([2, 2, 1], 6).int().tolist()
    assert mask == [
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0],
        [1, 1, 1, 1, 0, 0],
        [1, 1, 0, 0, 1, 0],
        [0, 0, 0, 0, 0, 1],  # padding sees itself only, so no row is empty
    ]


def test_each_answer_scores_in_a_shared_sequence_what_it_scores_on_its_own_row(tmp_path, dataset):
    """The trainer's collator and loss on a packed batch against the tiny model on each row alone (float32)."""
    import torch

    job = make_job(tmp_path, dataset, precision="fp32", optim={"sharedPrefixRows": 4})
    trainer, tokenizer = build_trainer(job)
    rows = load_rows(dataset["train"])
    assert len(trainer.train_dataset) < len(rows), "rows with one system prompt and tool list share prefixes"
    encoded = encode_rows(tokenizer, rows[:12], 4096, "train")
    model = trainer.model
    model.eval()
    with torch.no_grad():
        expected_nll, tokens = 0.0, 0
        for e in encoded:
            ids = torch.tensor([e["input_ids"]])
            logits = model(input_ids=ids).logits[0, :-1]
            answer = torch.tensor(e["completion_mask"][1:], dtype=torch.bool)
            nll = torch.nn.functional.cross_entropy(logits, ids[0, 1:], reduction="none")
            expected_nll += nll[answer].sum().item()
            tokens += int(answer.sum())

        packed = share_prefixes(encoded, max_rows=4, max_length=4096)
        assert len(packed) == 3 and all(len(p["segments"]) == 5 for p in packed)
        examples = [
            dict(p, labels=[t if m else -100 for t, m in zip(p["input_ids"], p["completion_mask"])]) for p in packed
        ]
        loader = trainer.get_train_dataloader()
        collator = loader.collate_fn
        batch = collator(examples)
        assert batch["attention_mask"].shape == (3, 1, batch["input_ids"].shape[1], batch["input_ids"].shape[1])
        model.training = True  # compute_loss's training path, with dropout still off in every submodule
        loss = trainer.compute_loss(model, dict(batch), num_items_in_batch=tokens)
    assert loss.item() == pytest.approx(expected_nll / tokens, rel=1e-4)


def test_training_with_shared_prefixes_runs_and_writes_an_adapter(tmp_path, dataset):
    job = make_job(
        tmp_path, dataset, optim={"sharedPrefixRows": 4, "microBatchSize": 1, "effectiveBatchSize": 1, "maxSteps": 4}
    )
    adapter = run_training(job)
    assert (adapter / "adapter_model.safetensors").is_file()


def test_shared_prefixes_are_for_sft_only(tmp_path, dataset):
    from flywheel_trainer.job import JobError

    with pytest.raises(JobError, match=r"optim.sharedPrefixRows"):
        make_job(tmp_path, dataset, optim={"sharedPrefixRows": 0})
    from flywheel_trainer.model import check_method, detect_hardware

    job = dataclasses.replace(
        make_job(tmp_path, dataset, optim={"sharedPrefixRows": 4}), method="dpo"
    )  # what check_method reads

    with pytest.raises(BadJob, match=r"optim.sharedPrefixRows: rows share prefixes in SFT"):
        check_method(job, detect_hardware())
