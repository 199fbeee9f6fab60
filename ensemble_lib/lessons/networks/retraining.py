"""Lesson 4's §8: cheap predictive distributions by noisy retraining (MacKay §9.2;
:mod:`ensemble_lib.studies.retraining_demo`)."""



from ...core import validation as check
from ...studies.retraining_demo import N_MACKAY, VARIANTS, RetrainingSummary, retraining_rows, retraining_summary
from ...ui.plotting import COLORS, new_figure, style
from ...ui.tables import Table


# ---------------------------------------------------------------------------
# §8: cheap predictive distributions by noisy retraining (MacKay §9.2; studies.retraining_demo)
# ---------------------------------------------------------------------------

def retraining_table(s: RetrainingSummary) -> Table:
    """Each method's predictive s.d. in the gap (x = 0) and inside the data (x = 1.5)."""
    return Table(("method", "s.d. at x = 0 (gap)", "at x = 1.5 (data)"), retraining_rows(s), widths=(-44, 19, 17))


def plot_retraining(ax, s: RetrainingSummary, variant: str = "prior"):
    """One panel: the data, twelve retrained networks, their band (all draws) and the other bands."""
    xg = s.x_grid
    key = "retrain" if variant == "prior" else "retrain_no_prior"
    out = [ax.fill_between(xg, s.mean[key] - 2 * s.sd[key], s.mean[key] + 2 * s.sd[key], color=COLORS["map"],
                           alpha=0.2, lw=0, label=f"{s.n_draws} retrained: ± 2 s.d.")]
    for j, y in enumerate(s.curves[variant][:N_MACKAY]):
        out += ax.plot(xg, y, color=COLORS["map"], lw=0.7, alpha=0.8,
                       label=f"{N_MACKAY} retrained networks" if j == 0 else None)
    for m, lab in (("laplace", "Laplace"), ("ensemble", "ensemble (s = 1)"), ("hmc", "HMC")):
        st = style({"ensemble": "factor"}.get(m, m), lw=1.1, ms=4, markevery=0.25)
        out += ax.plot(xg, s.mean[m] + 2 * s.sd[m], **st, label=f"{lab} ± 2 s.d.")
        out += ax.plot(xg, s.mean[m] - 2 * s.sd[m], **st)
    out += ax.plot(s.x, s.t, **style("data", ms=4), label="data", zorder=5)
    ax.set_xlim(-3.0, 3.0)
    ax.set_ylim(-3.0, 3.0)
    ax.set_xlabel("x")
    ax.set_title("prior mean perturbed, m_j ~ N(0, I/α)" if variant == "prior" else "prior mean fixed at 0")
    return out


def retraining_figure(s: RetrainingSummary | None = None):
    """Both panels side by side (with and without the perturbed prior mean)."""
    s = retraining_summary() if s is None else check.instance("s", s, RetrainingSummary, "a RetrainingSummary or None")
    fig, axes = new_figure(10.0, 4.0, ncols=2, sharey=True)
    for ax, v in zip(axes, VARIANTS):
        plot_retraining(ax, s, v)
    axes[0].set_ylabel("t")
    axes[1].legend(loc="lower right", fontsize=7)
    return fig


__all__ = ["retraining_figure", "retraining_table"]
