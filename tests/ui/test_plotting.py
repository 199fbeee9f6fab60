"""Plot helpers take an ax, draw on it, and return the artists they made."""

import itertools
import math

import matplotlib as mpl
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from matplotlib.colors import to_hex, to_rgba
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Ellipse

from ensemble_lib.ui.plotting import (COLORS, NICE_MANTISSAS, OKABE_ITO, STYLE_ALIASES, STYLES, annotate_kl, figure_png,
                                       new_figure, nice_ceiling, nice_range, plot_gaussian_ellipses,
                                       plot_posterior_contours, style, update_gaussian_ellipses)
from ensemble_lib.models.toy import make_posterior


def test_helpers_draw_on_the_given_axes_and_return_artists():
    fig, ax = new_figure()
    arts = plot_posterior_contours(ax, make_posterior(0).grid(n=41))
    arts += plot_gaussian_ellipses(ax, [0.1, -0.2], np.array([[0.04, 0.01], [0.01, 0.09]]))
    text = annotate_kl(ax, {"laplace": 41.0, "full": 3.9})
    assert len(arts) >= 5 and all(getattr(a, "axes", ax) is ax for a in arts)
    assert "KL(Laplace) = 41.00" in text.get_text() and text.axes is ax
    assert figure_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_ellipses_have_the_gaussians_axes_and_move_in_place():
    fig, ax = new_figure()
    C = np.array([[4.0, 0.0], [0.0, 1.0]])
    arts = plot_gaussian_ellipses(ax, [0.0, 0.0], C, n_sigmas=(1, 2))
    assert (arts[0].width, arts[0].height) == pytest.approx((4.0, 2.0))
    assert (arts[1].width, arts[1].height) == pytest.approx((8.0, 4.0))
    update_gaussian_ellipses(arts, [1.0, 2.0], np.array([[1.0, 0.0], [0.0, 9.0]]), n_sigmas=(1, 2))
    assert tuple(arts[0].center) == (1.0, 2.0)
    assert (arts[0].width, arts[0].height) == pytest.approx((6.0, 2.0))  # major axis now along v
    assert arts[0].angle % 180 == pytest.approx(90.0)


@given(st.floats(1e-300, 1e300))
def test_nice_ceiling_is_the_next_nice_number_at_most_a_third_above(x):
    y = nice_ceiling(x)
    assert x <= y <= x * 4 / 3 * (1 + 1e-12)
    mantissa = y / 10.0 ** math.floor(math.log10(y) + 1e-12)
    assert any(math.isclose(mantissa, m, rel_tol=1e-9) for m in NICE_MANTISSAS)


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6), st.integers(1, 20), st.sampled_from([0.0, 0.03]))
def test_nice_range_covers_the_range_with_nice_ends(lo, span, steps, pad):
    hi = lo + span
    assume(hi > lo)
    a, b = nice_range(lo, hi, steps=steps, pad=pad)
    assert a <= lo and b >= hi
    core = (b - a) / (1 + 2 * pad)
    span = hi - lo  # as the floats have it
    step = nice_ceiling(span / steps)
    # ends on multiples of the step (before the pad), at most one step beyond each end
    assert core <= span + 2 * step * (1 + 1e-9) + 1e-9 * abs(lo)
    a0 = a + pad * core
    assert a0 / step == pytest.approx(round(a0 / step), abs=1e-6, rel=1e-9)


def test_nice_range_on_a_log_axis_and_its_steps():
    assert nice_range(0.13, 2.71) == (0.0, 3.0)
    assert nice_range(-3.3, 4.1) == (-4.5, 4.5)
    assert nice_range(1e-3, 50.0, log=True) == pytest.approx((1e-3, 100.0))
    # neighbouring ranges share their limits: what lets a panel keep its ticks in the background
    assert len({nice_range(0.1 + d, 2.6 + d) for d in np.linspace(0.0, 0.05, 11)}) == 1


@pytest.mark.parametrize("call, match", [
    (lambda: nice_ceiling(0.0), "x"), (lambda: nice_ceiling(np.inf), "x"), (lambda: nice_ceiling("1"), "x"),
    (lambda: nice_range(2.0, 1.0), "lo, hi"), (lambda: nice_range(0.0, 1.0, log=True), "lo, hi"),
    (lambda: nice_range(0.0, np.nan), "lo, hi"), (lambda: nice_range(0.0, 1.0, steps=0), "steps"),
    (lambda: nice_range(0.0, 1.0, pad=0.6), "pad"),
])
def test_nice_helpers_refuse_bad_input_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------------------
# Readable without colour (issue 34, item 4): one look per method
# ---------------------------------------------------------------------------

#: Okabe & Ito (2008), "Color universal design": the eight colours, as published
PUBLISHED_OKABE_ITO = {"#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"}
_NAMED_LINESTYLES = {"solid": "-", "dashed": "--", "dashdot": "-.", "dotted": ":",
                     "none": "None", " ": "None", "": "None"}


def _dashes(ls):
    """A line style as a comparable value: named styles to their short form, dash tuples as tuples."""
    if isinstance(ls, str):
        return _NAMED_LINESTYLES.get(ls.lower(), ls)
    offset, seq = ls
    return (float(offset), tuple(float(x) for x in seq) if seq is not None else None)


def _marker(m):
    return "None" if m in (None, "", " ", "none", "None") else MarkerStyle(m).get_marker()


def _told_apart_only_by_colour(styles: dict) -> list[tuple[str, str]]:
    """The pairs of methods whose line style and marker are both the same."""
    look = {k: (_dashes(v["linestyle"]), _marker(v["marker"])) for k, v in styles.items()}
    return [(a, b) for a, b in itertools.combinations(look, 2) if look[a] == look[b]]


def _off_palette(colors: dict) -> dict:
    return {k: c for k, c in colors.items() if to_hex(c) not in PUBLISHED_OKABE_ITO}


def test_every_method_differs_from_every_other_in_line_style_or_marker():
    assert len(STYLES) >= 10
    for key in ("posterior", "laplace", "diagonal", "factor", "full", "mixture", "svi", "hmc", "map", "data"):
        assert key in STYLES
    assert _told_apart_only_by_colour(STYLES) == []
    # the check can fail: Laplace drawn like the full fit, in its own colour, is caught
    like_full = {**STYLES, "laplace": {**STYLES["full"], "color": STYLES["laplace"]["color"]}}
    assert _told_apart_only_by_colour(like_full) == [("laplace", "full")]
    # ... and so is a named alias of the same line style
    alias = {"a": dict(linestyle="dashed", marker="o"), "b": dict(linestyle="--", marker="o")}
    assert _told_apart_only_by_colour(alias) == [("a", "b")]


def test_the_palette_is_okabe_ito_and_colors_follow_styles():
    assert {to_hex(c) for c in OKABE_ITO.values()} == PUBLISHED_OKABE_ITO
    assert _off_palette({k: v["color"] for k, v in STYLES.items()}) == {}
    assert COLORS == {k: v["color"] for k, v in STYLES.items()}
    # the check can fail: matplotlib's default red and green (the old Laplace and full KL) are refused
    assert set(_off_palette({"laplace": "#d62728", "full": "#2ca02c", "ok": "#D55E00"})) == {"laplace", "full"}


def test_style_gives_line_keywords_with_overrides_under_their_long_names():
    kw = style("laplace", lw=2, ls=":")
    assert kw == dict(color=STYLES["laplace"]["color"], linestyle=":", marker=STYLES["laplace"]["marker"],
                      markevery=kw["markevery"], linewidth=2)
    assert style("exact") == style("posterior")
    fig, ax = new_figure()
    (line,) = ax.plot(np.linspace(0, 1, 200), np.linspace(0, 1, 200), **style("svi"), label="svi")
    assert (line.get_linestyle(), line.get_marker()) == ("--", "v")
    assert line.get_markevery() is not None  # markers along a dense curve, not at all 200 points
    figure_png(fig)
    with pytest.raises(ValueError, match="method must be one of"):
        style("nonsense")


def test_ellipses_take_the_methods_line_style_and_mark_the_mean_with_its_marker():
    fig, ax = new_figure()
    arts = plot_gaussian_ellipses(ax, [0.0, 0.0], np.eye(2), n_sigmas=(1, 2), label="Laplace", **style("laplace"))
    ellipses, (mean,) = arts[:2], arts[2:]
    assert all(_dashes(e.get_linestyle()) == "--" and e.get_edgecolor() == to_rgba(COLORS["laplace"])
               for e in ellipses)
    assert (mean.get_marker(), mean.get_linestyle()) == ("s", "--")
    # the legend's entry is the mean's marker drawn with the line style: both show
    handles, labels = ax.get_legend_handles_labels()
    assert labels == ["Laplace"] and handles[0] is mean


def _assert_drawn_in_style(ellipse: Ellipse, mean, key: str):
    want = STYLES[key]
    assert ellipse.get_edgecolor() == to_rgba(want["color"]), key
    assert _dashes(ellipse.get_linestyle()) == _dashes(want["linestyle"]), key
    assert _marker(mean.get_marker()) == _marker(want["marker"]), key


def test_a_lessons_figures_draw_each_method_in_its_style():
    """Fig. 2 (ellipses) and the KL-against-α plot (lines) of lesson 1, artist by artist."""
    from ensemble_lib.inference.toy_fits import fit_all
    from ensemble_lib.lessons.toy_posterior import plot_fig2, plot_kl_table

    post = make_posterior(0)
    fig, axes = new_figure(nrows=2, ncols=2)
    plot_fig2(axes, fit_all(post), grid=post.grid(n=31))
    for ax, key in zip(np.ravel(axes)[1:], ("laplace", "diagonal", "full")):
        ellipses = [p for p in ax.patches if isinstance(p, Ellipse)]
        means = [ln for ln in ax.lines if len(ln.get_xdata()) == 1]
        assert len(ellipses) == 3 and len(means) == 1
        for e in ellipses:
            _assert_drawn_in_style(e, means[0], key)
    # the check can fail: the old look (every method solid, a dot at the mean) is not Laplace's
    fig2, ax2 = new_figure()
    old = plot_gaussian_ellipses(ax2, [0.0, 0.0], np.eye(2), color=COLORS["laplace"])
    with pytest.raises(AssertionError):
        _assert_drawn_in_style(old[0], old[-1], "laplace")

    rows = [{"alpha": a, "seed": s, "laplace": 40.0 + s, "diagonal": 4.0 + s, "full": 1.0 + s}
            for a in (0.1, 1.0) for s in range(3)]
    fig, ax = new_figure()
    plot_kl_table(ax, rows)
    medians = {ln.get_label(): ln for ln in ax.lines if not ln.get_label().startswith("_")}
    assert len(medians) == 3
    looks = set()
    for key, label in (("laplace", "Laplace"), ("diagonal", "KL, diagonal"), ("full", "KL, full")):
        ln = medians[f"{label} (median)"]
        assert to_rgba(ln.get_color()) == to_rgba(STYLES[key]["color"])
        assert (_dashes(ln.get_linestyle()), _marker(ln.get_marker())) == (
            _dashes(STYLES[key]["linestyle"]), _marker(STYLES[key]["marker"]))
        looks.add((ln.get_linestyle(), ln.get_marker()))
    assert len(looks) == 3  # told apart in grey, too
    assert mpl.colors.to_hex(medians["Laplace (median)"].get_color()) == "#d55e00"


def _in_style(line, key: str, color: bool = True) -> bool:
    """``line`` has ``key``'s line style and marker (and colour, unless ``color`` is false)."""
    want = STYLES[STYLE_ALIASES.get(key, key)]
    same = (_dashes(line.get_linestyle()), _marker(line.get_marker())) == (_dashes(want["linestyle"]),
                                                                          _marker(want["marker"]))
    return same and (not color or to_rgba(line.get_color()) == to_rgba(want["color"]))


def test_lesson_2s_fig1b_draws_the_likelihood_and_the_evidence_in_their_styles():
    from ensemble_lib.lessons.mean_sigma import plot_fig1b

    fig, ax = new_figure()
    arts = plot_fig1b(ax, n=50)
    lines = {ln.get_label(): ln for ln in arts if hasattr(ln, "get_marker")}
    assert _in_style(lines["P(D | μ = x̄, σ)"], "map") and _in_style(lines["evidence P(D | σ)"], "evidence")
    assert not _in_style(lines["P(D | μ = x̄, σ)"], "evidence")  # the check can fail
    figure_png(fig)


def test_lesson_6s_occam_and_pruning_plots_draw_each_method_in_its_style():
    from types import SimpleNamespace

    from ensemble_lib.lessons.model_choice.occam import plot_occam
    from ensemble_lib.lessons.model_choice.pruning import plot_pruning_study

    rows = [SimpleNamespace(label=f"m {i}", log_evidence_exact=-i, log_evidence_laplace=-i - 0.1, bound=-i - 0.2)
            for i in range(3)]
    fig, ax = new_figure()
    plot_occam(ax, rows)
    exact, laplace, bound = ax.lines
    assert _in_style(exact, "exact") and _in_style(laplace, "laplace") and _in_style(bound, "full")
    assert not _in_style(exact, "laplace")

    steps = [{"weight": 1, "log_evidence": -5.0 - j, "test_mse": 0.3 + j / 10} for j in range(4)]
    split = {"index": 0, "log_evidence": -4.0, "test_mse": 0.3,
             "sequences": {"evidence": {"steps": steps, "stop_step": 2}, "obd": {"steps": steps}}}
    fig, axes = new_figure(ncols=2)
    plot_pruning_study(axes, {"splits": [split]})
    for ax in axes:
        by_evidence, by_obd = ax.lines[:2]
        assert _in_style(by_evidence, "evidence", color=False) and _in_style(by_obd, "obd", color=False)
        assert to_hex(by_evidence.get_color()) in PUBLISHED_OKABE_ITO
    figure_png(fig)


def test_lesson_6s_hyperparameter_error_bars_draw_each_method_in_its_style():
    from ensemble_lib.lessons.model_choice.hyper_error_bars import hyper_error_bar_demo, plot_hyper_error_bars

    fig, axes = new_figure(ncols=2)
    plot_hyper_error_bars(axes, hyper_error_bar_demo(3))
    lines = {ln.get_label(): ln for ln in axes[1].lines}
    assert _in_style(lines["gᵀA⁻¹g"], "map") and _in_style(lines["MacKay §5.2.2 extra"], "hyper_term")
    assert _in_style(lines["exact spread of the mean"], "exact")
    assert not _in_style(lines["gᵀA⁻¹g"], "hyper_term")


def test_lesson_5s_runs_differ_in_marker_as_well_as_colour():
    from types import SimpleNamespace

    from ensemble_lib.lessons.stochastic_vi import _plot_run

    fig, ax = new_figure()
    x = np.arange(1.0, 50.0)
    one = _plot_run(ax, x, 1 / x, SimpleNamespace(n_samples=1, schedule="fixed", family="full", step_size=0.01))
    many = _plot_run(ax, x, 1 / x, SimpleNamespace(n_samples=16, schedule="fixed", family="full", step_size=0.01))
    assert _marker(one[-1].get_marker()) != _marker(many[-1].get_marker())
    assert {to_hex(one[-1].get_color()), to_hex(many[-1].get_color())} <= PUBLISHED_OKABE_ITO


def test_bars_of_lessons_3_and_4_have_a_hatch_per_method():
    from ensemble_lib.lessons.bound.bound_panel import plot_bound_bars
    from ensemble_lib.lessons.networks import plot_table

    fig, ax = new_figure()
    arts = plot_bound_bars(ax, 0.0, {"laplace": -2.0, "diagonal": -1.0, "full": -0.5})
    hatches = [r.get_hatch() for r in arts["bars"]]
    assert all(hatches) and len(set(hatches)) == 3

    methods = {k: {"label": k, "test_mse": {"mean": 0.3, "se": 0.01}}
               for k in ("ensemble_s1", "ensemble_diagonal", "laplace_evidence", "ensemble_full")}
    fig, ax = new_figure()
    plot_table(ax, {"methods": methods, "splits": [0], "baseline_mse": {"mean": 1.0}, "dataset": "x"})
    rects = [p for p in ax.patches if p.get_height() > 0 and p.get_width() > 0.2]
    assert len(rects) == 4 and len({r.get_hatch() for r in rects}) == 4
    assert {to_hex(r.get_edgecolor()) for r in rects} <= PUBLISHED_OKABE_ITO


def _markers_of(lines) -> list[str]:
    return [_marker(ln.get_marker()) for ln in lines]


def test_lesson_4s_pruning_plot_tells_each_family_apart_by_its_marker():
    """Every fit (hollow) and every family best (filled) in its family's STYLES marker and colour."""
    from ensemble_lib.lessons.networks import FAMILY_STYLES, plot_pruning

    families = list(FAMILY_STYLES)
    trials = [{"family": f, "active_units": 1 + i % 3, "bound": -float(i), "test_mse": 0.2 + i / 50}
              for i, f in enumerate(families * 2)]
    methods = {f: {"active_units": 2, "test_mse": 0.3} for f in families}
    split = {"index": 0, "trials": trials, "methods": {**methods, "laplace_evidence": {"test_mse": 0.4}}}
    result = {"splits": [split], "config": {"n_hidden": 4}, "dataset": "x",
              "methods": {f: {} for f in families}}
    fig, (ax_units, ax_bound) = new_figure(ncols=2)
    plot_pruning(ax_units, ax_bound, result)
    n = len(trials)

    def looks_like(ln, family, hollow):
        want = STYLES[FAMILY_STYLES[family]]
        face = ln.get_markerfacecolor()
        return (_marker(ln.get_marker()) == _marker(want["marker"]) and _dashes(ln.get_linestyle()) == "None"
                and to_hex(ln.get_markeredgecolor() if hollow else face) == to_hex(want["color"])
                and (face == "none") == hollow)

    for ax in (ax_units, ax_bound):  # every fit hollow, in its family's marker
        assert all(looks_like(ln, t["family"], True) for ln, t in zip(ax.lines[:n], trials))
    bests = ax_units.lines[n:n + len(families)]  # the family bests filled
    assert all(looks_like(ln, f, False) for ln, f in zip(bests, families))
    legend = {ln.get_label(): ln for ln in ax_units.lines if not ln.get_label().startswith("_")}
    assert len(legend) == len(families)
    looks = {_marker(STYLES[m]["marker"]) for m in FAMILY_STYLES.values()}
    assert len(looks) == len(families)  # told apart in grey, too
    assert set(_markers_of(legend.values())) == looks
    # the check can fail: the old plain dot of a fit is not its family's look
    (old_dot,) = ax_bound.plot([0.0], [0.0], ".", color=STYLES["diagonal"]["color"], mfc="none")
    assert not looks_like(old_dot, "ensemble_diagonal", True)
    assert _told_apart_only_by_colour({m: STYLES[m] for m in FAMILY_STYLES.values()}) == []
    figure_png(fig)


def test_lesson_8s_neuron_plots_draw_each_gaussian_the_boundary_and_a_b_in_their_styles():
    from ensemble_lib.lessons.classification import (BOUNDARY_STYLE, NeuronPanel, neuron_state, plot_arrival,
                                                     plot_fig9, plot_neuron)

    st = neuron_state(5, 1.0, 0, grid_n=31)
    fig, (ax_x, ax_w) = new_figure(ncols=2)
    plot_neuron(ax_x, ax_w, st)
    panel = NeuronPanel()
    panel.draw(st)
    for ax_x_, ax_w_ in ((ax_x, ax_w), (panel.ax_x, panel.ax_w)):
        (boundary,) = ax_x_.lines
        assert _dashes(boundary.get_linestyle()) == _dashes(STYLES["map"]["linestyle"]) != "-"
        assert to_rgba(boundary.get_color()) == to_rgba(BOUNDARY_STYLE["color"])
        means = [ln for ln in ax_w_.lines if len(ln.get_xdata()) == 1 and ln.get_marker() != "+"]
        ellipses = [p for p in ax_w_.patches if isinstance(p, Ellipse)]
        assert len(means) == 3 and len(ellipses) == 6
        for key, mean, pair in zip(("laplace", "diagonal", "full"), means, np.reshape(ellipses, (3, 2))):
            for e in pair:
                _assert_drawn_in_style(e, mean, key)
    fig, axes = new_figure(ncols=2)
    plot_arrival(axes, ns=(1, 3))
    for ax in axes:
        e = next(p for p in ax.patches if isinstance(p, Ellipse))
        _assert_drawn_in_style(e, next(ln for ln in ax.lines if ln.get_marker() != "+"), "full")
    # Fig. 9's points A and B: the marked inputs' look, not a method's (Laplace's square and colour)
    fig, (a, b) = new_figure(ncols=2)
    plot_fig9(a, b)
    for ax in (a, b):
        points = [ln for ln in ax.lines if len(ln.get_xdata()) == 1]
        assert len(points) == 2 and all(_in_style(p, "test_point") for p in points)
        methods = [ln for ln in ax.lines if len(ln.get_xdata()) == 0]  # the legend's entries
        assert len(methods) >= 2 and not any((_dashes(p.get_linestyle()), _marker(p.get_marker()))
                                             == (_dashes(m.get_linestyle()), _marker(m.get_marker()))
                                             for p in points for m in methods)
    figure_png(fig)


def test_the_colour_only_checks_of_lesson_8_can_fail():
    """The old looks of lesson 8: solid ellipses, a solid boundary line, A and B in Laplace's look."""
    fig, ax = new_figure()
    old = plot_gaussian_ellipses(ax, [0.0, 0.0], np.eye(2), n_sigmas=(1,), color=COLORS["laplace"])
    with pytest.raises(AssertionError):
        _assert_drawn_in_style(old[0], old[-1], "laplace")
    (old_boundary,) = ax.plot([0, 1], [0, 1], "-", color=COLORS["laplace"])
    assert _dashes(old_boundary.get_linestyle()) != _dashes(STYLES["map"]["linestyle"])
    (old_point,) = ax.plot([0.0], [0.0], "s", color=COLORS["laplace"])
    assert not _in_style(old_point, "test_point")


def test_lesson_6s_ard_bars_and_network_size_lines_read_without_colour(monkeypatch):
    """The ARD figure's pure-noise bars are hatched (real inputs plain); the network-size plot draws Laplace
    and the diagonal ensemble in their STYLES line styles and markers."""
    from ensemble_lib.lessons.model_choice import network_size
    from ensemble_lib.lessons.model_choice.ard_boston import plot_ard

    split = {"ard": {"inputs": ["CRIM", "ZN", "noise1", "noise2"], "alpha": [10.0, 20.0, 300.0, 400.0],
                     "noise_above_every_real": True}}
    result = {"config": {"n_noise": 2, "ard_hidden": 2, "prior": {"a": 1.0, "b": 250.0}},
              "datasets": {"boston": {"splits": [split, split]}}}
    fig, ax = new_figure()
    plot_ard(ax, result)
    bars = [p for p in ax.patches if p.get_height() > 0]
    assert len(bars) == 4 and [bool(b.get_hatch()) for b in bars] == [False, False, True, True]
    assert {to_hex(b.get_edgecolor()) for b in bars} <= PUBLISHED_OKABE_ITO

    rows = [{"H": h, "log_evidence": -h, "log_evidence_se": 0.1, "bound": -h - 1, "bound_se": 0.1,
             "laplace_test_mse": 0.3, "laplace_test_mse_se": 0.01, "ensemble_test_mse": 0.2,
             "ensemble_test_mse_se": 0.01} for h in (1, 2, 3)]
    monkeypatch.setattr(network_size, "size_rows", lambda result, dataset: rows)
    fig, axes = new_figure(ncols=2)
    network_size.plot_model_size(axes, {}, "x")
    for ax in axes:
        laplace, ensemble = [c.lines[0] for c in ax.containers]  # each errorbar's data line
        assert _in_style(laplace, "laplace") and _in_style(ensemble, "diagonal")
        assert not _in_style(laplace, "diagonal")  # the check can fail
    figure_png(fig)
