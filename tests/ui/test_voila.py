"""Serving the lessons as apps with Voilà: the markdown renderer's image inlining (``ensemble_lib.ui.voila``).

(That ``make app`` and the browser suite read the same voila.json: tests/project/test_environment.py.)
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_voila_inlines_the_learning_path_thumbnails_and_nothing_outside_the_suite(tmp_path):
    """The app serves notebooks/; its ../figures/ images are inlined from disk, other paths are not."""
    import base64

    from ensemble_lib.ui.voila import inline_image

    notebooks = ROOT / "notebooks"
    data = inline_image(notebooks, "../figures/toy_fig2.png")
    assert data.startswith("data:image/png;base64,")
    assert base64.b64decode(data.split(",", 1)[1]) == (ROOT / "figures" / "toy_fig2.png").read_bytes()
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"\x89PNG")
    for url in ("../figures/missing.png", "../pyproject.toml", "https://example.org/a.png", "/etc/hosts",
                "data:image/png;base64,AAAA", f"../../{'../' * len(ROOT.parts)}{outside}"):
        assert inline_image(notebooks, url) is None, url
