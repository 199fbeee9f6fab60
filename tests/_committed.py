"""A figure or stored table is made once and compared with the copy committed in ``figures/``.

``make figures`` must give the files in the repository, so a change that moves a published figure
or number fails here until the figures are regenerated (``make figures``) and committed. Comparing
with the committed copy also proves the writer is deterministic, so each writer runs once instead
of twice.

Equal bytes pass at once. Otherwise the comparison allows what floating point alone changes from
one machine to another, and nothing a reader could see as a different result:

* the same numbers can differ in their last bits on another CPU (numpy picks its SIMD kernels for
  the CPU it runs on; OpenBLAS splits sums by its thread count), and an optimiser's end point then
  moves by about 1e-8. A CSV cell printed to 6 significant figures that sits on a rounding boundary
  can then flip by one unit in that last digit (``26.6951`` against ``26.695``): a **CSV** passes
  if every text cell is equal and every number is within one unit of its 6th significant figure;
* a **PNG** passes if it has the committed size and its RMS difference from the committed image
  (matplotlib's ``compare_images``, levels 0–255) is at most :data:`PNG_RMS_TOL`. Moving a curve by
  1e-8 changes a few antialiased pixels by one level (RMS about 0.002 on lesson 4's demo); changing
  one digit of a printed number moves the RMS by 0.3 or more even in the largest committed figure
  (``tests/project/test_committed.py`` checks both).
* any other file must be equal byte for byte.

The comparison lives in the library (``ensemble_lib.studies.store.floating_point_difference``):
``make figures`` uses it to keep a stored file that its run changes only by floating point.

Under ``make test-lowest`` (``ENSEMBLE_TEST_LOWEST=1``) the oldest declared matplotlib rasterises
with its own byte-level differences, so there the writer runs twice and the two runs are compared
with each other, byte for byte (determinism only).
"""

from __future__ import annotations

import os
from pathlib import Path

from ensemble_lib.studies.store import (PNG_RMS_TOL, SIGNIFICANT, csv_difference,  # noqa: F401
                                        floating_point_difference, png_difference)

FIGURES = Path(__file__).resolve().parents[1] / "figures"
LOWEST = os.environ.get("ENSEMBLE_TEST_LOWEST") == "1"


def committed_difference(made: Path, committed: Path) -> str | None:
    """``None`` if ``made`` is the committed file up to floating point (see the module's docstring).

    The comparison is the library's (:func:`ensemble_lib.studies.store.floating_point_difference`,
    which ``make figures`` uses to leave a stored file alone); a missing committed file raises
    FileNotFoundError.
    """
    if not Path(committed).is_file():
        raise FileNotFoundError(f"{committed} is not committed")
    return floating_point_difference(made, committed)


def assert_writes_the_committed_files(write, tmp_path: Path, names: list[str]) -> list[Path]:
    """Call ``write(outdir) -> list[Path]``; check the names, and the files as described above."""
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
            why = committed_difference(p, FIGURES / p.name)
            assert why is None, (f"{p.name} differs from figures/{p.name} ({why}): "
                                 "run `make figures` and commit the result")
    return made
