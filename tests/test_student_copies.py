"""Student copies (``python -m ensemble_lib.ui.student_copies OUTDIR``) hold no solution and nothing else changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_lib.ui import student_copies as sc

ROOT = Path(__file__).resolve().parents[1]
NB = ROOT / "notebooks"


def _json_text(obj) -> str:
    """How ``obj`` (a notebook, or a line inside a JSON string) is spelled in a notebook file."""
    text = json.dumps(obj, ensure_ascii=False)
    return text[1:-1] if isinstance(obj, str) else text


def _code_lines(cells) -> set[str]:
    return {ln.strip() for c in cells for ln in "".join(c["source"]).splitlines() if ln.strip()}


def test_student_copies_have_no_solution_code_and_are_otherwise_the_lessons(tmp_path, capsys):
    sc.main([str(tmp_path)])
    assert "solutions removed" in capsys.readouterr().out
    lessons = sorted(NB.glob("*.ipynb"))
    assert sorted(p.name for p in (tmp_path / "notebooks").iterdir()) == [p.name for p in lessons]
    assert (tmp_path / "figures" / "toy_fig2.png").read_bytes() == (ROOT / "figures" / "toy_fig2.png").read_bytes()
    n_solutions = 0
    for path in lessons:
        original = json.loads(path.read_text(encoding="utf-8"))
        copy = json.loads((tmp_path / "notebooks" / path.name).read_text(encoding="utf-8"))
        assert copy["metadata"] == original["metadata"] and len(copy["cells"]) == len(original["cells"])
        solutions = [c for c in original["cells"] if sc.is_solution(c)]
        n_solutions += len(solutions)
        # every line of solution code found nowhere else in the lesson (other cells, outputs) is gone
        others = _json_text({**original, "cells": [c for c in original["cells"] if not sc.is_solution(c)]})
        secret = [ln for ln in _code_lines(solutions) if _json_text(ln) not in others]
        assert len(secret) >= len(solutions)
        leaked = [ln for ln in secret if _json_text(ln) in _json_text(copy)]
        assert not leaked, f"{path.name}: solution lines in the student copy: {leaked[:3]}"
        number = 0
        for before, after in zip(original["cells"], copy["cells"], strict=True):
            if sc.is_solution(before):
                number += 1
                assert after == {"id": before["id"], "cell_type": "code", "execution_count": None,
                                 "metadata": {}, "outputs": [], "source": f"# Your answer to exercise {number} here\n"}
            else:
                assert after == before
    assert n_solutions >= 4 * 5  # every lesson has at least four exercises with solutions


def test_student_copies_refuse_to_overwrite_the_lessons(tmp_path):
    for outdir in (ROOT, NB, NB / "student"):
        with pytest.raises(ValueError, match="outdir"):
            sc.write_student_copies(outdir)
    with pytest.raises(ValueError, match="nb must be"):
        sc.scrub({"cells": None})
