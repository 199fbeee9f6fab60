"""The book's sources agree with the project: placeholders, links, bibliography, version, extras.

(The built book itself is checked by tests/browser/test_book.py.)
"""

import json
import re
import sys
import tomllib
import urllib.parse
from pathlib import Path

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
