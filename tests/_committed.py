"""A figure or stored table is made once and compared with the copy committed in ``figures/``.

``make figures`` must give exactly the files in the repository, so a change that moves a
published figure or number fails here until the figures are regenerated (``make figures``) and
committed. Comparing with the committed copy also proves the writer is deterministic, so each
writer runs once instead of twice.

Under ``make test-lowest`` (``ENSEMBLE_TEST_LOWEST=1``) the oldest declared matplotlib rasterises
with its own byte-level differences, so there the writer runs twice and the two runs are compared
with each other (determinism only).
"""

from __future__ import annotations

import os
from pathlib import Path

FIGURES = Path(__file__).resolve().parents[1] / "figures"
LOWEST = os.environ.get("ENSEMBLE_TEST_LOWEST") == "1"


def assert_writes_the_committed_files(write, tmp_path: Path, names: list[str]) -> list[Path]:
    """Call ``write(outdir) -> list[Path]``; check the names, and the bytes as described above."""
    out = tmp_path / "made"
    out.mkdir(parents=True, exist_ok=True)
    made = write(out)
    assert [p.name for p in made] == names
    if LOWEST:
        again = tmp_path / "again"
        again.mkdir(parents=True, exist_ok=True)
        for p, q in zip(made, write(again)):
            assert p.read_bytes() == q.read_bytes(), f"{p.name}: two runs of its writer differ"
    else:
        for p in made:
            assert p.read_bytes() == (FIGURES / p.name).read_bytes(), (
                f"{p.name} differs from figures/{p.name}: run `make figures` and commit the result")
    return made
