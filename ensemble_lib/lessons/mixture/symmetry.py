"""Lesson 7's stretch: a small network's symmetric modes, where a mixture's entropy needs the bound."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import permutations, product

import numpy as np

from ...core import validation as check
from ...inference.kl_fit import KLFit, KLFitWarning, kl_fit
from ...inference.mixture import MixtureParams, entropy_lower_bound
from ...models.network import NetworkPosterior, add_bias
from ...ui.tables import Table


# ---------------------------------------------------------------------------
# the stretch: a network's symmetric modes (the entropy needs the bound there)
# ---------------------------------------------------------------------------

def network_demo_data(n: int = 16, seed: int = 3):
    """1-D data with a gap, the recipe of lesson 4's demo: x in [−2, −0.4] ∪ [0.6, 2], t = sin(1.5x) + N(0, 0.1²).

    (Written out here because lessons do not import each other.) Returns ``(x, t)``.
    """
    n = check.integer("n", n, low=4, high=1000)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = np.sort(np.concatenate([rng.uniform(-2.0, -0.4, n // 2), rng.uniform(0.6, 2.0, n - n // 2)]))
    return x, np.sin(1.5 * x) + 0.1 * rng.standard_normal(n)


def symmetry_maps(n_hidden: int, d: int) -> list[np.ndarray]:
    """The H!·2^H signed permutations S of a network's weights ``w = [u_1 … u_H, v]`` (B&B (1)).

    Swapping hidden units, or flipping the signs of a unit's input and output weights (σ is
    odd), leaves every output unchanged (MacKay, 'Probable networks' §4.1). Each map is a
    (k, k) matrix, the identity first.
    """
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=4)
    d = check.integer("d", d, low=1)
    k = n_hidden * (d + 1)
    maps = []
    for perm in permutations(range(n_hidden)):
        for signs in product((1.0, -1.0), repeat=n_hidden):
            S = np.zeros((k, k))
            for j, (i, sg) in enumerate(zip(perm, signs)):
                for a in range(d):
                    S[j * d + a, i * d + a] = sg  # u_j ← s_j u_{perm(j)}
                S[n_hidden * d + j, n_hidden * d + i] = sg  # v_j ← s_j v_{perm(j)}
            maps.append(S)
    return maps


@dataclass(frozen=True)
class NetworkSymmetryDemo:
    """The bound F of the single Gaussian and of mixtures of its symmetric images, on a network."""

    posterior: object  # NetworkPosterior
    single: KLFit
    K: tuple  # 1, 2, H!2^H ... mixture sizes
    bound: tuple  # the mixture's lower bound on ln P(D) (Bhattacharyya entropy), per K
    min_distance: float  # the smallest Bhattacharyya distance between two images

    @property
    def gain(self) -> np.ndarray:
        """``bound − bound(K = 1)``: ln K when the images are far apart."""
        return np.array(self.bound) - self.bound[0]


def network_symmetry_demo(n_hidden: int = 2, alpha: float = 1.0, beta: float = 100.0, n_starts: int = 2,
                          rng=None) -> NetworkSymmetryDemo:
    """The stretch goal: a mixture of the single Gaussian's symmetric images on the 1-D network.

    The full-covariance fit (best of ``n_starts`` random starts) and mixtures, with equal
    weights, of its images under the sign flip ``w → −w`` (K = 2), all sign flips (K = 2^H) and
    all signed permutations (K = H!·2^H); their bound F uses the Bhattacharyya entropy (39c).
    ``rng``: a ``numpy.random.Generator`` for the starts (default ``default_rng(0)``).
    """
    rng = np.random.default_rng(0) if rng is None else check.generator("rng", rng)
    n_starts = check.integer("n_starts", n_starts, low=1, high=50)
    x, t = network_demo_data()
    post = NetworkPosterior(add_bias(x[:, None]), t, n_hidden, alpha=alpha, beta=beta)
    single = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KLFitWarning)
        for _ in range(n_starts):
            start = [(0.5 * rng.standard_normal(post.dim), 0.01 * np.eye(post.dim))]
            fit = kl_fit(post, "full", init=start, symmetric=False)
            if single is None or fit.bound > single.bound:
                single = fit
    maps = symmetry_maps(n_hidden, 2)
    flips = [S for S in maps if np.allclose(np.abs(S), np.eye(post.dim))]
    groups = [maps[:1], [maps[0], -maps[0]], flips, maps]
    Ks, bounds = [], []
    for group in groups:
        if len(group) in Ks:
            continue
        means = np.array([S @ single.mean for S in group])
        covs = np.array([S @ single.cov @ S.T for S in group])
        w = np.full(len(group), 1.0 / len(group))
        params = MixtureParams(len(group), post.dim)
        energy = sum(wi * post.expected_energy(m, C).value for wi, m, C in zip(w, means, covs))
        bound = entropy_lower_bound(w, means, covs) - energy - post.log_normalisers
        Ks.append(params.K)
        bounds.append(float(bound))
    means = np.array([S @ single.mean for S in maps])
    covs = np.array([S @ single.cov @ S.T for S in maps])
    logdet = np.linalg.slogdet(covs)[1]
    dist = []
    for i in range(len(maps)):
        for j in range(i):  # Bhattacharyya distance D_ij of (39c)
            Cm, delta = 0.5 * (covs[i] + covs[j]), means[i] - means[j]
            dist.append(0.125 * delta @ np.linalg.solve(Cm, delta) + 0.5 * np.linalg.slogdet(Cm)[1]
                        - 0.25 * (logdet[i] + logdet[j]))
    return NetworkSymmetryDemo(post, single, tuple(Ks), tuple(bounds), float(min(dist)) if dist else np.inf)



def symmetry_table(demo) -> Table:
    """§6's table: the bound F of the mixture of K symmetric images, its gain over K = 1, and ln K."""
    check.instance("demo", demo, NetworkSymmetryDemo, "a NetworkSymmetryDemo (network_symmetry_demo())")
    rows = tuple((f"{K}", f"{F:.5f}", f"{g:.5f}", f"{np.log(K):.5f}") for K, F, g in zip(demo.K, demo.bound, demo.gain))
    return Table(("K", "bound F (39c)", "gain", "ln K"), rows, rule=True)


__all__ = ["network_symmetry_demo", "symmetry_table"]
