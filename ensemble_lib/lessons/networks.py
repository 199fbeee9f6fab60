"""Lesson 4: ensemble learning for real networks — the 1-D demo panel and its figure.

Barber & Bishop (1998) §2.1–2.2; MacKay (1995) "Probable networks" §5.2
(predictive error bars gᵀA⁻¹g + 1/β). The fits live in
:mod:`ensemble_lib.inference.network_fits`, the Table-1 study in
:mod:`ensemble_lib.studies.table1`.

* :class:`Network1DPanel` (:func:`demo_fit`): the 1-D regression demo
  (sliders H, s, α or "adapt hyperparameters"), ensemble vs Laplace error bars;
* :func:`write_figures`: ``network_1d_demo.png``.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.hyperparameters import GammaHyperprior
from ..inference.network_fits import (CollapsedBound, fit_ensemble, fit_evidence, fit_family,
                                      laplace_error_bars, symmetry_factor)
from ..models.network import NetworkPosterior
from ..ui.panel import FigurePanel
from ..ui.plotting import replace_artists, save_figure

#: slider ranges of :class:`Network1DPanel`
H_RANGE = (1, 4)
S_RANGE = (0, 2)  # s = 0 is the diagonal family; k = 3H ≥ 3 so s ≤ 2 ≤ k − 1 always
LOG10_ALPHA_RANGE = (-2.0, 2.0)
#: noise precision used when the hyperparameters are not adapted (the data's 1/σ²)
DEMO_NOISE_SD = 0.1
DEMO_BETA = 1.0 / DEMO_NOISE_SD**2
DEMO_DEFAULTS = {"n_hidden": 2, "rank": 1, "alpha": 1.0, "adapt": True}
#: seed of the generator the demo panel and figure hand to :func:`demo_fit` (one fresh generator
#: per fit, so a setting gives the same fit whatever was computed before)
DEMO_SEED = 0


def demo_data(n: int = 16, seed: int = 3):
    """1-D regression data with a gap: x in [−2, −0.4] ∪ [0.6, 2], t = sin(1.5x) + N(0, 0.1²).

    Returns ``(x, t)``; ``seed`` fixes a ``numpy.random.default_rng``.
    """
    n = check.integer("n", n, low=4, high=1000)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = np.sort(np.concatenate([rng.uniform(-2.0, -0.4, n // 2), rng.uniform(0.6, 2.0, n - n // 2)]))
    return x, np.sin(1.5 * x) + DEMO_NOISE_SD * rng.standard_normal(n)


@dataclass(frozen=True)
class DemoState:
    """Predictions of the ensemble Q and of Laplace on a grid of x, with their hyperparameters."""

    n_hidden: int
    rank: int
    adapt: bool
    x_grid: np.ndarray = field(repr=False)
    ens_mean: np.ndarray = field(repr=False)
    ens_sd: np.ndarray = field(repr=False)
    lap_mean: np.ndarray = field(repr=False)
    lap_sd: np.ndarray = field(repr=False)
    ens_alpha: float
    ens_beta: float
    lap_alpha: float
    lap_beta: float
    bound: float
    lap_bound: float
    lap_log_evidence: float
    notes: tuple = ()
    #: hidden units in use (share of Σ_n⟨f²⟩ on the data ≥ 1%, :func:`~ensemble_lib.inference.pruning.unit_usage`)
    ens_active: int = 0
    lap_active: int = 0


def load_hmc_demo(directory=None) -> dict | None:
    """The stored HMC predictive band of the demo (``figures/hmc_demo.json``), or None if absent.

    It was sampled for the panel's default data with H = 2 and adapted α, β
    (``python -m ensemble_lib.studies.hmc_reference --datasets --demo``), so the panel draws it
    only at those settings.
    """
    import json
    from pathlib import Path

    from ..studies.hmc_reference import DEMO_FILE
    from ..ui.figures import DEFAULT_OUTDIR

    path = Path(DEFAULT_OUTDIR if directory is None else directory) / DEMO_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def _best_mode(post, rng, n_starts: int = 4):
    """Laplace at fixed α, β: the best of several random starts (highest log posterior)."""
    from ..inference.laplace import laplace_fit

    best = None
    for _ in range(n_starts):
        try:
            fit = laplace_fit(post, start=rng.standard_normal(post.dim), compute_kl=False)
        except ValueError:
            continue
        if best is None or post.log_unnorm(fit.mean) > post.log_unnorm(best.mean):
            best = fit
    if best is None:
        raise RuntimeError("every mode search ended at a saddle point")
    return best


def demo_fit(x, t, n_hidden: int, rank: int, alpha: float, adapt: bool,
             prior: GammaHyperprior | None = None, n_grid: int = 121,
             *, rng: np.random.Generator) -> DemoState:
    """Fit the 1-D demo: ensemble Q (diagonal for s = 0, else factor s) and Laplace.

    With ``adapt`` the hyperparameters are inferred (ensemble: Gamma
    hyperpriors, eqs 35–38 via :func:`fit_ensemble`; Laplace: MacKay's
    re-estimation via :func:`fit_evidence`) and ``alpha`` is ignored;
    otherwise both use the given α and β = 1/0.1². Error bars are one
    predictive standard deviation: ensemble ``√(⟨f²⟩ − ⟨f⟩² + 1/β̄)``,
    Laplace ``√(gᵀA⁻¹g + 1/β)`` (MacKay §5.2). ``rng`` draws the mode search's random
    restarts and the directions of the factors added to the diagonal fit (the panel and the figure
    pass ``numpy.random.default_rng(DEMO_SEED)``).
    """
    from ..models.network import add_bias

    n_hidden = check.integer("n_hidden", n_hidden, low=H_RANGE[0], high=H_RANGE[1])
    rank = check.integer("rank", rank, low=S_RANGE[0], high=S_RANGE[1])
    alpha = check.precision("alpha", alpha)
    adapt = check.flag("adapt", adapt)
    rng = check.generator("rng", rng)
    x = check.finite_vector("x", x, min_len=2)
    t = check.finite_vector("t", t, min_len=2)
    prior = GammaHyperprior() if prior is None else prior
    X = add_bias(x[:, None])
    post = NetworkPosterior(X, t, n_hidden, alpha=alpha, beta=DEMO_BETA)
    family = "diagonal" if rank == 0 else "factor"
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if adapt:
            ev = fit_evidence(post, rng, n_restarts=4)
            st = ev.final
            w_mp, A, la, lb = st.mean, st.hessian, st.alpha, st.beta
            lap_le = float(st.log_evidence)
            Ainv = st.cov
            start = [st.diagonal_start()]
            fit = fit_ensemble(post, prior, "diagonal", init=start, maxiter=1000)
            if rank:
                fit = fit_ensemble(post, prior, family, rank, warm=fit, gtol=1e-5, maxiter=300,
                                   rng=rng)
            ea, eb, F = fit.alpha, fit.beta, fit.bound
            lap_F = CollapsedBound(post, prior).bound(w_mp, Ainv)
        else:
            lap = _best_mode(post, rng)
            w_mp, A, la, lb, Ainv = lap.mean, lap.hessian, alpha, DEMO_BETA, lap.cov
            lap_le = float(lap.log_evidence_laplace + math.log(symmetry_factor(n_hidden)))
            start = [lap.diagonal_start()]
            fit = fit_family(post, "diagonal", init=start, maxiter=1000)
            if rank:
                fit = fit_family(post, family, rank, warm=fit, gtol=1e-5, maxiter=300, rng=rng)
            ea, eb, F, lap_F = alpha, DEMO_BETA, fit.bound, lap.bound
    notes = tuple(sorted({str(c.message).split(":")[0] for c in caught}))
    xg = np.linspace(-3.0, 3.0, check.integer("n_grid", n_grid, low=10, high=10_000))
    Xg = add_bias(xg[:, None])
    em = post.predictive_mean(fit.mean, fit.cov, Xg)
    ev_ = post.predictive_variance(fit.mean, fit.cov, Xg, beta=eb)
    lm, lv = laplace_error_bars(post, w_mp, A, lb, Xg)
    from ..inference.pruning import unit_usage

    return DemoState(n_hidden, rank, bool(adapt), xg, em, np.sqrt(ev_), lm, np.sqrt(lv),
                     float(ea), float(eb), float(la), float(lb), float(F), float(lap_F), lap_le,
                     notes, ens_active=unit_usage(fit.mean, fit.cov, X, n_hidden).n_active,
                     lap_active=unit_usage(w_mp, None, X, n_hidden).n_active)


class _DemoPlot:
    """The demo's artists: data, ensemble mean and ±2 s.d. band, Laplace mean and ±2 s.d. lines."""

    def __init__(self, ax, x, t, hmc: dict | None = None, legend_alpha: float | None = None):
        from ..ui.plotting import COLORS

        self.ax = ax
        self.legend_alpha = legend_alpha  # None: matplotlib's default
        self.c_ens, self.c_lap = COLORS["factor"], COLORS["laplace"]
        (self.data_line,) = ax.plot(x, t, "o", color="0.2", ms=4, label="data", zorder=5)
        # the stored HMC band: only for the data and setting it was sampled for
        self.hmc = hmc if hmc is not None and np.allclose(hmc["x"], x) and np.allclose(hmc["t"], t) else None
        self.hmc_lines = []
        if self.hmc is not None:
            xg, c = self.hmc["x_grid"], COLORS["posterior"]
            self.hmc_lines = [ax.plot(xg, self.hmc["mean"], color=c, lw=1.2, label="HMC mean (H = "
                                      f"{self.hmc['n_hidden']}, adapted)")[0],
                              ax.plot(xg, self.hmc["upper"], color=c, lw=0.8, ls="-.",
                                      label="HMC ± 2 s.d.")[0],
                              ax.plot(xg, self.hmc["lower"], color=c, lw=0.8, ls="-.")[0]]
        (self.ens_line,) = ax.plot([], [], color=self.c_ens, lw=2, label="ensemble ⟨f(x)⟩")
        self.band = []
        (self.lap_line,) = ax.plot([], [], color=self.c_lap, lw=1.5, ls="--", label="Laplace f(x, w_MP)")
        (self.lap_hi,) = ax.plot([], [], color=self.c_lap, lw=1, ls=":", label="Laplace ± 2 s.d.")
        (self.lap_lo,) = ax.plot([], [], color=self.c_lap, lw=1, ls=":")
        ax.set_xlim(-3.0, 3.0)
        ax.set_ylim(-2.5, 2.5)
        ax.set_xlabel("x")
        ax.set_ylabel("t")
        self.title = ax.set_title(" ")
        self.legend_hmc = None  # whether the legend lists the HMC lines (None: no legend yet)

    def update(self, s: DemoState):
        xg = s.x_grid
        shown = self.hmc is not None and s.adapt and s.n_hidden == self.hmc["n_hidden"]
        for line in self.hmc_lines:
            line.set_visible(shown)
        self.ens_line.set_data(xg, s.ens_mean)
        self.band = replace_artists(self.band, lambda: [self.ax.fill_between(
            xg, s.ens_mean - 2 * s.ens_sd, s.ens_mean + 2 * s.ens_sd, color=self.c_ens, alpha=0.2, lw=0,
            label="ensemble ± 2 s.d.")])
        self.lap_line.set_data(xg, s.lap_mean)
        self.lap_hi.set_data(xg, s.lap_mean + 2 * s.lap_sd)
        self.lap_lo.set_data(xg, s.lap_mean - 2 * s.lap_sd)
        fam = "diagonal" if s.rank == 0 else f"factor s = {s.rank}"
        how = "adapted α, β" if s.adapt else f"fixed α = {s.ens_alpha:.3g}, β = {s.ens_beta:.3g}"
        self.title.set_text(f"H = {s.n_hidden}, Q {fam}, {how}")
        if self.ax.get_legend() is None or shown != self.legend_hmc:  # what it lists changed
            handles, labels = self.ax.get_legend_handles_labels()
            keep = [(h, lab) for h, lab in zip(handles, labels) if h.get_visible()]
            handles, labels = [h for h, _ in keep], [lab for _, lab in keep]
            if self.ax.get_legend() is not None:
                self.ax.get_legend().remove()
            self.ax.legend(handles, labels, loc="lower right", fontsize=7, framealpha=self.legend_alpha)
            self.legend_hmc = shown

    def artists(self) -> list:
        """What :meth:`update` changes at every step, in drawing order (the legend changes only
        when the HMC lines are shown or hidden)."""
        return [*self.hmc_lines, *self.band, self.ens_line, self.lap_line, self.lap_hi, self.lap_lo,
                self.data_line, self.title]  # the data over the curves, as their zorder says


#: :func:`demo_fit` on the default data (:func:`demo_data`), by :func:`_memo_key`: shared by the
#: figure and every panel on that data. A fit is a deterministic function of its settings (its
#: generator is ``default_rng(DEMO_SEED)``), so a panel built after the figure, or a second panel,
#: takes the fits already made instead of repeating them.
_DEFAULT_DATA_FITS: dict = {}
#: every setting of the panel on its default data, fitted once (:mod:`ensemble_lib.studies.network_demo`)
DEMO_STORE_FILE = "network_demo_fits.npz"
_STORE_READ = False


def load_demo_store(directory=None, n_grid: int = 121) -> dict:
    """The stored demo fits (``figures/network_demo_fits.npz``): memo key → :class:`DemoState`.

    Written by ``python -m ensemble_lib.studies.network_demo`` for every setting of the panel's
    controls on :func:`demo_data`. Empty if the file is absent, or if its data or x grid are not
    the panel's (then the panel fits as it goes).
    """
    from ..ui.figures import DEFAULT_OUTDIR

    path = Path(DEFAULT_OUTDIR if directory is None else directory) / DEMO_STORE_FILE
    if not path.is_file():
        return {}
    import json

    with np.load(path, allow_pickle=False) as z:
        a = {k: z[k] for k in z.files}
    x, t = demo_data()
    if not (np.array_equal(a["x"], x) and np.array_equal(a["t"], t)
            and np.array_equal(a["x_grid"], np.linspace(-3.0, 3.0, n_grid))):
        return {}
    names = [str(n) for n in a["scalar_names"]]
    out = {}
    for i in range(a["n_hidden"].size):
        h, r, adapt = int(a["n_hidden"][i]), int(a["rank"][i]), bool(a["adapt"][i])
        alpha = 1.0 if adapt else 10.0 ** float(a["log10_alpha"][i])
        sc = dict(zip(names, (float(v) for v in a["scalars"][i])))
        out[_memo_key(h, r, alpha, adapt)] = DemoState(
            h, r, adapt, a["x_grid"], a["ens_mean"][i], a["ens_sd"][i], a["lap_mean"][i], a["lap_sd"][i],
            notes=tuple(json.loads(str(a["notes"][i]))), ens_active=int(a["active"][i, 0]),
            lap_active=int(a["active"][i, 1]), **sc)
    return out


def _default_fits() -> dict:
    """The memo shared by every panel on the default data and the figure, with the store read in once."""
    global _STORE_READ
    if not _STORE_READ:
        _STORE_READ = True
        for key, state in load_demo_store().items():
            _DEFAULT_DATA_FITS.setdefault(key, state)
    return _DEFAULT_DATA_FITS


def _memo_key(n_hidden, rank, alpha, adapt) -> tuple:
    """One demo fit's settings as a dictionary key (α is ignored when it is adapted)."""
    return (int(n_hidden), int(rank), None if adapt else round(math.log10(alpha), 6), bool(adapt))


def demo_figure(state: DemoState | None = None, data=None):
    """The static 1-D demo at the default slider values (``figures/network_1d_demo.png``)."""
    from ..ui.plotting import new_figure

    x, t = demo_data() if data is None else data
    if state is None:
        key = _memo_key(**DEMO_DEFAULTS)
        memo = _default_fits() if data is None else {}
        if key not in memo:
            memo[key] = demo_fit(x, t, **DEMO_DEFAULTS, rng=np.random.default_rng(DEMO_SEED))
        state = memo[key]
    fig, ax = new_figure(7.0, 4.0)
    _DemoPlot(ax, x, t, load_hmc_demo()).update(state)
    return fig, state


def format_demo_readout(s: DemoState) -> str:
    """Plain-text readout of a :class:`DemoState` (the panel escapes it)."""
    text = (f"ensemble: alpha = {s.ens_alpha:.4g}, beta = {s.ens_beta:.4g}, bound F = {s.bound:.3f}; "
            f"Laplace: alpha = {s.lap_alpha:.4g}, beta = {s.lap_beta:.4g}, ln P(D) (MacKay (20)) = "
            f"{s.lap_log_evidence:.3f}, bound of N(w_MP, A^-1) = {s.lap_bound:.3f}; "
            f"error bar at x = 0 (in the gap): ensemble {s.ens_sd[s.x_grid.size // 2]:.3f}, "
            f"Laplace {s.lap_sd[s.x_grid.size // 2]:.3f}; "
            f"active hidden units: ensemble {s.ens_active} of {s.n_hidden}, Laplace {s.lap_active} "
            f"of {s.n_hidden}")
    if s.notes:
        text += " | note: " + " ".join(explain_note(n) for n in s.notes)
    return text


def explain_note(note: str) -> str:
    """A fit's warning (the first part of its message) said in words a student understands.

    The fits stop at a step limit so that the panel stays responsive; a fit stopped
    there is close to, but not exactly at, the best Q of its family.
    """
    m = re.match(r"(fit_family|fit_ensemble|kl_fit) \((\w+), s=(\d+)\) stopped before converging", note)
    if m:
        family = {"diagonal": "diagonal", "factor": f"factor (s = {m.group(3)})", "full": "full"}.get(
            m.group(2), m.group(2))
        return (f"the {family} ensemble fit reached its step limit before it had fully converged, "
                "so its bound F may still be slightly too low and its error bars slightly off; "
                "the picture is close to, not exactly, the best Q of this family.")
    return f"a fit reported: {note}."


class Network1DPanel(FigurePanel):
    """Sliders H, s, α and an "adapt hyperparameters" box; ensemble vs Laplace error bars.

    Every fit is memoised, so returning to a setting costs only the redraw; on the default
    data the memo is shared with :func:`demo_figure` and every other such panel, and holds every
    setting of the controls from the start (:func:`load_demo_store`), so no step waits for a fit.
    With "adapt" ticked the α slider is ignored (α, β are inferred).

    Parameters
    ----------
    data : (x, t), optional
        Default :func:`demo_data`.
    """

    #: fewer pixels: faster steps
    dpi = 80
    #: fixed axes: a step redraws the curves, the band and the title over the rest, and puts the
    #: (opaque) legend back on top
    blit = True

    def __init__(self, data=None):
        import ipywidgets as w

        from ..ui.plotting import new_figure

        self.x, self.t = demo_data() if data is None else data
        self._memo: dict = _default_fits() if data is None else {}
        fig, ax = new_figure(7.0, 3.8)
        self.plot = _DemoPlot(ax, self.x, self.t, load_hmc_demo(), legend_alpha=1.0)
        d = DEMO_DEFAULTS
        a_lo, a_hi = 10.0 ** LOG10_ALPHA_RANGE[0], 10.0 ** LOG10_ALPHA_RANGE[1]
        controls = {
            "n_hidden": self.slider("hidden units H", d["n_hidden"], *H_RANGE),
            "rank": self.slider("factors s (0 = diagonal)", d["rank"], *S_RANGE),
            "alpha": self.slider("prior precision α", d["alpha"], a_lo, a_hi, step=0.25, log=True),
            "adapt": w.Checkbox(value=d["adapt"], description="adapt hyperparameters α, β"),
        }
        self.draw(self.compute(**{k: c.value for k, c in controls.items()}))
        super().__init__(controls, fig, columns=2)

    def inactive_controls(self, n_hidden, rank, alpha, adapt) -> set[str]:
        """The α slider is shown disabled while α, β are adapted (it is ignored then)."""
        return {"alpha"} if adapt else set()

    def compute(self, n_hidden, rank, alpha, adapt):
        n_hidden = check.integer("n_hidden", n_hidden, low=H_RANGE[0], high=H_RANGE[1])
        rank = check.integer("rank", rank, low=S_RANGE[0], high=S_RANGE[1])
        alpha = check.precision("alpha", alpha)
        adapt = check.flag("adapt", adapt)
        key = _memo_key(n_hidden, rank, alpha, adapt)
        if key not in self._memo:
            self._memo[key] = demo_fit(self.x, self.t, n_hidden, rank, alpha, adapt,
                                       rng=np.random.default_rng(DEMO_SEED))
        return self._memo[key]

    def animated_artists(self) -> list:
        return self.plot.artists()

    def overlay_artists(self) -> list:
        """The legend, over the curves."""
        return [self.plot.ax.get_legend()]

    def background_key(self):
        """The static parts (fixed axes, the legend) take two forms: the legend lists the HMC
        lines or not (H = 2 adapted, or any other setting)."""
        return bool(self.plot.legend_hmc)

    def draw(self, state: DemoState) -> None:
        legend = self.plot.ax.get_legend()
        self.plot.update(state)
        if self.plot.ax.get_legend() is not legend:  # the HMC lines were shown or hidden
            self.invalidate_background()

    def format_readout(self, state: DemoState) -> str:
        import html

        return html.escape(format_demo_readout(state))


def write_figures(outdir) -> list[Path]:
    """Write ``network_1d_demo.png`` into ``outdir``."""
    fig, _ = demo_figure()
    return [save_figure(fig, Path(outdir) / "network_1d_demo.png")]
