"""Hamiltonian Monte Carlo as the ground truth: NumPyro's NUTS on the suite's posteriors.

The Gaussian approximations of the suite (Laplace, B&B (9)–(12); the
ensemble Q, B&B (17)–(26), (32)–(38)) are compared here with samples from
the posterior itself, drawn by an established sampler: the No-U-Turn
Sampler of NumPyro (Hoffman & Gelman 2014; Phan, Pradhan & Jankowiak 2019).
Nothing in this module is a hand-written sampler; it only states each
model in NumPyro and collects the draws.

* :func:`sample_toy` — the 2-parameter toy ``f = v σ(u x)`` at fixed α, β
  (B&B §2.1, eqs 4–6; :class:`~ensemble_lib.models.toy.ToyPosterior`);
* :func:`sample_linear` — the linear-in-w model at fixed α, β
  (:class:`~ensemble_lib.models.linear.LinearGaussianPosterior`);
* :func:`sample_network` — the erf network of B&B (1)–(2) with Gamma
  hyperpriors on α and β (B&B (27)–(28)), the joint posterior
  ``p(w, α, β | D)`` whose factorised approximation is B&B (32);
* :class:`HMCResult` — draws (all chains pooled and per chain), split-R̂ and
  effective sample sizes (:mod:`numpyro.diagnostics`), divergences, wall time
  and the posterior predictive mean and standard deviation.

Model statements
----------------
Toy and linear model (fixed α, β): ``w ~ N(0, I/α)`` and the factor
``exp(−β E_D(w))`` with ``E_D = ½ Σ_n (f(x_n, w) − t_n)²`` (B&B (3)–(6)), so
the target is exactly the library's ``log_unnorm``.

Network: ``α ~ Gamma(a, scale b)``, ``β ~ Gamma(c, scale d)`` (B&B (27)–(28);
NumPyro's Gamma takes the *rate*, ``1/b`` and ``1/d``), weights non-centred
``w = z/√α`` with ``z ~ N(0, I)`` (the centred form has a funnel between α
and w), and ``t_n ~ N(f(x_n, w), 1/β)`` with ``f`` of B&B (1)–(2),
``σ(a) = erf(a/√2)``. The weights are packed exactly as
:func:`~ensemble_lib.models.network.pack_weights` does,
``w = [u_1, …, u_H, v_1, …, v_H]``, so the draws can be passed to
:func:`~ensemble_lib.models.network.network_output`. ``X`` must already hold
the bias column (:func:`~ensemble_lib.models.network.add_bias`), as for
:class:`~ensemble_lib.models.network.NetworkPosterior`.

Convergence diagnostics
-----------------------
The network posterior is invariant under permutations of the hidden units
and under ``(u_i, v_i) → (−u_i, −v_i)`` (σ is odd), the toy under
``(u, v) → (−u, −v)``. Chains that settle in different copies of a mode
give large R̂ for the individual weights although they describe the same
function. :attr:`HMCResult.r_hat_max` and :attr:`HMCResult.ess_min` are
therefore taken over quantities invariant under those symmetries: the
network outputs at the training inputs (site ``"f"``) and, where sampled,
α and β. The per-weight values are kept in :attr:`HMCResult.r_hat` and
:attr:`HMCResult.ess` under ``"w"``.

Reproducibility
---------------
Every sampler takes an explicit ``seed`` (an ``int`` ≥ 0, or a
``numpy.random.Generator`` from which one integer is drawn) that becomes
the ``jax.random.PRNGKey``. Float64 is switched on
(``jax_enable_x64``). C chains run in parallel when JAX sees at least C host
devices: ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` is set here
before JAX is first imported (unless the variable already sets it; the
device count does not change the draws, and 8 virtual devices share the
machine's cores); if JAX has fewer devices than chains, they run sequentially
(``chain_method="sequential"``, recorded in :attr:`HMCResult.settings`). The two
methods do not give the same draws for the same seed, so results are
reproducible for a fixed seed *and* chain method.

JAX and NumPyro are optional (the ``reference`` extra); they are imported
only when a sampler is called.

Code names: ``alpha`` = α, ``beta`` = β, ``w`` = packed weights, ``z`` =
whitened weights, ``f`` = network output, ``n_hidden`` = H.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..core import validation as check
from ..models import erf_network
from ..models.linear import LinearGaussianPosterior
from ..models.network import network_output
from ..models.toy import ToyPosterior
from .hyperparameters import GammaHyperprior

#: the message raised when JAX or NumPyro is missing
INSTALL_HINT = "install the reference extra: pip install -e '.[reference]'"
#: the parallel-chain device count requested from XLA when this module imports JAX first
_DEVICE_FLAG = "--xla_force_host_platform_device_count"
_N_DEVICES = 8


# ---------------------------------------------------------------------------
# Lazy imports, seeds, settings
# ---------------------------------------------------------------------------


def host_device_flag() -> None:
    """Ask XLA for :data:`_N_DEVICES` host devices (parallel chains), if JAX is not imported yet and
    ``XLA_FLAGS`` does not set a count already. A process that imports JAX itself calls this first."""
    if "jax" not in sys.modules:
        flags = os.environ.get("XLA_FLAGS", "")
        if _DEVICE_FLAG not in flags:
            os.environ["XLA_FLAGS"] = (flags + f" {_DEVICE_FLAG}={_N_DEVICES}").strip()


def _jax():
    """Import jax and numpyro (setting the host device count and float64 first)."""
    host_device_flag()
    try:  # heavy optional dependency, loaded on first use
        import jax
        import numpyro
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"HMC needs jax and numpyro ({exc}); {INSTALL_HINT}") from exc
    jax.config.update("jax_enable_x64", True)
    return jax, numpyro


def package_versions() -> dict:
    """Versions of the packages behind the reference (jax, jaxlib, numpyro, numpy)."""
    jax, numpyro = _jax()
    import jaxlib  # heavy optional dependency, loaded on first use

    return {"jax": jax.__version__, "jaxlib": jaxlib.__version__,
            "numpyro": numpyro.__version__, "numpy": np.__version__}


def _seed_int(seed) -> int:
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**31 - 1))
    return check.integer("seed", seed, low=0, high=2**32 - 1)


@dataclass(frozen=True)
class SamplerSettings:
    """NUTS settings (NumPyro names): warm-up and kept draws per chain, chains, step-size target."""

    num_warmup: int = 1000
    num_samples: int = 1000
    num_chains: int = 2
    target_accept_prob: float = 0.9
    max_tree_depth: int = 10

    def __post_init__(self):
        check.integer("num_warmup", self.num_warmup, low=1)
        check.integer("num_samples", self.num_samples, low=4)
        check.integer("num_chains", self.num_chains, low=1, high=64)
        check.integer("max_tree_depth", self.max_tree_depth, low=1, high=20)
        p = check.positive("target_accept_prob", self.target_accept_prob)
        if not p < 1.0:
            raise ValueError(f"target_accept_prob must lie in (0, 1), got {p}")

    def as_dict(self) -> dict:
        return {"num_warmup": self.num_warmup, "num_samples": self.num_samples,
                "num_chains": self.num_chains, "target_accept_prob": self.target_accept_prob,
                "max_tree_depth": self.max_tree_depth}


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HMCResult:
    """NUTS draws of one posterior, with diagnostics.

    Attributes
    ----------
    model : {"toy", "linear", "network"}
    chain_w : ndarray, shape (n_chains, n_samples, k)
        Weight draws per chain (toy: ``w = (u, v)``; network: packed as
        :func:`~ensemble_lib.models.network.pack_weights`).
    chain_alpha, chain_beta : ndarray, shape (n_chains, n_samples)
        Draws of α and β (network), or the fixed values repeated (toy, linear).
    r_hat, ess : dict
        Site → split-R̂ (:func:`numpyro.diagnostics.split_gelman_rubin`) and
        effective sample size (:func:`numpyro.diagnostics.effective_sample_size`)
        over all chains: ``"w"`` (per weight), ``"f"`` (per training input) and,
        for the network, ``"alpha"``, ``"beta"``.
    divergences : ndarray of int, shape (n_chains,)
        Divergent transitions after warm-up, per chain.
    accept_prob : ndarray, shape (n_chains,)
        Mean acceptance probability of the kept transitions, per chain (NumPyro's
        ``accept_prob``: for NUTS the average over the trajectory's points).
    n_leapfrog : ndarray of int, shape (n_chains,)
        Leapfrog steps (each one gradient evaluation) of the kept transitions, per chain.
    seconds : float
        Wall time of the sampler (including JAX compilation).
    settings : dict
        The :class:`SamplerSettings` plus ``seed`` and ``chain_method``.
    n_hidden : int or None
        H for the network; None otherwise.
    sampled_hyperparameters : bool
        True when α and β were sampled (network), False when fixed.
    """

    model: str
    chain_w: np.ndarray = field(repr=False)
    chain_alpha: np.ndarray = field(repr=False)
    chain_beta: np.ndarray = field(repr=False)
    r_hat: dict = field(repr=False)
    ess: dict = field(repr=False)
    divergences: np.ndarray
    seconds: float
    settings: dict
    n_hidden: int | None = None
    sampled_hyperparameters: bool = False
    accept_prob: np.ndarray | None = None
    n_leapfrog: np.ndarray | None = None

    @property
    def n_chains(self) -> int:
        return int(self.chain_w.shape[0])

    @property
    def n_samples(self) -> int:
        """Draws per chain (after warm-up)."""
        return int(self.chain_w.shape[1])

    @property
    def w(self) -> np.ndarray:
        """All weight draws, chains pooled: shape (n_chains · n_samples, k)."""
        return self.chain_w.reshape(-1, self.chain_w.shape[-1])

    @property
    def alpha(self) -> np.ndarray:
        """All α draws, chains pooled."""
        return self.chain_alpha.reshape(-1)

    @property
    def beta(self) -> np.ndarray:
        """All β draws, chains pooled."""
        return self.chain_beta.reshape(-1)

    @property
    def n_divergences(self) -> int:
        return int(np.sum(self.divergences))

    def _invariant_sites(self):
        return ["f"] + (["alpha", "beta"] if self.sampled_hyperparameters else [])

    @property
    def r_hat_max(self) -> float:
        """Largest split-R̂ over symmetry-invariant quantities (f at the training inputs, α, β)."""
        return float(max(np.max(self.r_hat[s]) for s in self._invariant_sites()))

    @property
    def ess_min(self) -> float:
        """Smallest effective sample size over the same invariant quantities."""
        return float(min(np.min(self.ess[s]) for s in self._invariant_sites()))

    def outputs(self, X, chain: int | None = None) -> np.ndarray:
        """f(x, w) for every draw (all chains, or one ``chain``) at the inputs X: shape (S, N).

        ``X`` is what the model was sampled with: the toy's scalar inputs x
        (shape (N,)), the linear model's design matrix Φ (N × k), or the
        network's inputs including the bias column (N × d).
        """
        w = self.w if chain is None else self.chain_w[check.integer("chain", chain, low=0,
                                                                    high=self.n_chains - 1)]
        return _outputs(self.model, w, X, self.n_hidden)

    def predictive(self, X_test, chain: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Posterior predictive mean and standard deviation at X_test.

        Averages over every draw of every chain (or of one ``chain``):
        mean ``⟨f(x, w)⟩`` and variance ``⟨f²⟩ − ⟨f⟩² + ⟨1/β⟩`` (the noise
        variance 1/β of each draw included).

        Returns
        -------
        mean, sd : ndarray, shape (N_test,)
        """
        F = self.outputs(X_test, chain)
        beta = self.beta if chain is None else self.chain_beta[chain]
        mean = F.mean(axis=0)
        var = np.mean((F - mean) ** 2, axis=0) + np.mean(1.0 / beta)
        return mean, np.sqrt(var)


def _outputs(model: str, w, X, n_hidden):
    if model == "toy":
        x = check.finite_vector("X", X)
        return erf_network.toy_model(x[None, :], w[:, 0:1], w[:, 1:2])
    if model == "linear":
        Phi = check.finite_matrix("X", X, shape="(N, k)")
        return w @ Phi.T
    return network_output(w, X, n_hidden)


# ---------------------------------------------------------------------------
# The models in NumPyro (the mean functions mirror the library's)
# ---------------------------------------------------------------------------


def network_mean(w, X, n_hidden: int):
    """f(x, w) = Σ_i v_i σ(u_iᵀx), σ(a) = erf(a/√2) (B&B (1)–(2)), in JAX, packing as the library's.

    ``w = [u_1 (d), …, u_H (d), v_1, …, v_H]`` (shape (..., k)), ``X`` of shape
    (N, d) including any bias column; returns shape (..., N).
    """
    jax, _ = _jax()
    jnp = jax.numpy
    w = jnp.asarray(w)
    X = jnp.asarray(X)
    d = X.shape[1]
    hd = n_hidden * d
    U = w[..., :hd].reshape(w.shape[:-1] + (n_hidden, d))
    v = w[..., hd:]
    S = jax.scipy.special.erf(jnp.einsum("...hd,nd->...nh", U, X) / np.sqrt(2.0))
    return jnp.einsum("...nh,...h->...n", S, v)


def toy_model(x, t, alpha: float, beta: float):
    """NumPyro model of the toy posterior (B&B (4)–(6)): (u, v) ~ N(0, I/α), factor exp(−βE_D)."""
    jax, numpyro = _jax()
    import numpyro.distributions as dist  # heavy optional dependency, loaded on first use

    jnp = jax.numpy
    scale = 1.0 / np.sqrt(alpha)
    u = numpyro.sample("u", dist.Normal(0.0, scale))
    v = numpyro.sample("v", dist.Normal(0.0, scale))
    f = v * jax.scipy.special.erf(u * jnp.asarray(x) / np.sqrt(2.0))
    numpyro.factor("likelihood", -0.5 * beta * jnp.sum((f - jnp.asarray(t)) ** 2))


def linear_model(Phi, t, alpha: float, beta: float):
    """NumPyro model of the linear posterior: w ~ N(0, I/α), factor exp(−(β/2)‖Φw − t‖²)."""
    jax, numpyro = _jax()
    import numpyro.distributions as dist  # heavy optional dependency, loaded on first use

    jnp = jax.numpy
    Phi = jnp.asarray(Phi)
    w = numpyro.sample("w", dist.Normal(0.0, 1.0 / np.sqrt(alpha)).expand([Phi.shape[1]]).to_event(1))
    numpyro.factor("likelihood", -0.5 * beta * jnp.sum((Phi @ w - jnp.asarray(t)) ** 2))


def network_model(X, y, n_hidden: int, a: float, b: float, c: float, d: float):
    """NumPyro model of the erf network (B&B (1)–(2)) with Gamma hyperpriors (B&B (27)–(28)).

    ``α ~ Gamma(a, rate 1/b)``, ``β ~ Gamma(c, rate 1/d)``, ``z ~ N(0, I_k)``,
    ``w = z/√α`` (recorded as the deterministic site ``"w"``), and
    ``y_n ~ N(f(x_n, w), 1/β)`` (site ``"y"``, observed when ``y`` is given).
    """
    jax, numpyro = _jax()
    import numpyro.distributions as dist  # heavy optional dependency, loaded on first use

    jnp = jax.numpy
    k = n_hidden * X.shape[1] + n_hidden
    alpha = numpyro.sample("alpha", dist.Gamma(a, 1.0 / b))
    beta = numpyro.sample("beta", dist.Gamma(c, 1.0 / d))
    z = numpyro.sample("z", dist.Normal(0.0, 1.0).expand([k]).to_event(1))
    w = numpyro.deterministic("w", z / jnp.sqrt(alpha))
    f = network_mean(w, X, n_hidden)
    numpyro.sample("y", dist.Normal(f, 1.0 / jnp.sqrt(beta)).to_event(1),
                   obs=None if y is None else jnp.asarray(y))


# ---------------------------------------------------------------------------
# Running NUTS
# ---------------------------------------------------------------------------


def _kernel(model, settings: SamplerSettings, step_size, num_steps):
    """NUTS with an adapted step size (the default); or, with ``step_size``, a fixed step and an
    identity mass matrix (no adaptation), NUTS or, with ``num_steps`` too, plain HMC with that
    many leapfrog steps per transition."""
    from numpyro.infer import HMC, NUTS  # heavy optional dependency, loaded on first use

    if step_size is None:
        if num_steps is not None:
            raise ValueError("num_steps needs a fixed step_size (give both, or neither)")
        return NUTS(model, target_accept_prob=settings.target_accept_prob,
                    max_tree_depth=settings.max_tree_depth), {}
    step_size = check.positive("step_size", step_size, upper=1e3)
    fixed = {"step_size": step_size}
    if num_steps is None:
        return NUTS(model, step_size=step_size, adapt_step_size=False, adapt_mass_matrix=False,
                    max_tree_depth=settings.max_tree_depth), fixed
    num_steps = check.integer("num_steps", num_steps, low=1, high=10_000)
    # trajectory_length=None: NumPyro would otherwise rescale the step to 2π / num_steps
    return HMC(model, step_size=step_size, num_steps=num_steps, trajectory_length=None,
               adapt_step_size=False, adapt_mass_matrix=False), {**fixed, "num_steps": num_steps}


def _run(model, args, settings: SamplerSettings, seed, keep, step_size=None, num_steps=None):
    """Run the sampler; per-chain numpy draws of ``keep`` sites, divergences, seconds, settings,
    and the per-chain mean acceptance probability and leapfrog steps of the kept transitions."""
    jax, numpyro = _jax()
    from numpyro.infer import MCMC  # heavy optional dependency, loaded on first use

    kernel, fixed = _kernel(model, settings, step_size, num_steps)
    seed = _seed_int(seed)
    method = "parallel" if jax.local_device_count() >= settings.num_chains else "sequential"
    mcmc = MCMC(kernel, num_warmup=settings.num_warmup, num_samples=settings.num_samples,
                num_chains=settings.num_chains, chain_method=method, progress_bar=False)
    t0 = time.perf_counter()
    mcmc.run(jax.random.PRNGKey(seed), *args, extra_fields=("diverging", "accept_prob", "num_steps"))
    samples = mcmc.get_samples(group_by_chain=True)
    draws = {k: np.asarray(samples[k], dtype=float) for k in keep}
    extra = mcmc.get_extra_fields(group_by_chain=True)
    div = np.asarray(extra["diverging"])
    seconds = time.perf_counter() - t0
    info = {**settings.as_dict(), **fixed, "seed": seed, "chain_method": method}
    moves = {"accept_prob": np.asarray(extra["accept_prob"], float).mean(axis=1),
             "n_leapfrog": np.asarray(extra["num_steps"]).sum(axis=1).astype(int)}
    return draws, div.sum(axis=1).astype(int), seconds, info, moves


def _diagnostics(sites: dict) -> tuple[dict, dict]:
    """Split-R̂ and ESS of each site (arrays of shape (chains, samples, ...))."""
    # heavy optional dependency, loaded on first use
    from numpyro.diagnostics import effective_sample_size, split_gelman_rubin

    r_hat = {k: np.asarray(split_gelman_rubin(v), dtype=float) for k, v in sites.items()}
    ess = {k: np.asarray(effective_sample_size(v), dtype=float) for k, v in sites.items()}
    return r_hat, ess


def _settings(num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth):
    return SamplerSettings(num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth)


def sample_toy(post, *, seed, num_warmup: int = 1000, num_samples: int = 1000,
               num_chains: int = 2, target_accept_prob: float = 0.8,
               max_tree_depth: int = 10, step_size: float | None = None,
               num_steps: int | None = None) -> HMCResult:
    """NUTS on the toy posterior ``P(u, v | D) ∝ exp{−βE_D − (α/2)(u² + v²)}`` (B&B (6)) at fixed α, β.

    Parameters
    ----------
    post : ToyPosterior
        Data ``x``, ``t`` and the fixed ``alpha``, ``beta``.
    seed : int or numpy.random.Generator
        Becomes the ``jax.random.PRNGKey`` (a Generator gives one integer).
    num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth
        NUTS settings (NumPyro's names; samples are per chain).
    step_size : float, optional
        A fixed leapfrog step size in (0, 1000] in the units of (u, v): no step-size or
        mass-matrix adaptation (identity mass), to show what the step does (lesson 9).
        Default: NUTS adapts it to ``target_accept_prob`` during warm-up.
    num_steps : int, optional
        With ``step_size``: plain HMC (NumPyro's ``HMC``) with this many leapfrog steps per
        transition (1 to 10 000) instead of NUTS's adaptive trajectory.

    Returns
    -------
    HMCResult
        ``chain_w[..., 0]`` = u, ``chain_w[..., 1]`` = v. The posterior has two
        mirror modes ``(u, v) ↔ (−u, −v)``; a chain may stay in one of them.
        ``accept_prob`` and ``n_leapfrog`` say how the trajectories fared.
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    st = _settings(num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth)
    if step_size is not None:  # checked before JAX is loaded
        step_size = check.positive("step_size", step_size, upper=1e3)
    if num_steps is not None:
        num_steps = check.integer("num_steps", num_steps, low=1, high=10_000)
    draws, div, sec, info, moves = _run(toy_model, (post.x, post.t, post.alpha, post.beta), st, seed,
                                        ("u", "v"), step_size, num_steps)
    w = np.stack([draws["u"], draws["v"]], axis=-1)
    return _finish("toy", w, post.x, post.alpha, post.beta, div, sec, info, None, moves)


def sample_linear(post, *, seed, num_warmup: int = 1000, num_samples: int = 1000,
                  num_chains: int = 2, target_accept_prob: float = 0.8,
                  max_tree_depth: int = 10) -> HMCResult:
    """NUTS on the linear model's posterior ``∝ exp{−(β/2)‖Φw − t‖² − (α/2)‖w‖²}`` at fixed α, β.

    The exact answer is ``N(A⁻¹βΦᵀt, A⁻¹)``, ``A = αI + βΦᵀΦ``
    (:class:`~ensemble_lib.models.linear.LinearGaussianPosterior`), which makes
    this the sampler's check. Parameters as for :func:`sample_toy`.
    """
    if not isinstance(post, LinearGaussianPosterior):
        raise ValueError(f"post must be a LinearGaussianPosterior, got {type(post).__name__}")
    st = _settings(num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth)
    draws, div, sec, info, moves = _run(linear_model, (post.Phi, post.t, post.alpha, post.beta), st,
                                        seed, ("w",))
    return _finish("linear", draws["w"], post.Phi, post.alpha, post.beta, div, sec, info, None, moves)


def sample_network(X, y, n_hidden: int, prior=None, *, seed, num_warmup: int = 1000,
                   num_samples: int = 1000, num_chains: int = 2,
                   target_accept_prob: float = 0.9, max_tree_depth: int = 10) -> HMCResult:
    """NUTS on the joint posterior p(w, α, β | D) of the erf network (B&B (1)–(2)), hyperpriors B&B (27)–(28).

    Parameters
    ----------
    X : array_like, shape (N, d)
        Training inputs *including* the bias column
        (:func:`~ensemble_lib.models.network.add_bias`), as for ``NetworkPosterior``.
    y : array_like, shape (N,)
        Training targets.
    n_hidden : int
        Hidden units H.
    prior : GammaHyperprior, optional
        ``a, b, c, d`` of B&B (27)–(28) (shape, *scale*); default: the paper's.
    seed : int or numpy.random.Generator
        Becomes the ``jax.random.PRNGKey``.
    num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth
        NUTS settings (per chain).

    Returns
    -------
    HMCResult
        ``chain_w`` packed as ``pack_weights``; ``chain_alpha``, ``chain_beta``
        the hyperparameter draws; ``r_hat["f"]`` etc. at the training inputs.

    Notes
    -----
    Non-centred weights ``w = z/√α``; float64. With the paper's broad
    hyperpriors and 128 Boston rows, H = 4, 1000 + 1000 draws per chain took
    30–100 s per split on two (shared) cores; some splits' chains settle in
    different modes (large R̂ even on the invariant quantities), see
    :mod:`ensemble_lib.studies.hmc_reference`.
    """
    X = check.finite_matrix("X", X, hint=" (use x[:, None] for one input)")
    y = check.finite_vector("y", y)
    if y.size != X.shape[0]:
        raise ValueError(f"y must have length N = {X.shape[0]} (rows of X), got {y.size}")
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=1000)
    prior = GammaHyperprior() if prior is None else prior
    if not isinstance(prior, GammaHyperprior):
        raise ValueError(f"prior must be a GammaHyperprior, got {type(prior).__name__}")
    st = _settings(num_warmup, num_samples, num_chains, target_accept_prob, max_tree_depth)
    draws, div, sec, info, moves = _run(network_model,
                                        (X, y, n_hidden, prior.a, prior.b, prior.c, prior.d), st,
                                        seed, ("w", "alpha", "beta"))
    return _finish("network", draws["w"], X, draws["alpha"], draws["beta"], div, sec, info,
                   n_hidden, moves)


def _finish(model, chain_w, X_train, alpha, beta, div, seconds, info, n_hidden, moves) -> HMCResult:
    C, S = chain_w.shape[:2]
    sampled = np.ndim(alpha) > 0
    chain_alpha = np.asarray(alpha, float) if sampled else np.full((C, S), float(alpha))
    chain_beta = np.asarray(beta, float) if sampled else np.full((C, S), float(beta))
    f = _outputs(model, chain_w.reshape(C * S, -1), X_train, n_hidden).reshape(C, S, -1)
    sites = {"w": chain_w, "f": f}
    if sampled:
        sites.update(alpha=chain_alpha, beta=chain_beta)
    r_hat, ess = _diagnostics(sites)
    return HMCResult(model, chain_w, chain_alpha, chain_beta, r_hat, ess, div, float(seconds),
                     info, n_hidden, bool(sampled), moves["accept_prob"], moves["n_leapfrog"])


__all__ = ["HMCResult", "SamplerSettings", "host_device_flag", "package_versions", "sample_linear", "sample_network",
           "sample_toy"]
