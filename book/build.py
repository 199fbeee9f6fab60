"""Build the static book of the suite: ``python book/build.py`` (``make book``).

What it does, in order:

1. **Vendors the JavaScript a reader's browser needs** (MathJax, require.js and the Jupyter widget
   manager's ``embed-amd.js``) from the npm registry into ``build/book-vendor/`` (git-ignored): each
   package tarball is fetched once at a pinned version, checked against its registry integrity hash
   (sha512) and unpacked; later builds reuse it, so a build with the cache in place needs no network.
2. **Stages the sources** into ``build/book/src/`` (git-ignored): this folder's pages (``conf.py`` is read in place),
   ``docs/equations.md``, ``figures/``, ``CHANGELOG.md`` and every stored, executed
   notebook from ``notebooks/`` (never re-executed). On the way each lesson's exercise solutions get the
   ``hide-input`` tag (folded under a "Show code" toggle, as they are folded in JupyterLab), each figure
   and panel gets the alt text written in its cell's metadata (:func:`written_alt`; the build stops at one
   without), and each item of its "References" list gets a ``{cite:p}`` role to its ``references.bib``
   entry (matched by first author, year and title, :func:`match_citations`); the references page, which
   says which lessons read which work, is written from the same matches.
3. **Runs Sphinx** (myst-nb, ``nb_execution_mode = "off"``) into ``build/book/html/``; open
   ``build/book/html/index.html`` (``file://`` works) or serve the folder.

``REPOSITORY_URL`` (environment; ``make book REPOSITORY_URL=https://github.com/you/fork``) is the one
setting that adds "launch on Binder / Colab" buttons and a repository link to every lesson; unset, the
book has none.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = ROOT / "build" / "book"
VENDOR = ROOT / "build" / "book-vendor"

# name -> (version, npm integrity); the files the pages load, relative to the unpacked package/
NPM = {
    "mathjax": ("3.2.2",
                "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="),
    "requirejs": ("2.3.8",
                  "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw=="),
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA=="),
}
# what of each package the book copies into its _static/vendor/<folder> (the rest stays in the cache)
KEEP = {
    "mathjax": ("mathjax", ["es5/tex-mml-chtml.js", "es5/output/chtml/fonts/woff-v2", "es5/input/tex/extensions"]),
    "requirejs": ("requirejs", ["require.js"]),
    # embed-amd.js and the icon fonts it loads from <widgets CDN>/@jupyter-widgets/html-manager/dist/
    "@jupyter-widgets/html-manager": ("@jupyter-widgets/html-manager", ["dist/embed-amd.js", "dist/*.woff2",
                                                                       "dist/*.woff", "dist/*.ttf"]),
}
def _npm_pack(name: str, version: str, dest: Path) -> bytes:
    """The package's tarball as npm's own client fetches it (``npm pack``, the registry npm is set up with)."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("book: npm is needed once to fetch MathJax, require.js and the widget manager "
                         "(Debian: apt-get install npm); afterwards the build needs no network")
    dest.mkdir(parents=True, exist_ok=True)
    out = subprocess.run([npm, "pack", f"{name}@{version}", "--pack-destination", str(dest), "--silent"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"book: npm pack {name}@{version} failed: {out.stderr.strip()[-500:]}")
    tarball = dest / out.stdout.strip().splitlines()[-1]
    data = tarball.read_bytes()
    tarball.unlink()
    return data


def vendor(cache: Path = VENDOR) -> dict[str, Path]:
    """Each pinned npm package unpacked under ``cache`` (fetched with ``npm pack`` and hash-checked if missing)."""
    out = {}
    for name, (version, integrity) in NPM.items():
        folder = cache / f"{name.replace('/', '__')}-{version}"
        if not (folder / ".complete").exists():
            print(f"book: fetching {name} {version} with npm pack", flush=True)
            data = _npm_pack(name, version, cache / ".download")
            algo, expected = integrity.split("-", 1)
            got = base64.b64encode(hashlib.new(algo, data).digest()).decode()
            if got != expected:
                raise RuntimeError(f"{name} {version}: integrity mismatch ({algo} {got} != {expected})")
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                tar.extractall(folder, filter="data")
            (folder / ".complete").write_text(f"{name} {version} {integrity}\n")
        out[name] = folder / "package"
    return out


def install_vendor(packages: dict[str, Path], static: Path) -> None:
    """Copy what the pages load into ``static/vendor/``."""
    for name, (dest, parts) in KEEP.items():
        for part in parts:
            for src in sorted(packages[name].glob(part)):
                target = static / "vendor" / dest / src.relative_to(packages[name])
                target.parent.mkdir(parents=True, exist_ok=True)
                if src.is_dir():
                    shutil.copytree(src, target, dirs_exist_ok=True)
                else:
                    shutil.copy2(src, target)


# --- citations -------------------------------------------------------------------------------

def read_bib(path: Path) -> dict[str, dict[str, str]]:
    """``references.bib`` as {key: {field: value}} (the plain subset this project writes)."""
    entries = {}
    text = path.read_text()
    for m in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,(.*?)\n\}", text, re.S):
        fields = {f.lower(): v.strip() for f, v in re.findall(r"(\w+)\s*=\s*\{((?:[^{}]|\{[^{}]*\})*)\}", m[3])}
        fields["type"] = m[1].lower()
        entries[m[2]] = fields
    return entries


def _plain(s: str) -> str:
    s = re.sub(r"\\.|[{}]", "", s.lower())  # LaTeX accents and case-protecting braces
    s = re.sub(r"[*\"'’—–\-,.:;()]", " ", s)
    return " ".join(s.split())


def _first_surname(author: str) -> str:
    first = author.split(" and ")[0].strip()
    surname = first.split(",")[0] if "," in first else first.split()[-1]
    return _plain(surname)


def match_citations(text: str, bib: dict[str, dict[str, str]]) -> list[str]:
    """The bib keys a reference item cites: first author's surname, year and the title's first words."""
    plain = _plain(text)
    keys = []
    for key, f in bib.items():
        title_words = _plain(f.get("title", "")).split()[:4]
        if (_first_surname(f.get("author", "")) in plain and f.get("year", "") in plain
                and " ".join(title_words) in plain):
            keys.append(key)
    return keys


def reference_items(source: str) -> list[tuple[int, int, str]]:
    """The list items of a markdown cell's "## References" section: (start, end, text) offsets."""
    head = re.search(r"^#+\s*References\s*$", source, re.M)
    if not head:
        return []
    items = []
    for m in re.finditer(r"^[*-] (.+(?:\n(?![*-] |#).+)*)", source[head.end():], re.M):
        items.append((head.end() + m.start(), head.end() + m.end(), m[1]))
    return items


def lesson_citations(nb: dict, bib) -> list[tuple[str, list[str]]]:
    """(item text, keys) for every item of the notebook's References list."""
    found = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            found += [(text, match_citations(text, bib)) for _, _, text in reference_items(source)]
    return found


def stage_notebook(nb: dict, bib, name: str = "") -> tuple[dict, list[str]]:
    """The book's copy of a notebook: written alt text on its figures and panels, solutions folded,
    references cited; and the keys it cites. A figure without written alt text stops the build."""
    cited = []
    for cell in nb["cells"]:
        if is_figure_cell(cell) or panel_images(nb, cell):
            alt = written_alt(cell, name)
            if is_figure_cell(cell):  # myst-nb's own key: the alt attribute of the cell's images
                cell["metadata"].setdefault("mystnb", {}).setdefault("image", {})["alt"] = alt
            if panel_images(nb, cell):  # read by conf.py's script into the panel image's alt attribute
                cell["outputs"].append({"output_type": "display_data", "metadata": {}, "data": {
                    "text/html": f'<span class="panel-alt" hidden>{html.escape(alt)}</span>'}})
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code" and "solution" in tags:
            cell["metadata"]["tags"] = [*tags, "hide-input"]
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            for start, end, text in reversed(reference_items(source)):
                keys = match_citations(text, bib)
                if keys:
                    cited += keys
                    source = source[:end] + " {cite:p}`" + ",".join(keys) + "`" + source[end:]
            cell["source"] = source
    return nb, list(dict.fromkeys(cited))


# --- alt text -------------------------------------------------------------------------------------
# Every figure a lesson's code cell draws carries its alt text, written by the lesson's author, in the
# cell's metadata under ALT_KEY (store_lessons keeps cell metadata); so does every cell that shows a
# panel. Markdown images carry theirs in ![alt](path). alt_problem() says what a written one is.

#: the cell-metadata key of a figure's (or a panel's) written alt text
ALT_KEY = "alt"
#: fewer words than this say too little about a figure to stand in for it
MIN_ALT_WORDS = 8
#: what generated or placeholder alt text looks like: a bare "figure of …", a file name, a to-do,
#: the book's old "Figure in “section” of the lesson …" and the learning path's old "main figure of …"
GENERIC_ALT = re.compile(r"^(an? |the )?(figure|image|plot|graph|chart|picture|screenshot)s?"
                         r"( (in|of) (the |a )?(lesson|notebook|section|cell)\b.*)?$|^figure in “"
                         r"|main figure of|\.(png|jpe?g|svg|gif)\b|\b(todo|tbd|fixme|lorem)\b|\.\.\.|…$", re.I)
IMAGE_MIMES = ("image/png", "image/jpeg", "image/svg+xml")


def alt_problem(alt, markdown: bool = False) -> str | None:
    """Why ``alt`` is not written alt text (empty, too short to describe a figure, or generic); None if it is.

    ``markdown``: the alt text of a Markdown image, which may hold no ``|`` (it ends a table's cell: the
    image is then not drawn) and no bracket (``F[Q]``: the image's text ends there for some renderers)."""
    if not isinstance(alt, str) or not alt.strip():
        return "no alt text"
    bad = re.search(r"[|\[\]]", alt) if markdown else None
    if bad:
        return f"{bad[0]!r} in a Markdown image's alt text (write KL(Q‖P) or words)"
    if len(alt.split()) < MIN_ALT_WORDS:
        return f"{len(alt.split())} words: say what the figure shows (at least {MIN_ALT_WORDS} words)"
    if GENERIC_ALT.search(alt.strip()):
        return f"generic alt text ({GENERIC_ALT.search(alt.strip())[0]!r})"
    return None


def is_figure_cell(cell: dict) -> bool:
    """A code cell whose stored outputs show an image (a figure it drew)."""
    return cell["cell_type"] == "code" and any(m in o.get("data", {}) for o in cell.get("outputs", [])
                                               for m in IMAGE_MIMES)


def panel_images(nb: dict, cell: dict) -> int:
    """How many widget Images (a panel's saved picture) the cell's stored widget views show, through their boxes."""
    state = nb.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    state = state.get("state", {})
    seen: set[str] = set()

    def walk(model_id: str) -> int:
        if model_id in seen or model_id not in state:
            return 0
        seen.add(model_id)
        n = state[model_id].get("model_name") == "ImageModel"
        children = json.dumps(state[model_id].get("state", {}).get("children", []))
        return n + sum(walk(ref) for ref in re.findall(r"IPY_MODEL_([0-9a-f]+)", children))

    return sum(walk(o["data"]["application/vnd.jupyter.widget-view+json"].get("model_id", ""))
               for o in cell.get("outputs", []) if "application/vnd.jupyter.widget-view+json" in o.get("data", {}))


def written_alt(cell: dict, where: str = "") -> str:
    """The cell's written alt text (its metadata's ``alt``); a ValueError saying what to write if it has none."""
    alt = cell.get("metadata", {}).get(ALT_KEY)
    problem = alt_problem(alt)
    if problem:
        raise ValueError(f"{where} cell {cell.get('id', '?')}: {problem}. Write what its figure shows (axes, "
                         f"what is drawn, what to see) in the cell's metadata {ALT_KEY!r} "
                         f"(ensemble_lib/lessons/__init__.py, 'Figures and their alt text')")
    return " ".join(alt.split())


def markdown_images(text: str) -> list[tuple[str, str]]:
    """(alt, path) of every ``![alt](path)`` and ``<img>`` in a Markdown text."""
    found = re.findall(r"!\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^)\s]+)[^)]*\)", text)  # brackets nest once: F[Q]
    for tag in re.findall(r"<img\b[^>]*>", text, re.I):
        alt = re.search(r"\balt\s*=\s*([\"'])(.*?)\1", tag, re.S)
        src = re.search(r"\bsrc\s*=\s*([\"'])(.*?)\1", tag, re.S)
        found.append((alt[2] if alt else "", src[2] if src else ""))
    return found


def lesson_title(nb: dict) -> str:
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            m = re.search(r"^#\s+(.+)$", "".join(cell["source"]), re.M)
            if m:
                return m[1].strip()
    return "?"


def references_page(bib, readers: dict[str, list[tuple[str, str]]]) -> str:
    """The references page: which lessons read which work, then the bibliography."""
    lines = ["# References", "",
             "Every work the lessons cite, from `references.bib`. The five source texts of the suite come",
             "first; the table says which lessons read each work (a lesson cites it in its References).", "",
             "| work | read in |", "|---|---|"]
    order = sorted(bib, key=lambda k: (bib[k].get("keywords", "") != "source", bib[k].get("year", ""), k))
    for key in order:
        where = ", ".join(f"[{title}]({doc})" for doc, title in readers.get(key, [])) or \
            "the suite as a whole (the papers' INDEX)"
        lines.append(f"| {{cite:t}}`{key}` | {where} |")
    lines += ["", "```{bibliography}", ":all:", "```", ""]
    return "\n".join(lines)


def stage(src: Path, notebooks: list[str] | None = None) -> dict:
    """Copy and transform the book's sources into ``src``; return what was staged.

    ``notebooks``: only these (stems, e.g. for a quick test build); default every notebook.
    """
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for page in HERE.iterdir():
        if page.suffix == ".md":
            shutil.copy2(page, src / page.name)
    shutil.copy2(ROOT / "docs" / "equations.md", src / "equations.md")
    shutil.copy2(ROOT / "CHANGELOG.md", src / "changelog.md")
    shutil.copytree(ROOT / "figures", src / "figures", ignore=shutil.ignore_patterns("*.json", "*.npz", "*.csv"))
    bib = read_bib(ROOT / "references.bib")
    readers: dict[str, list[tuple[str, str]]] = {}
    (src / "notebooks").mkdir()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if notebooks is not None and path.stem not in notebooks:
            continue
        nb, keys = stage_notebook(json.loads(path.read_text()), bib, path.name)
        (src / "notebooks" / path.name).write_text(json.dumps(nb, ensure_ascii=False))
        title = f"{path.name[:2]} · {lesson_title(nb).split('·', 1)[-1].strip()}"
        for key in keys:
            readers.setdefault(key, []).append((f"notebooks/{path.name}", title))
    (src / "references.md").write_text(references_page(bib, readers))
    return {"readers": readers}


def build(out: Path = BUILD, repository_url: str | None = None, quiet: bool = True,
          notebooks: list[str] | None = None) -> Path:
    """Vendor, stage and run Sphinx; return the HTML folder.

    ``repository_url`` overrides the ``REPOSITORY_URL`` environment variable ("" for none);
    ``notebooks`` builds only those lessons (the index's links to the others then dangle).
    """
    import os

    start = time.perf_counter()
    packages = vendor()
    src, html = out / "src", out / "html"
    stage(src, notebooks)
    env = dict(os.environ)
    if repository_url is not None:
        env["REPOSITORY_URL"] = repository_url
    shutil.rmtree(html, ignore_errors=True)
    # -c: conf.py stays in book/ (it reads pyproject.toml's version from the repository beside it)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-E", "-c", str(HERE), "-d", str(out / "doctrees"),
           str(src), str(html)] + (["-q"] if quiet else [])
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    install_vendor(packages, html / "_static")
    # the widget manager's stylesheet asks for its icon fonts relative to the page (notebooks/)
    fonts = html / "_static" / "vendor" / "@jupyter-widgets" / "html-manager" / "dist"
    shutil.copytree(fonts, html / "notebooks" / "@jupyter-widgets" / "html-manager" / "dist",
                    ignore=shutil.ignore_patterns("*.js"))
    print(f"book: built {html / 'index.html'} in {time.perf_counter() - start:.1f} s")
    return html


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=BUILD, help="build folder (default build/book)")
    parser.add_argument("--repository-url", default=None,
                        help="overrides the REPOSITORY_URL environment variable for this build")
    parser.add_argument("--verbose", action="store_true", help="Sphinx's own progress output")
    args = parser.parse_args(argv)
    build(args.out, args.repository_url, quiet=not args.verbose)


if __name__ == "__main__":
    main()
