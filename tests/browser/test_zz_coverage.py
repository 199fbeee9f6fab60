"""The coverage rule: the run fails if a notebook or an interactive panel exists that the suite did not visit.

This module runs last (its name sorts last, and ``conftest.py`` moves it to the
end of the run). It re-reads ``notebooks/`` *now* — so a notebook added while
the suite ran, which no test was collected for, is caught too — and checks:

* every notebook was run in JupyterLab and every FigurePanel it displays was
  exercised there (all sliders by drag and key, dropdowns, bad input);
* every notebook was rendered in Voilà with all its panels, and one slider moved;
* the latency report has one entry per panel of every notebook;
* every FigurePanel class in ``ensemble_lib`` (leaf of the class tree) is
  displayed by some notebook, so no panel exists that no notebook shows.

A partial run (``-k``, ``-m``, ``--deselect`` or a node id) skips this check
with a one-line reason; ``make test`` and CI always run it.
"""

from __future__ import annotations

import pytest

import _support as S


def test_every_notebook_and_every_panel_was_visited(request, panel_classes):
    if request.config.stash.get(S.PARTIAL_RUN, False):
        pytest.skip("partial browser run: the coverage rule is checked when the whole suite runs")
    problems = []
    shown_anywhere: set[str] = set()
    for nb in S.notebooks():
        shown = S.displayed_panels(nb, panel_classes)
        shown_anywhere.update(shown)
        for where, name in (("lab", "JupyterLab"), ("voila", "Voilà")):
            got = S.VISITED[where].get(nb.name)
            if got is None:
                problems.append(f"{nb.name}: not visited in {name}")
            elif got < 0:
                problems.append(f"{nb.name}: visited in {name} but its checks failed (see above)")
            elif got != len(shown):
                problems.append(f"{nb.name}: {got} of {len(shown)} panel(s) visited in {name}")
        measured = {r["panel"] for r in S.LATENCY if r["notebook"] == nb.name}
        if len(measured) != sum(1 for _ in shown):
            problems.append(f"{nb.name}: latency measured for {len(measured)} of {len(shown)} panel(s)")
    for cls in sorted(S.leaf_panel_classes() - shown_anywhere):
        problems.append(f"panel class {cls} is displayed by no notebook, so no test visits it")
    assert not problems, "coverage rule:\n" + "\n".join(problems)
