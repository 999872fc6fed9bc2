"""Every snippet of docs/custom-loops.md's "Patterns" section runs as it stands, and the rule
policy played through rollout gives the time-of-use baseline's numbers the page quotes."""

import contextlib
import io
import re

import pytest

from conftest import ROOT, run_cli


def pattern_snippets():
    text = (ROOT / "docs" / "custom-loops.md").read_text()
    section = text.split("\n## Patterns\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def run_snippet(code):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "custom-loops.md", "exec"), {"__name__": "__snippet__"})
    return out.getvalue()


def test_the_patterns_section_has_its_five_snippets():
    assert len(pattern_snippets()) == 5


@pytest.mark.parametrize("index", range(5))
def test_pattern_snippet_runs(index):
    run_snippet(pattern_snippets()[index])


def test_rollout_snippet_equals_the_tou_baseline():
    printed = run_snippet(pattern_snippets()[4])
    ret = float(re.search(r"return_mean (-?[0-9.]+)", printed).group(1))
    resource = float(re.search(r"'resource': (?:np\.float64\()?([0-9.]+)", printed).group(1))
    base = run_cli("baseline", "experiments/dso_ppo.toml", "--policy", "tou").stdout
    base_ret = float(re.search(r"return_mean = (-?[0-9.e+-]+)", base).group(1))
    base_res = float(re.search(r"cost/resource = ([0-9.e+-]+)", base).group(1))
    assert ret == pytest.approx(base_ret, abs=5e-5)  # both printed to 4 decimals
    assert resource == pytest.approx(base_res, abs=5e-4)
