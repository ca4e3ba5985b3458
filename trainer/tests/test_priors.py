"""The copy prior (priors.py): mid-word in an argument value, the rest of the request's word the answer began is
pushed; nowhere else. A character tokenizer stands in for SmolLM2's, which also writes digits one token each."""

from __future__ import annotations

from flywheel_trainer.priors import Chain, CopyPrior, chain, encode_continuation, mix_in, source_text


class Chars:
    """A character tokenizer: one token per character (ord), enough to read the prior's arithmetic."""

    def encode(self, text, add_special_tokens=False):
        return [ord(c) for c in text]

    def decode(self, ids):
        return "".join(chr(i) for i in ids)


REQUEST = "new contact under 0018d00000000J4QAA and 0018d00000000K2QAA, acct 20234; call her Bo Novak"


def prior(weight=0.5):
    return CopyPrior.build(Chars(), REQUEST, weight, n_prompt=0)


def test_the_rest_of_each_request_word_the_answer_began_inside_the_arguments():
    p = prior()
    args = '{"tool":"create_contact","arguments":{'
    assert p.continuations(args + '"accountId":"0018d0000000') == ["0J4QAA", "0K2QAA"], "two ids begin so: both"
    assert p.continuations(args + '"accountId":"0018d00000000J') == ["4QAA"]
    assert p.continuations(args + '"acct":202') == ["34"], "numbers too"
    assert p.continuations(args + '"firstName":"Bo') == [], "a whole word: where the value ends is the model's call"
    assert p.continuations(args + '"acct":2') == [], "one character begins too much"
    assert p.continuations('{"tool":"create_co') == [], "not before the arguments: tool names are the decision's"
    assert p.continuations(args + '"x":"0019') == [], "no request word begins so"


def test_silent_once_the_run_is_a_whole_word_there():
    p = CopyPrior.build(Chars(), "show 1000 rows, 10 a page", 0.3, 0)
    assert p.continuations('{"tool":"t","arguments":{"limit":10') == [], "10 is a word there: the value may end"
    assert p.continuations('{"tool":"t","arguments":{"limit":100') == ["0"]


class SentencePieceLike(Chars):
    """Marks a text's start with ▁, as SentencePiece tokenizers do."""

    def encode(self, text, add_special_tokens=False):
        return [ord("▁")] + super().encode(text)


def test_a_continuation_is_tokenized_as_text_that_follows_other_text():
    assert encode_continuation(SentencePieceLike(), "0J4") == [ord("0"), ord("J"), ord("4")], (
        "no start-of-text ▁ mid-value"
    )
    assert encode_continuation(Chars(), "0J4") == [ord("0"), ord("J"), ord("4")]


def test_it_mixes_the_continuations_first_token_in_at_its_weight():
    import torch

    p = prior(0.5)
    seq = [ord(c) for c in '{"arguments":{"a":"0018d0000000']
    logits = torch.zeros(128)
    logits[ord("J")] = 8.0  # the model would drop a zero
    mixed = p.mix(seq, logits)
    assert int(mixed.argmax()) == ord("0"), "both ids go on with a zero here"
    assert torch.allclose(mixed.exp().sum(), torch.tensor(1.0))
    assert torch.equal(p.mix([ord(c) for c in '{"arguments":{"a":"Bo'], logits), logits), (
        "silent: the logits as they were"
    )
    quarter = CopyPrior.build(Chars(), REQUEST, 0.25, 0).mix(seq, logits).exp()[ord("0")]
    assert torch.allclose(quarter, torch.tensor(0.75 * float(torch.softmax(logits, -1)[ord("0")]) + 0.25))
    assert int(CopyPrior.build(Chars(), REQUEST, 0.25, 0).mix(seq, logits).argmax()) == ord("J"), (
        "a sure model keeps its token"
    )


def test_values_come_from_user_turns_and_tool_results_and_priors_chain():
    import torch

    messages = [
        {"role": "system", "content": "tools: get_invoice"},
        {"role": "user", "content": "find acme"},
        {"role": "tool", "content": '[{"id": 77}]'},
        {"role": "assistant", "content": None},
    ]
    assert source_text(messages) == 'find acme\n[{"id": 77}]'
    assert CopyPrior.build(Chars(), "a b", 0.5, 0) is None, "no word long enough"
    assert CopyPrior.build(Chars(), REQUEST, 0.0, 0) is None, "weight 0: off"
    assert chain(None, None) is None and chain(None, prior()) is not None
    assert isinstance(chain(prior(), prior()), Chain)
    assert torch.isfinite(mix_in(torch.tensor([0.0, -200.0, 0.0, 0.0]), {0: 1.0}, 0.5)).all(), (
        "an underflowing token stays finite"
    )
    p = mix_in(torch.tensor([0.0, 0.0, 0.0, 2.0]), {1: 3.0, 2: 1.0}, 1.0).exp()
    assert p[1] > p[2] > p[3] > p[0] > 0, "weight 1 is capped: the model still orders the tokens the prior leaves out"
    assert torch.allclose(p.sum(), torch.tensor(1.0))
