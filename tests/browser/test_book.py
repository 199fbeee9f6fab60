"""The static book (``make book``) in a real Chromium: every page renders offline.

The book is the one ``make test`` has just built (``BOOK_HTML``, set by the Makefile) or, run alone,
one this module builds into a temporary folder from the current sources (about 7 s). It is served by a
static file server on 127.0.0.1, and **every request the browser makes is recorded; any to another
address fails the test** (it is also aborted, so an offline machine does not wait for it).

On every lesson page: the maths is typeset (MathJax ran, no error node, no TeX left as text), every
image has loaded (the notebooks' figures and the learning path's thumbnails), and every panel shows its
saved image (each widget Image of the stored widget state is drawn, with a picture in it). Without a
browser: no internal link of the book is dead (file and anchor), no ``<owner>``-style placeholder is
left in it, the lessons' citations link to the references page, and with ``REPOSITORY_URL`` set the
launch buttons point at that repository (and without it there are none).
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest

import _support as S

ROOT = S.ROOT
sys.path.insert(0, str(ROOT / "book"))
import build as book_build  # noqa: E402

LESSONS = [p.stem for p in S.notebooks()]
PLACEHOLDER = re.compile(r"<(owner|repo|user|org|your[-_ ]?\w*)>|&lt;(owner|repo|user|org)&gt;", re.I)


@pytest.fixture(scope="session")
def book_html(tmp_path_factory) -> Path:
    given = os.environ.get("BOOK_HTML")
    if given:
        html = Path(given).resolve()
        assert (html / "index.html").is_file(), f"BOOK_HTML={given} holds no built book"
        return html
    return book_build.build(tmp_path_factory.mktemp("book"), repository_url="")


@pytest.fixture(scope="session")
def book_server(book_html):
    handler = functools.partial(_QuietHandler, directory=str(book_html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _expected_images(nb_path: Path) -> int:
    """How many widget Images the notebook's stored outputs display (through their boxes)."""
    nb = json.loads(nb_path.read_text())
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    seen: set[str] = set()

    def walk(model_id: str) -> int:
        if model_id in seen or model_id not in state:
            return 0
        seen.add(model_id)
        model = state[model_id]
        n = model["model_name"] == "ImageModel"
        for ref in re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(model["state"].get("children", []))):
            n += walk(ref)
        return n

    total = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view:
                total += walk(view["model_id"])
    return total


JS_MATH = r"""async () => {
  if (!window.MathJax || !MathJax.startup || !MathJax.startup.promise)
    return {typeset: -1, problems: ['MathJax did not load']};
  await MathJax.startup.promise;
  const out = [];
  for (const e of document.querySelectorAll('mjx-merror'))
    out.push('MathJax error: ' + (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 120));
  const article = document.querySelector('article') || document.body;
  const c = article.cloneNode(true);
  c.querySelectorAll('mjx-container, script, code, pre, style, .highlight, .cell_input, .output')
    .forEach(x => x.remove());
  const t = c.textContent || '';
  const m = t.match(
    /\$\$[\s\S]+?\$\$|\$[^$\n]+\$|\\\(|\\\[|\\(frac|mathrm|mathcal|mathbf|sum|int|ln|alpha|beta|sigma)\b/);
  if (m) out.push('raw TeX on the page: ' + JSON.stringify(m[0].slice(0, 80)));
  return {typeset: document.querySelectorAll('mjx-container').length, problems: out};
}"""

JS_IMAGES = r"""() => [...document.querySelectorAll('article img')].map(i => ({
  src: (i.getAttribute('src') || '').slice(0, 80), ok: i.complete && i.naturalWidth > 0,
  alt: i.getAttribute('alt') || '',
  widget: !!i.closest('.widget-image, .jupyter-widgets') || i.classList.contains('widget-image')}))"""


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_page_renders_its_maths_figures_and_panels_with_no_request_off_the_machine(
        browser, book_server, lesson, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    off_machine: list[str] = []

    def route(r):
        url = r.request.url
        requests.append(url)
        host = urllib.parse.urlsplit(url).hostname
        if url.startswith(("data:", "blob:", "about:")) or host == "127.0.0.1":
            r.continue_()
        else:
            off_machine.append(url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # a failed load is reported by its response below (the browser's own favicon.ico request aside)
    page.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
            and errors.append(m.text))
    page.on("response", lambda r: r.status >= 400 and not r.url.endswith("/favicon.ico")
            and errors.append(f"HTTP {r.status} {r.url}"))
    page.goto(f"{book_server}/notebooks/{lesson}.html", wait_until="load")
    math = page.evaluate(JS_MATH)
    expected = _expected_images(S.NOTEBOOKS / f"{lesson}.ipynb")
    if expected:
        page.wait_for_function(f"() => document.querySelectorAll('.widget-image').length >= {expected}",
                               timeout=S.UPDATE_MS)
    page.wait_for_function("() => [...document.querySelectorAll('article img')].every(i => i.complete)",
                           timeout=S.UPDATE_MS)
    images = page.evaluate(JS_IMAGES)
    page.screenshot(path=str(artifacts / f"book-{lesson}.png"), full_page=False)
    context.close()

    assert not off_machine, f"{lesson}: requests off the machine: {off_machine}"
    assert requests and all(urllib.parse.urlsplit(u).hostname == "127.0.0.1" for u in requests if
                            u.startswith("http"))
    assert not math["problems"], f"{lesson}: {math['problems']}"
    assert math["typeset"] > 0, f"{lesson}: no maths typeset"
    broken = [i["src"] for i in images if not i["ok"]]
    assert not broken, f"{lesson}: images that did not load: {broken}"
    figures = [i for i in images if not i["widget"]]
    assert figures, f"{lesson}: no figure on the page"
    panels = [i for i in images if i["widget"]]
    assert len(panels) == expected, f"{lesson}: {len(panels)} panel images drawn, the stored state has {expected}"
    # alt text that says something: not empty, not a file name, not "main figure of lesson 01"
    no_alt = [(i["src"], i["alt"][:60]) for i in images if len(i["alt"].split()) < 4 or re.search(
        r"\.(png|jpe?g|svg)\b|^main figure of", i["alt"])]
    assert not no_alt, f"{lesson}: images without a meaningful alt text: {no_alt}"
    assert not errors, f"{lesson}: console errors: {errors}"


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "link" and a.get("rel") == "preload"):
                self.links.append(a[key])


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(errors="replace"))
    return p


def test_the_book_has_no_dead_internal_link_and_no_placeholder(book_html):
    pages = sorted(book_html.rglob("*.html"))
    parsed = {p: _parse(p) for p in pages}
    dead, placeholders = [], []
    for page, links in parsed.items():
        if page.relative_to(book_html).parts[0] == "_static":  # the theme's own template fragments
            continue
        if PLACEHOLDER.search(page.read_text(errors="replace")):
            placeholders.append(str(page.relative_to(book_html)))
        for link in links.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                dead.append(f"{page.relative_to(book_html)} -> {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    dead.append(f"{page.relative_to(book_html)} -> {link} (no such anchor)")
    assert not placeholders, f"placeholders left in {placeholders}"
    assert not dead, f"{len(dead)} dead internal links, e.g. {dead[:10]}"
    # every page of the book is reachable: the lessons, the equation index, the references
    for name in [f"notebooks/{n}.html" for n in LESSONS] + ["equations.html", "references.html"]:
        assert (book_html / name).is_file(), name


def test_the_lessons_citations_resolve_to_the_references_page(book_html):
    bib = book_build.read_bib(ROOT / "references.bib")
    refs = (book_html / "references.html").read_text()
    for name in LESSONS[1:]:
        text = (book_html / "notebooks" / f"{name}.html").read_text()
        cites = re.findall(r'href="\.\./references\.html#(id\d+)"', text)
        assert cites, f"{name}: no citation links to the references page"
        for anchor in cites:
            assert f'id="{anchor}"' in refs, (name, anchor)
    # the references page lists every entry of references.bib, each in the table of who reads it
    assert refs.count('role="doc-biblioentry"') == len(bib)
    assert len(re.findall(r"<tr class=\"row-(?:odd|even)\"", refs)) == len(bib) + 1  # and the header


def test_launch_links_follow_the_repository_url_and_are_absent_without_it(book_html, tmp_path):
    assert not re.search(r"mybinder\.org|colab\.research\.google\.com", (
        book_html / "notebooks" / f"{LESSONS[1]}.html").read_text()), "launch links without REPOSITORY_URL"
    url = "https://github.com/example-org/ensemble-book-test"
    html = book_build.build(tmp_path / "book", repository_url=url, notebooks=[LESSONS[1]])
    page = (html / "notebooks" / f"{LESSONS[1]}.html").read_text()
    binder = re.findall(r'href="(https://mybinder\.org/[^"]+)"', page)
    colab = re.findall(r'href="(https://colab\.research\.google\.com/[^"]+)"', page)
    assert binder and colab, "no Binder / Colab launch link with REPOSITORY_URL set"
    assert all("example-org/ensemble-book-test" in link for link in binder + colab), binder + colab
    assert all(f"notebooks/{LESSONS[1]}.ipynb" in link for link in binder + colab), binder + colab
    assert url in page
