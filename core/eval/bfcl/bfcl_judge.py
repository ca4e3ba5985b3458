"""BFCL's own checker over answers already in BFCL's call form, one JSON object per stdin line.

Input lines: {"id", "category", "functions": [BFCL function docs], "answer": ground_truth | null,
"output": [{name: {arg: value}}, ...]} (an answer without a call is []). Output lines: {"id", "valid",
"error_type", "error"}. What runs is bfcl_eval's: `ast_checker` for the AST categories and the
relevance rule of `eval_runner._evaluate_single_relevance_entry` (is_empty_output) for irrelevance.

bfcl_eval's `constants.model_config` imports every vendor SDK BFCL can call (anthropic, cohere, boto3, …) to
build MODEL_CONFIG_MAPPING; the checker reads it only in `convert_func_name`, to undo the `.` → `_` renaming
some vendors' APIs force. The answers here carry the functions' own names (the caller maps them back), so a
mapping that never renames stands in for that module and nothing else of BFCL's is replaced.

`python bfcl_judge.py --check` imports the checker and prints where bfcl_eval's data is, or fails.
"""

import json
import sys
import types


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


def judge(item):
    category = item["category"]
    output = item["output"]
    if "irrelevance" in category or "relevance" in category:
        calls = not is_empty_output(output)
        valid = not calls if "irrelevance" in category else calls
        error = "" if valid else ("called a function" if calls else "no function called")
        return {"valid": valid, "error_type": "" if valid else "relevance_error", "error": error}
    if not is_function_calling_format_output(output):
        return {"valid": False, "error_type": "ast_decoder:decoder_wrong_output_format", "error": "not BFCL's form"}
    result = ast_checker(item["functions"], output, item["answer"], Language.PYTHON, category, MODEL_NAME)
    return {
        "valid": bool(result["valid"]),
        "error_type": result.get("error_type", ""),
        "error": "; ".join(str(e) for e in result.get("error", [])),
    }


def main():
    if "--check" in sys.argv:
        print(json.dumps({"data": f"{list(bfcl_eval.__path__)[0]}/data", "python": sys.executable}))
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        print(json.dumps({"id": item["id"], **judge(item)}), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
