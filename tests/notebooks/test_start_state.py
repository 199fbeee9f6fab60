"""Every panel a lesson displays is introduced by a paragraph saying where it opens.

The real-browser suite compares those numbers with each panel's readout after Run All
(``tests/browser/test_jupyterlab.py::test_panels_open_where_the_text_says``); here, without a
browser, that every displayed panel has its paragraph just before it (in the cell before, or the one
before that), and
the number matching itself.
"""

import json
from pathlib import Path

import pytest

import _start_state as st
from browser import _support as S

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_displayed_panel_is_introduced_by_where_it_opens(nb, tmp_path):
    shown = S.displayed_panels(nb)
    stated = st.stated_starts(nb)
    assert len(stated) == len(shown), (
        f"{nb.name} displays {len(shown)} panel(s) ({shown}) but has {len(stated)} "
        f"'{st.MARK}' paragraph(s)")
    nb_json = json.loads(nb.read_text(encoding="utf-8"))

    def shown_by_first(n):  # panels displayed by the notebook's first n cells
        part = tmp_path / f"first{n}.ipynb"
        part.write_text(json.dumps(dict(nb_json, cells=nb_json["cells"][:n])), encoding="utf-8")
        return len(S.displayed_panels(part))

    for s in stated:
        assert s["numbers"], f"{nb.name}: '{s['text']}' states no number to compare"
        # the panel comes next, or after one more cell (a "what to look for" paragraph)
        assert shown_by_first(s["cell"] + 3) > shown_by_first(s["cell"] + 1), (
            f"{nb.name}: neither of the two cells after '{s['text'][:40]}…' displays a panel")


def test_number_matching_is_whole_numbers_with_their_sign():
    readout = "KL = 0.4876, F = −3.78733; a = 0.4 and b = -1.281"
    assert st.missing_numbers(["0.4876", "-3.78733", "0.4", "-1.281"], readout) == []
    assert st.missing_numbers(["0.487", "3.78733", "1.28", "0.48"], readout) == ["0.487", "3.78733", "1.28",
                                                                                 "0.48"]
