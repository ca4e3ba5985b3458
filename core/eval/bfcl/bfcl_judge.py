"""BFCL's own checker over answers recorded as BFCL's function-calling handlers record them, one per stdin line.

Input lines: {"id", "category", "output"}, where output is [{name: arguments JSON text}, ...] (an answer without a
call is []) or the answer's text. Output lines: {"id", "valid", "error_type", "error"}. The question's function
docs and possible answers are read here from bfcl_eval's own data files, by category and id, so their numbers keep
Python's types. What runs is bfcl_eval's: the function-calling handlers' decoding (`{name: json.loads(arguments)}`,
as OpenAICompletionsHandler.decode_ast does; that module imports the openai SDK, so its four lines are
repeated here), then what eval_runner's `_evaluate_single_ast_entry` and `_evaluate_single_relevance_entry` do
with the decoded answer: `is_function_calling_format_output` and `ast_checker`, or the irrelevance rule
(`is_empty_output`).

bfcl_eval's `constants.model_config` imports every vendor SDK BFCL can call (anthropic, cohere, boto3, …) to
build MODEL_CONFIG_MAPPING; the checker reads it only in `convert_func_name`, to undo the `.` → `_` renaming
some vendors' APIs force. The answers here carry the functions' own names (the caller maps them back), so a
mapping that never renames stands in for that module and nothing else of BFCL's is replaced.

`python bfcl_judge.py --check` imports the checker and prints where bfcl_eval's data is, or fails.
"""

import json
import sys
import types
from pathlib import Path


class _NeverRename:
    underscore_to_dot = False


class _AnyModel(dict):
    def __missing__(self, key):
        return _NeverRename()


_shim = types.ModuleType("bfcl_eval.constants.model_config")
_shim.MODEL_CONFIG_MAPPING = _AnyModel()
sys.modules["bfcl_eval.constants.model_config"] = _shim

import bfcl_eval  # noqa: E402
from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.utils import is_empty_output, is_function_calling_format_output  # noqa: E402

MODEL_NAME = "mcp-flywheel"
DATA = Path(list(bfcl_eval.__path__)[0]) / "data"
_loaded = {}


def _by_id(path):
    with open(path, encoding="utf-8") as f:
        return {row["id"]: row for row in map(json.loads, filter(str.strip, f))}


def question_and_answer(category, qid):
    if category not in _loaded:
        answers = DATA / "possible_answer" / f"BFCL_v4_{category}.json"
        _loaded[category] = (
            _by_id(DATA / f"BFCL_v4_{category}.json"),
            _by_id(answers) if answers.exists() else {},
        )
    questions, answers = _loaded[category]
    return questions[qid], answers.get(qid)


def decode(output):
    """A function-calling handler's decode_ast: an answer's text, or arguments that are not JSON, raise."""
    if isinstance(output, str):
        raise ValueError("the answer made no function call")
    return [{name: json.loads(arguments)} for call in output for name, arguments in call.items()]


def judge(item):
    category = item["category"]
    try:
        decoded, decode_error = decode(item["output"]), None
    except Exception as e:  # as eval_runner: any decoding failure is "no valid call"
        decoded, decode_error = None, str(e)
    if "irrelevance" in category:
        valid = decoded is None or is_empty_output(decoded)
        return {
            "valid": valid,
            "error_type": "" if valid else "irrelevance_error:decoder_success",
            "error": "" if valid else "Valid syntax. Successfully decode AST when it should not.",
        }
    if decoded is None:
        return {
            "valid": False,
            "error_type": "ast_decoder:decoder_failed",
            "error": f"Invalid syntax. Failed to decode AST. {decode_error}",
        }
    if not is_function_calling_format_output(decoded):
        return {
            "valid": False,
            "error_type": "ast_decoder:decoder_wrong_output_format",
            "error": "Did not output in the specified format.",
        }
    question, answer = question_and_answer(category, item["id"])
    result = ast_checker(question["function"], decoded, answer["ground_truth"], Language.PYTHON, category, MODEL_NAME)
    return {
        "valid": bool(result["valid"]),
        "error_type": "" if result["valid"] else result.get("error_type", ""),
        "error": "; ".join(str(e) for e in result.get("error", [])),
    }


def main():
    if "--check" in sys.argv:
        print(json.dumps({"data": str(DATA), "python": sys.executable}))
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        print(json.dumps({"id": item["id"], **judge(item)}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
