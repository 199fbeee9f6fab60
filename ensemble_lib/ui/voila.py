"""Serving the notebooks as apps with Voilà (``make app``): images in markdown cells.

Voilà inlines the images of markdown cells itself, and looks each one up by
a path relative to its *root* folder, not to the notebook; a path leaving the
root (``../figures/toy_fig2.png``, as the learning path's thumbnails are
written so that JupyterLab and GitHub show them) makes it fail to render the
page at all. :class:`NotebookRelativeImages` resolves such paths from the
notebooks' folder, ``notebooks/`` under the root, and leaves an image it
cannot find as a plain link instead of failing the page. ``make app`` serves
the repository root with it::

    voila --VoilaExporter.markdown_renderer_class=ensemble_lib.ui.voila.NotebookRelativeImages .
"""

from __future__ import annotations

import posixpath

from voila.exporter import VoilaMarkdownRenderer

#: the notebooks' folder, relative to the root Voilà serves
NOTEBOOK_DIR = "notebooks"


class NotebookRelativeImages(VoilaMarkdownRenderer):
    """Voilà's markdown renderer, with image paths taken relative to ``notebooks/``."""

    def image(self, text: str, url: str, title: str | None = None):
        local = not url.startswith(("http://", "https://", "data:", "/"))
        path = posixpath.normpath(posixpath.join(NOTEBOOK_DIR, url)) if local else url
        try:
            return super().image(text, path, title)
        except Exception:  # noqa: BLE001 - a missing image must not stop the page rendering
            return super(VoilaMarkdownRenderer, self).image(text, url, title)
