"""Sphinx configuration of the book (``make book``; sources staged by ``book/build.py``).

Everything a reader's browser loads is served from the book itself: MathJax, require.js and the
Jupyter widget manager come from ``_static/vendor/`` (vendored from the npm registry by the build),
never from a CDN. The version shown is ``pyproject.toml``'s (the single source).
"""

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

project = "Ensemble-learning notebooks"
author = "The ensemble-learning notebooks authors"
copyright = "the authors; code MIT, text and figures CC BY 4.0"
version = release = _project["version"]
html_title = f"{project} {version}"

extensions = ["myst_nb", "sphinxcontrib.bibtex"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
root_doc = "index"

# the stored, executed notebooks are shown as they are: nothing is re-run
nb_execution_mode = "off"
# a solution cell's code is folded under a toggle (the build tags it hide-input)
nb_code_prompt_show = "Show code: {type}"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure"]

# --- no request leaves the machine: every script is vendored into _static/vendor/ ------------------
mathjax_path = "vendor/mathjax/es5/tex-mml-chtml.js"
# MathJax 3 finds its fonts and TeX extensions beside its own script. The widget manager typesets an
# HTML widget through MathJax 2's MathJax.Hub.Queue: give MathJax 3 that one call.
nb_ipywidgets_js = {
    "vendor/requirejs/require.js": {},
    # data-jupyter-widgets-cdn: where embed-amd.js fetches its icon fonts (and would fetch a widget
    # library it does not bundle; the lessons use only the bundled controls): the book's own copy,
    # relative to the pages that show widgets, which all sit in notebooks/
    "vendor/@jupyter-widgets/html-manager/dist/embed-amd.js": {"data-jupyter-widgets-cdn": "../_static/vendor/",
                                                               "data-jupyter-widgets-cdn-only": "true"},
}

bibtex_bibfiles = ["../references.bib"]  # relative to this folder: the repository's own file
bibtex_reference_style = "author_year"
bibtex_default_style = "plain"

html_theme = "sphinx_book_theme"
html_static_path = []
html_last_updated_fmt = None
html_show_sourcelink = False
html_copy_source = False

# --- launch buttons: from one setting, REPOSITORY_URL; none while it is unset ------------------------
repository_url = os.environ.get("REPOSITORY_URL", "").strip().rstrip("/")
html_theme_options = {
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "extra_footer": f"<p>Version {version}. Code: MIT licence; text and figures: CC BY 4.0.</p>",
    "navigation_with_keys": False,
    # no download button: it links to _sources/, which this book does not copy (the notebooks are in the repository)
    "use_download_button": False,
}
if repository_url:
    html_theme_options.update({
        "repository_url": repository_url,
        "repository_branch": os.environ.get("REPOSITORY_BRANCH", "HEAD"),
        "path_to_docs": "",
        "use_repository_button": True,
        "launch_buttons": {"binderhub_url": "https://mybinder.org", "colab_url": "https://colab.research.google.com",
                           "notebook_interface": "jupyterlab"},
    })

# the theme's light/dark switch starts from the reader's system setting (an empty mode logs an error)
html_context = {"default_mode": "auto"}

# A panel's saved picture is an ipywidgets Image, drawn by the widget manager without alt text: give
# each one the alt text written for its cell (the lesson cell's metadata "alt", which book/build.py puts
# into the cell's output as a hidden span.panel-alt) and the panel's own readout (its numbers, as last
# drawn), once the widgets are on the page.
PANEL_ALT_JS = """
function ensembleBookPanelAlt() {
  for (const img of document.querySelectorAll('img.widget-image:not([alt])')) {
    const cell = img.closest('.cell');
    const written = cell ? cell.querySelector('.panel-alt') : null;
    const box = img.closest('.widget-vbox, .widget-box') || img.parentElement;
    const readout = [...(box ? box.querySelectorAll('.widget-html-content') : [])]
      .map(e => e.innerText.trim()).filter(Boolean).join(' ').replace(/\\s+/g, ' ').slice(0, 300);
    img.setAttribute('alt', (written ? written.textContent.trim() + ' ' : '')
      + 'Frozen as it was last drawn (run the lesson to move it)' + (readout ? ': ' + readout : '.'));
  }
}
new MutationObserver(ensembleBookPanelAlt).observe(document.documentElement, {childList: true, subtree: true});
"""


MATHJAX2_SHIM_JS = """
(function () {
  // MathJax 3 replaces window.MathJax with its own object while it loads: every object it puts
  // there gets the Hub.Queue(['Typeset', Hub, element]) call of MathJax 2, typesetting that element
  // (before MathJax is ready, the page's first typeset covers what the widgets drew)
  const hub = {Queue: function (job) {
    const mj = window.MathJax, el = Array.isArray(job) ? job[2] : undefined;
    return mj && mj.typesetPromise ? mj.typesetPromise(el ? [el] : undefined) : null;
  }};
  let current = {};
  Object.defineProperty(window, 'MathJax', {configurable: true, get() { return current; }, set(v) {
    current = v;
    if (v && typeof v === 'object' && !v.Hub) v.Hub = hub;
  }});
})();
"""


def setup(app):
    app.add_js_file(None, body=PANEL_ALT_JS)
    # before MathJax's own script (priority 500); replaces the config Sphinx would write
    app.add_js_file(None, body=MATHJAX2_SHIM_JS, priority=400)
