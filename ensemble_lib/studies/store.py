"""Where the studies store their results, how they write and read them, and their command lines.

* :data:`FIGURES_DIR`: the repository's ``figures/`` folder, where every stored study lives;
* :func:`save_json`, :func:`save_npz`, :func:`write_atomically`: write a result so that a reader
  never sees half a file — the bytes go to a temporary file in the same folder, which then
  replaces the old file in one step (``os.replace``); if writing fails the old file is untouched
  and the temporary file removed;
* :func:`stored_file`, :func:`load_json`, :func:`load_npz`: read a stored result back, with a
  FileNotFoundError that names the command making it;
* :func:`study_parser`, :func:`print_progress`, :class:`TqdmProgress`, :func:`write_times`: the
  command-line pieces every study repeats (``--outdir``, ``--jobs``, ``--times``; a progress bar
  with the time left on standard error; wall times kept in a file of their own so that the stored
  results hold none);
* :func:`floating_point_difference`, :func:`replace_if_changed`: keep a stored figure whose
  regenerated copy differs only by what floating point changes from one CPU to another (a CSV
  number by one unit in its 6th significant figure, a PNG by an RMS of :data:`PNG_RMS_TOL` levels),
  so ``make figures`` leaves the tree clean on any machine.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np
from PIL import Image  # matplotlib's own image library
from tqdm import tqdm

#: the repository's ``figures/`` folder: every figure and every stored study
FIGURES_DIR = Path(__file__).resolve().parents[2] / "figures"
#: where a quick or partial study run writes by default (git-ignored ``build/``), never ``figures/``
SCRATCH_DIR = Path(__file__).resolve().parents[2] / "build" / "studies"
#: the largest RMS difference (0-255 levels) a regenerated PNG may have from the stored one
PNG_RMS_TOL = 0.05
#: the significant figures the stored CSVs are written with (``%.6g``)
SIGNIFICANT = 6


def write_atomically(path, write) -> Path:
    """Call ``write(f)`` on a binary file that replaces ``path`` only once ``write`` has returned.

    Parameters
    ----------
    path : str or Path
        The file to (re)place; its folder is made if missing.
    write : callable
        ``write(f)`` writes the whole content to the open binary file ``f``.

    Returns
    -------
    Path
        ``path``. If ``write`` raises, ``path`` keeps its old content, the temporary file is
        removed and the exception propagates.
    """
    if not callable(write):
        raise ValueError(f"write must be a callable write(f), got {type(write).__name__}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600); a result gets an ordinary file's permissions
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def json_text(obj, *, indent: int | None = 1, sort_keys: bool = True, compact: bool = False) -> str:
    """``obj`` as the studies store it: ``json.dumps`` with the given layout and a final newline.

    ``compact`` drops the spaces after separators (``(",", ":")``, used with ``indent=None``).
    """
    separators = (",", ":") if compact else None
    return json.dumps(obj, indent=indent, sort_keys=sort_keys, separators=separators) + "\n"


def save_json(obj, path, *, indent: int | None = 1, sort_keys: bool = True, compact: bool = False) -> Path:
    """Write :func:`json_text` of ``obj`` to ``path`` atomically (:func:`write_atomically`); the path."""
    data = json_text(obj, indent=indent, sort_keys=sort_keys, compact=compact).encode("utf-8")
    return write_atomically(path, lambda f: f.write(data))


def save_npz(arrays: dict, path) -> Path:
    """Write ``arrays`` (name → array) with ``numpy.savez_compressed`` to ``path`` atomically."""
    if not isinstance(arrays, dict):
        raise ValueError(f"arrays must be a dict of name -> array, got {type(arrays).__name__}")
    return write_atomically(path, lambda f: np.savez_compressed(f, **arrays))


def stored_file(name: str, directory=None, command: str | None = None) -> Path:
    """The path of stored result ``name`` in ``directory`` (default :data:`FIGURES_DIR`).

    With ``command``, a missing file raises FileNotFoundError saying which command makes it.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str (a stored file's name), got {name!r}")
    if directory is not None and not isinstance(directory, (str, os.PathLike)):
        raise ValueError(f"directory must be None or a str or pathlib.Path, got {type(directory).__name__}")
    path = Path(FIGURES_DIR if directory is None else directory) / name
    if command is not None and directory is not None and not path.parent.is_dir():
        raise ValueError(f"directory must be an existing folder, got {str(directory)!r}")
    if command is not None and not path.is_file():
        raise FileNotFoundError(f"{path.name} is missing: run `{command}` to make it")
    return path


def load_json(name: str, directory=None, command: str | None = None):
    """Read stored JSON ``name`` from ``directory`` (default :data:`FIGURES_DIR`), see :func:`stored_file`."""
    return json.loads(stored_file(name, directory, command).read_text())


def load_npz(path) -> dict:
    """Every array of an ``.npz`` file (no pickles), as name → array."""
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def check_argv(argv) -> list[str] | None:
    """A command line's arguments: None (``sys.argv``) or a list of str (not one str, split by letter)."""
    if argv is not None and (isinstance(argv, (str, bytes)) or not isinstance(argv, (list, tuple))
                             or not all(isinstance(a, str) for a in argv)):
        raise ValueError(f"argv must be None or a list of str (the command line's arguments), got {argv!r}")
    return None if argv is None else list(argv)


class _StudyParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose ``parse_args`` refuses ``argv`` that is not a list of str (a study's
    ``main(argv)``: :func:`check_argv`)."""

    def parse_args(self, args=None, namespace=None):
        return super().parse_args(check_argv(args), namespace)


def study_parser(description: str, *, outdir: bool | str = True, jobs: int | None | bool = False,
                 times: str | None = None) -> argparse.ArgumentParser:
    """An ``argparse`` parser with the options every study shares.

    Parameters
    ----------
    description : str
    outdir : bool or "scratch"
        Add ``--outdir`` (default :data:`FIGURES_DIR`); ``"scratch"``: default None, the study
        choosing ``figures/`` for its published configuration and :data:`SCRATCH_DIR` for a quick
        or partial run.
    jobs : False, None or int
        Add ``--jobs`` unless False; its default (None: one worker process per core).
    times : str, optional
        Add ``--times FILE`` with this help text.
    """
    parser = _StudyParser(description=description)
    if outdir == "scratch":
        parser.add_argument("--outdir", default=None,
                            help="where to write (default: figures/ for the published configuration, "
                                 "build/studies/ for a quick or partial run)")
    elif outdir:
        parser.add_argument("--outdir", default=str(FIGURES_DIR))
    if jobs is not False:
        parser.add_argument("--jobs", type=int, default=jobs,
                            help="worker processes (default: " + ("one per core" if jobs is None
                                                                  else str(jobs)) + ")")
    if times is not None:
        parser.add_argument("--times", default=None, help=times)
    return parser


class TqdmProgress:
    """The studies' progress on the command line: a tqdm bar with the time left, on standard error.

    A progress callback of the library's shape, ``progress(done, total, what=None)``: the bar is
    made at the first call (starting at ``done``, so a resumed run's estimate counts only the work
    done now), moves to ``done`` at each call, and prints each ``what`` above the bar. The
    notebooks keep their widget (:class:`ensemble_lib.ui.progress.ProgressBar`).
    """

    def __init__(self, desc: str | None = None, file=None):
        self.desc, self.file, self.bar = desc, file, None

    def __call__(self, done: int, total: int, what: str | None = None) -> None:
        if self.bar is None:
            self.bar = tqdm(total=total, initial=done, desc=self.desc, unit="split", smoothing=0,
                            file=self.file if self.file is not None else sys.stderr, dynamic_ncols=True)
        if what:
            self.bar.write(what, file=self.bar.fp)
        self.bar.update(done - self.bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def print_progress(done: int, total: int, what: str | None = None) -> None:
    """The studies' progress callback on the command line: ``what (done of total)`` on standard error."""
    if what:
        print(f"{what} ({done} of {total})", file=sys.stderr, flush=True)


def write_times(obj: dict, path, sort_keys: bool = False) -> Path:
    """Write a command's wall times (kept apart from its results) as indented JSON."""
    return save_json(obj, path, indent=1, sort_keys=sort_keys)


def _number(cell: str) -> Decimal | None:
    try:
        value = Decimal(cell)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def csv_difference(made, stored) -> str | None:
    """``None`` if two CSVs agree cell by cell, numbers to one unit in their 6th significant figure.

    The same numbers can differ in their last bits on another CPU (numpy picks its SIMD kernels for
    the CPU it runs on; OpenBLAS splits sums by its thread count); a cell printed with ``%.6g`` that
    sits on a rounding boundary can then flip by one unit in its last digit.
    """
    with open(made, newline="") as f:
        a = list(csv.reader(f))
    with open(stored, newline="") as f:
        b = list(csv.reader(f))
    if [len(r) for r in a] != [len(r) for r in b]:
        return f"the table's shape changed: {len(a)} rows made, {len(b)} stored"
    for i, (ra, rb) in enumerate(zip(a, b)):
        for j, (x, y) in enumerate(zip(ra, rb)):
            if x == y:
                continue
            nx, ny = _number(x), _number(y)
            if nx is None or ny is None:
                return f"row {i}, column {j}: {x!r} made, {y!r} stored"
            # one unit in the 6th significant figure (``%.6g`` drops trailing zeros, so the printed
            # digits do not show it)
            unit = Decimal(1).scaleb(ny.adjusted() - (SIGNIFICANT - 1)) if ny else Decimal(0)
            if abs(nx - ny) > unit:
                return f"row {i}, column {j}: {x} made, {y} stored (more than {unit} apart)"
    return None


def png_difference(made, stored) -> str | None:
    """``None`` if two PNGs have one size and an RMS difference of at most :data:`PNG_RMS_TOL` levels.

    Moving a curve by 1e-8 changes a few antialiased pixels by one level (RMS about 0.002); one
    changed digit of a printed number moves the RMS by 0.3 or more.
    """
    with Image.open(made) as a, Image.open(stored) as b:
        if a.size != b.size:
            return f"size {a.size} made, {b.size} stored"
    # heavy import (0.3 s: matplotlib's test machinery), loaded on first use: every lesson imports this module
    from matplotlib.testing.compare import compare_images

    return compare_images(str(stored), str(made), tol=PNG_RMS_TOL)


def floating_point_difference(made, stored) -> str | None:
    """``None`` if ``made`` is ``stored`` up to floating point, else what differs.

    Equal bytes agree; a CSV by :func:`csv_difference`, a PNG by :func:`png_difference`; any other
    file must be equal byte for byte.
    """
    made, stored = Path(made), Path(stored)
    if not stored.is_file():
        return "no stored file"
    if made.read_bytes() == stored.read_bytes():
        return None
    if made.suffix == ".csv":
        return csv_difference(made, stored)
    if made.suffix == ".png":
        return png_difference(made, stored)
    return "the bytes differ"


def replace_if_changed(made, stored) -> bool:
    """Move ``made`` over ``stored`` (one ``os.replace``) unless they agree up to floating point.

    Returns True if ``stored`` was replaced; otherwise ``made`` is removed and ``stored`` keeps its
    bytes. Either way ``stored`` is at every moment the old file or the new one, never a mix.
    """
    for name, value in (("made", made), ("stored", stored)):
        if not isinstance(value, (str, os.PathLike)):
            raise ValueError(f"{name} must be a str or pathlib.Path, got {type(value).__name__}")
    made, stored = Path(made), Path(stored)
    if not made.is_file():
        raise ValueError(f"made must name an existing file, got {str(made)!r}")
    if floating_point_difference(made, stored) is None:
        made.unlink()
        return False
    stored.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(made, stored.stat().st_mode & 0o777 if stored.exists() else 0o644)
    os.replace(made, stored)
    return True


__all__ = ["FIGURES_DIR", "SCRATCH_DIR", "replace_if_changed", "stored_file"]
