"""Lesson 7 (ensemble_lib.lessons.mixture): its self-check quadrature, its table and its panel's reuse of fits.

The fits themselves are proved in tests/inference/test_mixture.py; here, what the lesson adds:

* ``mixture_kl_by_quadrature`` (the notebook's independent check: Simpson's rule in each
  component's whitened coordinates, ln P pointwise) agrees with each fit's KL to 1e-6, and with a
  single Gaussian's KL from lesson 1's own brute-force check;
* ``format_ladder`` prints the fits' numbers and the drop per K;
* moving the panel's K slider reuses the fits of the (α, seed) shown (no refit), and a new α refits;
* the panel's stream (a new α or seed moved in a browser): its states end exactly at ``compute()``'s,
  each is the start of the complete ladders, a partial one says so in its readout and title; the
  image drawn over a kept background is the image of a full redraw. No test here asserts a time.
"""

from __future__ import annotations

import asyncio
import io

import numpy as np
import pytest
from PIL import Image

from ensemble_lib import PAPER_PRESET, make_posterior
from ensemble_lib.lessons import mixture as L
from ensemble_lib.models.toy import kl_by_quadrature


@pytest.fixture(scope="module")
def comp():
    return L.mixtures_for(PAPER_PRESET["alpha"], PAPER_PRESET["seed"])


def test_self_check_quadrature_matches_every_fit_and_lesson_ones_single_gaussian_check(comp):
    for ladder in (comp.quadrature, comp.bound):
        for fit in ladder.fits:
            assert L.mixture_kl_by_quadrature(comp.posterior, fit) == pytest.approx(fit.kl, abs=1e-6)
    one = comp.quadrature.fits[0]
    assert L.mixture_kl_by_quadrature(comp.posterior, one) == pytest.approx(
        kl_by_quadrature(comp.posterior, one.means[0], one.covs[0]), abs=1e-8)


def test_ladder_table_prints_each_fit_and_the_drop(comp):
    text = L.format_ladder(comp)
    lines = text.splitlines()[2:]
    assert len(lines) == L.K_MAX
    for line, fq, fb in zip(lines, comp.quadrature.fits, comp.bound.fits):
        assert f"{fq.kl:.4f}" in line and f"{fb.kl:.4f}" in line and f"{fb.kl_bound:.4f}" in line
    assert f"{comp.quadrature.kl[0] - comp.quadrature.kl[1]:.4f}" in lines[1]


def test_mixtures_for_is_fit_mixtures_of_the_same_data(comp):
    again = L.fit_mixtures(make_posterior(**PAPER_PRESET))
    np.testing.assert_allclose(again.quadrature.kl, comp.quadrature.kl, rtol=0, atol=1e-12)
    np.testing.assert_allclose(again.bound.kl_bound, comp.bound.kl_bound, rtol=0, atol=1e-12)


def test_panel_reuses_the_fits_when_only_K_moves():
    panel = L.MixtureExplorer()
    panel.update()
    shown = panel.state.comparison
    for K in (4, 1, 3):
        panel.controls["K"].value = K
        assert panel.last_error is None and panel.state.K == K
        assert panel.state.comparison is shown  # the same object: nothing refitted
        assert panel.state.fit is shown.quadrature.fits[K - 1]
    panel.controls["alpha"].value = 1.0
    assert panel.last_error is None and panel.state.comparison is not shown
    assert panel.state.comparison.posterior.alpha == pytest.approx(1.0)


def test_network_symmetric_images_raise_the_bound_by_ln_K():
    """The H!·2^H signed permutations leave the network's expected energy unchanged (checked), so a
    mixture of K images with equal weights has bound F₁ + ln K − (1/K) Σ_i ln(1 + Σ_{j≠i} e^{−D_ij});
    the images here are far apart (D ≥ 50), so the gain is ln K to round-off."""
    demo = L.network_symmetry_demo()
    maps = L.symmetry_maps(2, 2)
    assert len(maps) == 8 and all(np.allclose(S @ S.T, np.eye(6)) for S in maps)
    e0 = demo.posterior.expected_energy(demo.single.mean, demo.single.cov).value
    for S in maps:
        assert demo.posterior.expected_energy(S @ demo.single.mean, S @ demo.single.cov @ S.T).value == \
            pytest.approx(e0, abs=1e-9)
    assert demo.K == (1, 2, 4, 8) and demo.min_distance > 50
    np.testing.assert_allclose(demo.gain, np.log(demo.K), atol=1e-12)
    assert demo.bound[0] == pytest.approx(demo.single.bound, abs=1e-10)


# ---------------------------------------------------------------------------
# the panel's stream and its layered drawing
# ---------------------------------------------------------------------------

def _same_ladders(a: L.MixtureComparison, b: L.MixtureComparison, prefix: bool = False) -> None:
    """Fit for fit, ``a``'s ladders equal ``b``'s (or, with ``prefix``, their start)."""
    for which in ("quadrature", "bound"):
        fa, fb = getattr(a, which).fits, getattr(b, which).fits
        assert len(fa) <= len(fb) if prefix else len(fa) == len(fb)
        for x, y in zip(fa, fb):
            np.testing.assert_array_equal(x.theta, y.theta)
            assert (x.kl, x.kl_bound, x.bound, x.n_iter) == (y.kl, y.kl_bound, y.bound, y.n_iter)


def test_the_stream_ends_exactly_at_computes_state_and_each_state_is_its_start():
    L._REMEMBERED.clear()
    panel = L.MixtureExplorer()
    values = dict(K=3, alpha=0.7, seed=4)
    states = list(panel.compute_stream(**values))
    assert [(len(s.comparison.quadrature.fits), len(s.comparison.bound.fits)) for s in states] == \
        [(0, 0), (1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (4, 3), (4, 4)]
    assert [s.complete for s in states] == [False] * 7 + [True]
    assert states[0].comparison.single is None  # the exact posterior first, before any fit
    last = states[-1]
    final = panel.compute(**values)  # remembered by the stream: the very same fits
    assert final.comparison is last.comparison and final.K == last.K == 3
    # and they are what the lesson's fit_mixtures computes from scratch
    fresh = L.fit_mixtures(make_posterior(4, 0.7, PAPER_PRESET["noise_sd"], PAPER_PRESET["n"]))
    _same_ladders(last.comparison, fresh)
    for s in states:
        assert s.comparison.posterior is last.comparison.posterior and s.K == 3
        _same_ladders(s.comparison, last.comparison, prefix=True)
    # a remembered (α, seed): one complete state at once
    again = list(panel.compute_stream(**{**values, "K": 1}))
    assert len(again) == 1 and again[0].comparison is last.comparison and again[0].K == 1


def test_a_partial_state_says_it_is_incomplete_in_its_readout_and_title():
    L._REMEMBERED.clear()
    panel = L.MixtureExplorer()
    states = list(panel.compute_stream(K=4, alpha=0.7, seed=4))
    for s in states[:-1]:
        text = panel.format_readout(s)
        n = min(len(s.comparison.quadrature.fits), len(s.comparison.bound.fits)) + 1
        assert f"fitting K = {n} of 4" in text and "…" in text
        panel.draw(s)
        assert "fitting" in panel._title.get_text()
        if not s.comparison.quadrature.fits:  # the posterior alone: no ellipse, no KL curve yet
            assert "the exact posterior" in panel._title.get_text()
            assert not any(a.get_visible() for arts in panel._mix["quadrature"] + panel._mix["bound"] for a in arts)
            assert all(len(line.get_xdata()) == 0 for line in panel._curves)
            continue
        assert s.fit.K == min(4, len(s.comparison.quadrature.fits))  # the largest fit so far is shown
    done = panel.format_readout(states[-1])
    assert "fitting" not in done and "…" not in done
    assert f"{states[-1].fit.kl:.4f}" in done and f"{states[-1].fit_bound.kl_bound:.4f}" in done
    panel.draw(states[-1])
    assert panel._title.get_text().startswith("K = 4: KL = ")


def test_a_front_end_change_streams_then_shows_the_same_figure_and_readout_as_a_code_change():
    L._REMEMBERED.clear()
    panel = L.MixtureExplorer()
    panel.update()
    seen = []
    real_show = panel._show

    def spy(state):
        real_show(state)
        seen.append((state.complete, panel.readout.value))

    panel._show = spy

    async def main():
        panel.controls["seed"].set_state({"value": 6})
        await asyncio.sleep(0.05)
        while panel._stream is not None or panel._dirty:
            await asyncio.sleep(0.02)

    asyncio.run(main())
    assert panel.last_error is None and seen[-1][0] and panel.state.complete
    assert not seen[0][0] and "fitting K = " in seen[0][1]  # the first frame: K = 1 fits only
    assert "fitting" not in panel.readout.value
    L._REMEMBERED.clear()  # the reference refits from scratch
    ref = L.MixtureExplorer()
    ref.controls["seed"].value = 6
    _same_ladders(panel.state.comparison, ref.state.comparison)
    assert panel.readout.value == ref.readout.value
    assert panel.image.value == ref.image.value


def test_layered_drawing_renders_as_a_full_redraw():
    panel = L.MixtureExplorer()
    panel.update()
    for name, value in [("K", 4), ("alpha", 1.0), ("K", 1), ("seed", 3), ("K", 3)]:
        panel.controls[name].value = value
        fast = np.asarray(Image.open(io.BytesIO(panel.image.value)).convert("RGB"), dtype=float)
        buf = io.BytesIO()
        panel.fig.savefig(buf, format="png", dpi=panel.fig.dpi)  # saving draws every artist in one pass
        full = np.asarray(Image.open(buf).convert("RGB"), dtype=float)
        assert fast.shape == full.shape
        differ = np.mean(np.any(np.abs(fast - full) > 40, axis=2))  # JPEG against PNG: a few edge pixels
        assert differ < 0.005, (name, value, differ)


@pytest.mark.parametrize("alpha, seed", [(0.2, 25), (0.01, 0), (0.05, 7), (1.0, 3), (10.0, 99), (3.0, 50)])
def test_the_panels_view_holds_every_fitted_components_ellipse(alpha, seed):
    """The view is fixed from the first fit (it must not move while the ladders fill in)."""
    comp = L.mixtures_for(alpha, seed)
    u0, u1, v0, v1 = L.panel_extent(comp)
    for fit in comp.quadrature.fits + comp.bound.fits:
        sd = np.sqrt(np.array([np.diag(C) for C in fit.covs]))  # the 1-σ ellipse's half-widths
        assert np.all(fit.means[:, 0] - sd[:, 0] >= u0) and np.all(fit.means[:, 0] + sd[:, 0] <= u1)
        assert np.all(fit.means[:, 1] - sd[:, 1] >= v0) and np.all(fit.means[:, 1] + sd[:, 1] <= v1)
