"""The book's sources agree with the project: placeholders, links, bibliography, version, extras.

(The built book itself is checked by tests/browser/test_book.py.)
"""

import html
import json
import re
import sys
import tomllib
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book"))
import build as book_build  # noqa: E402

PLACEHOLDER = re.compile(r"<(owner|repo|user|org|your[-_ ]?\w*)>", re.I)
MD_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _texts():
    yield ROOT / "README.md", (ROOT / "README.md").read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text())
        yield path, "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_no_owner_style_placeholder_in_the_readme_or_the_notebooks():
    for path, text in _texts():
        assert not PLACEHOLDER.search(text), f"{path.name}: {PLACEHOLDER.search(text)[0]}"


def test_no_dead_relative_link_in_the_readme_or_the_notebooks():
    dead = []
    for path, text in _texts():
        for link in MD_LINK.findall(text):
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            if not (path.parent / urllib.parse.unquote(parts.path)).exists():
                dead.append(f"{path.name} -> {link}")
    assert not dead, dead


def test_the_placeholder_and_link_checks_can_fail(tmp_path):
    assert PLACEHOLDER.search("https://mybinder.org/v2/gh/<owner>/<repo>/HEAD")
    assert MD_LINK.findall("see [x](notebooks/missing.ipynb)") == ["notebooks/missing.ipynb"]


def test_every_reference_of_every_lesson_resolves_to_references_bib():
    bib = book_build.read_bib(ROOT / "references.bib")
    sources = {k for k, f in bib.items() if f.get("keywords") == "source"}
    assert len(sources) == 5, sources
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        found = book_build.lesson_citations(json.loads(path.read_text()), bib)
        if path.name.startswith("00"):
            continue
        assert found, f"{path.name}: no References list"
        unmatched = [text[:60] for text, keys in found if not keys]
        assert not unmatched, f"{path.name}: references not in references.bib: {unmatched}"
    # the matcher tells the two 1998 Barber & Bishop texts and the two MacKay 1995 texts apart
    assert book_build.match_citations("D. Barber & C. M. Bishop (1998), Ensemble learning for multi-layer "
                                      "networks, NIPS 10", bib) == ["barber1998multilayer"]
    assert book_build.match_citations("A. N. Other (2020), Unrelated work", bib) == []


def test_the_version_has_one_source_that_citation_and_book_follow():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert re.search(rf"^version: {re.escape(version)}$", (ROOT / "CITATION.cff").read_text(), re.M)
    conf = (ROOT / "book" / "conf.py").read_text()
    assert 'version = release = _project["version"]' in conf and "{version}" in conf
    assert "Version" in conf


def test_the_licence_covers_code_text_and_figures():
    text = (ROOT / "LICENSE").read_text()
    assert "MIT License" in text and "CC BY 4.0" in text and "figures/" in text
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == {"text": "MIT"}


def test_the_book_reads_offline_every_script_it_names_is_vendored():
    """No CDN address in the book's configuration; each vendored package is pinned with its hash."""
    conf = (ROOT / "book" / "conf.py").read_text()
    assert not re.search(r"https?://(?!mybinder\.org|colab\.research\.google\.com)", conf)
    for name, (version, integrity) in book_build.NPM.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version) and integrity.startswith("sha512-"), name


def test_the_book_extra_is_installed_by_make_and_listed_in_environment_yml():
    makefile = (ROOT / "Makefile").read_text()
    assert "'.[lab,test,reference,exercises,book]'" in makefile
    assert re.search(r"^book: ", makefile, re.M) and "BOOK_HTML=$(BOOK_HTML)" in makefile
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["book"]
    env = (ROOT / "environment.yml").read_text()
    for req in extra:
        assert f"  - {req}\n" in env, req


# --- alt text: written for every figure, panel and Markdown image ----------------------------------

def _lessons():
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        yield path, json.loads(path.read_text())


def test_every_figure_and_panel_of_every_lesson_has_written_alt_text():
    """Each code cell whose stored output is a figure or a panel's saved picture carries its alt text in its
    metadata ("alt"), written for it: long enough to describe the figure, not generic, not shared."""
    missing, seen, figures = [], {}, 0
    for path, nb in _lessons():
        for cell in nb["cells"]:
            is_figure, panels = book_build.is_figure_cell(cell), book_build.panel_images(nb, cell)
            if not (is_figure or panels):
                continue
            figures += is_figure
            alt = cell.get("metadata", {}).get(book_build.ALT_KEY)
            problem = book_build.alt_problem(alt)
            if problem:
                missing.append(f"{path.name} cell {cell.get('id')}: {problem}")
            elif alt in seen:
                missing.append(f"{path.name} cell {cell.get('id')}: the same alt text as {seen[alt]}")
            else:
                seen[alt] = f"{path.name} cell {cell.get('id')}"
    assert not missing, missing
    assert figures >= 20 and len(seen) >= 30  # the check looked at the lessons' figures and panels


def test_every_markdown_image_has_written_alt_text():
    """README, docs/, the book's pages and every notebook's Markdown (the learning path's thumbnails)."""
    texts = [(p, p.read_text()) for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
                                          *sorted((ROOT / "book").glob("*.md"))]]
    texts += [(p, "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"))
              for p, nb in _lessons()]
    images = [(p.name, alt, src) for p, text in texts for alt, src in book_build.markdown_images(text)]
    bad = [(name, src, book_build.alt_problem(alt, markdown=True)) for name, alt, src in images
           if book_build.alt_problem(alt, markdown=True)]
    assert not bad, bad
    by_file = {name: sum(n == name for n, _, _ in images) for name, _, _ in images}
    assert by_file["README.md"] >= 14 and by_file["00_learning_path.ipynb"] >= 8, by_file


def test_the_alt_text_checks_can_fail():
    generic = ["", "   ", None, "Figure", "Lesson 1 in JupyterLab", "main figure of lesson 01 in the suite today",
               "Figure in “4. Fig. 2, reproduced” of the lesson “The toy posterior”: the fits",
               "figures/toy_fig2.png drawn by the figures command of the lesson", "an image of the lesson's first plot",
               "TODO: describe the posterior and the three Gaussians drawn on it"]
    assert all(book_build.alt_problem(a) for a in generic), [a for a in generic if not book_build.alt_problem(a)]
    assert book_build.alt_problem("Laplace's dashed ellipse points out of the curved ridge of the posterior") is None
    # a Markdown image in a table: a | ends the cell (the learning path's KL(Q||P) thumbnails were not drawn)
    table_cell = "the bound F[Q] and KL(Q||P) for a family of Gaussians, the bound rising as the KL falls"
    assert book_build.alt_problem(table_cell) is None and book_build.alt_problem(table_cell, markdown=True)
    assert book_build.alt_problem(table_cell.replace("F[Q]", "F").replace("||", "‖"), markdown=True) is None
    # images in Markdown, a bracket nested in the alt text (F[Q]) and an HTML <img> included
    assert book_build.markdown_images("![the bound F[Q] and KL in bars](a.png) <img src='b.png' alt=\"x y\">") == [
        ("the bound F[Q] and KL in bars", "a.png"), ("x y", "b.png")]


def _figure_notebook(alt=None, panel=False):
    image = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo=", "text/plain": "F"}}
    view = {"output_type": "display_data", "metadata": {}, "data": {
        "application/vnd.jupyter.widget-view+json": {"model_id": "aa11", "version_major": 2, "version_minor": 0}}}
    cell = {"cell_type": "code", "id": "c1", "source": "fig", "execution_count": 1,
            "metadata": {} if alt is None else {"alt": alt}, "outputs": [view if panel else image]}
    state = {"aa11": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_bb22"]}},
             "bb22": {"model_name": "ImageModel", "state": {}}}
    return {"cells": [{"cell_type": "markdown", "source": "# Lesson", "metadata": {}}, cell],
            "metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": state}}}}


def test_the_book_puts_the_written_alt_text_on_figures_and_panels_and_stops_without_it():
    alt = "The posterior's contours with Laplace's ellipse pointing out of the ridge"
    nb, _ = book_build.stage_notebook(_figure_notebook(alt), {}, "01_x.ipynb")
    assert nb["cells"][1]["metadata"]["mystnb"]["image"]["alt"] == alt
    nb, _ = book_build.stage_notebook(_figure_notebook(alt, panel=True), {}, "01_x.ipynb")
    assert book_build.panel_images(nb, nb["cells"][1]) == 1
    span = nb["cells"][1]["outputs"][-1]["data"]["text/html"]
    assert span == '<span class="panel-alt" hidden>' + html.escape(alt) + "</span>"
    assert ".panel-alt" in (ROOT / "book" / "conf.py").read_text()  # the page script that reads it
    for bad in (None, "Figure in “§4” of the lesson “X”: fig"):
        for panel in (False, True):
            with pytest.raises(ValueError, match="01_x.ipynb cell c1: .*metadata 'alt'"):
                book_build.stage_notebook(_figure_notebook(bad, panel), {}, "01_x.ipynb")


def test_every_lesson_is_in_the_books_table_of_contents():
    index = (ROOT / "book" / "index.md").read_text()
    listed = re.findall(r"^(notebooks/\S+)$", index, re.M)
    assert listed == [f"notebooks/{p.stem}" for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))]


#: TeX between dollars, or a backslash command: what only MathJax would turn into maths
TEX = re.compile(r"\$[^$\n]+\$|\\[A-Za-z]+")


def markdown_outputs_with_tex(nb: dict) -> list[str]:
    """Cells whose text/markdown outputs hold TeX. The book renders a cell's Markdown output as plain
    CommonMark (myst-nb's default output format: no dollar maths), so TeX there shows raw: written
    sentences use Unicode (1/√n, α) instead."""
    found = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            text = out.get("data", {}).get("text/markdown")
            text = "".join(text) if isinstance(text, list) else (text or "")
            if TEX.search(text):
                found.append(f"cell {cell.get('id')}: {TEX.search(text).group(0)!r}")
    return found


def test_no_lessons_markdown_output_holds_tex_the_book_would_show_raw():
    problems = {p.name: f for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
                if (f := markdown_outputs_with_tex(json.loads(p.read_text(encoding="utf-8"))))}
    assert not problems, problems


def test_the_tex_in_markdown_outputs_check_can_fail():
    nb = {"cells": [{"id": "x", "outputs": [{"data": {"text/markdown": ["falls as $1/\\sqrt n$"]}}]},
                    {"id": "y", "outputs": [{"data": {"text/markdown": ["falls as 1/√n, costs $5"]}}]}]}
    assert markdown_outputs_with_tex(nb) == ["cell x: '$1/\\\\sqrt n$'"]
