"""Serving the notebooks as apps with Voilà (``make app``): images in markdown cells.

``make app`` serves the ``notebooks/`` folder, so Voilà's start page lists the
lessons and nothing else of the repository. Its settings live in ``voila.json``
at the repository root, read by ``make app`` and by the browser tests alike
(``--Voila.config_file_paths=<repository root>``): this renderer, and the
removal of the exercise solutions (cells tagged ``solution``) from the app.

Voilà inlines the images of markdown cells itself, but only files under the
folder it serves; a path leaving it (``../figures/toy_fig2.png``, as the
learning path's thumbnails are written so that JupyterLab and GitHub show
them) makes it fail to render the page at all. :class:`NotebookRelativeImages`
reads such an image from disk, relative to the notebooks' folder, as long as
it stays inside the suite (the served folder's parent, where ``figures/``
is), and inlines it; an image it cannot find is left as a plain link instead
of failing the page::

    voila --Voila.config_file_paths=. notebooks
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path

from voila.exporter import VoilaMarkdownRenderer


def inline_image(root: str | Path, url: str) -> str | None:
    """``url`` (relative to the served folder ``root``) as a ``data:`` URI, or None.

    None for a remote, absolute or ``data:`` URL, a missing file, a file that
    is not an image, or a path leaving the suite (``root``'s parent).
    """
    if not isinstance(root, (str, Path)):
        raise ValueError(f"root must be a str or pathlib.Path (the served folder), got {type(root).__name__}")
    if url is not None and not isinstance(url, str):
        raise ValueError(f"url must be a str, got {type(url).__name__}")
    if not url or url.startswith(("http://", "https://", "data:", "/")) or ":" in url.split("/")[0]:
        return None
    root = Path(root).resolve()
    path = (root / url).resolve()
    mime, _ = mimetypes.guess_type(path.name)
    if not (path.is_file() and root.parent in path.parents and mime and mime.startswith("image/")):
        return None
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


class NotebookRelativeImages(VoilaMarkdownRenderer):
    """Voilà's markdown renderer, with ``../figures/`` images inlined from disk."""

    def __init__(self, contents_manager, *args, **kwargs):
        if not all(hasattr(contents_manager, a) for a in ("root_dir", "file_exists", "get")):
            raise ValueError(f"contents_manager must be a Jupyter contents manager (with root_dir, file_exists "
                             f"and get), got {type(contents_manager).__name__}")
        super().__init__(contents_manager, *args, **kwargs)

    def image(self, text: str, url: str, title: str | None = None):
        """The ``<img>`` of a markdown image: ``url`` inlined from disk where :func:`inline_image` can."""
        if not isinstance(text, str) or (title is not None and not isinstance(title, str)):
            raise ValueError(f"text must be a str and title None or a str, got {type(text).__name__} and "
                             f"{type(title).__name__}")
        data = inline_image(self.contents_manager.root_dir, url)
        if data is not None:
            return super(VoilaMarkdownRenderer, self).image(text, data, title)
        try:
            return super().image(text, url, title)
        except Exception:  # noqa: BLE001 - a missing image must not stop the page rendering
            return super(VoilaMarkdownRenderer, self).image(text, url, title)


__all__ = ["NotebookRelativeImages", "inline_image"]
