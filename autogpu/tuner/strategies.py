"""Search strategies: which variant to evaluate next.

Every strategy works on the list of *valid* configurations (the space after its restrictions)
through `ask()` (the next configuration, or None when there is nothing left) and
`tell(config, seconds_or_None)`. Several asks may be outstanding at once: the tuner compiles
ahead while the GPU measures. A strategy never proposes the same configuration twice. The
adaptive ones (linear, model) learn the results in the order they proposed them, with a fixed
lag (`Strategy.window`), so that a re-run answered from the cache replays the same proposals.

- `exhaustive`: every configuration, in enumeration order (the AutoGPU paper's tuner);
- `random`: every configuration, in a random order (without replacement);
- `linear`: a Bayesian linear model of log time over the parameters' values and their pairs,
  refitted after every result, proposing by Thompson sampling (`linear_model.py`): on the
  H100 GEMM table (tests/data/tuner) it needs a sixth of TPE's evaluations;
- `model`: Optuna's TPE sampler (`gp`: Optuna's Gaussian-process sampler, needs PyTorch).
  Ordered numeric parameters are presented to the sampler as an integer index over their sorted
  values, so it can model "bigger is better"; others are categorical. Proposals that violate a
  restriction or repeat a known configuration are answered immediately and never count as
  evaluations; if the sampler keeps repeating itself, an unseen configuration is enqueued.

`compare_strategies` replays strategies against a finished exhaustive table and counts the
evaluations each needs to come within 3% of the optimum.
"""

from __future__ import annotations

import math
import random
import statistics
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from autogpu.diagnostics import CompileError
from autogpu.tuner.cache import canonical

STRATEGIES = ("exhaustive", "random", "linear", "model", "gp")
MODEL_STRATEGIES = ("model", "tpe", "gp")
"""The strategies that learn from an Optuna study (shared by workers through its storage)."""


class Strategy:
    """Base class: bookkeeping of the candidates, the pending and the finished ones.

    An adaptive strategy learns from results through `_learn`. With `window` None it learns
    each result when it is told (a replay against a table asks and tells in turn). The session
    sets `window` to the number of asks it may leave outstanding: the strategy then learns the
    results in *proposal* order (a reorder buffer), and its k-th proposal sees exactly the
    results of proposals 0 .. k-1-window, waiting (`waiting`) while one of those is still
    outstanding. So its proposals are a function of the seed and the results alone, not of
    which compilation finished first, and a re-run answered from the cache (where every result
    is known at once) proposes the very same variants."""

    name = "base"
    learns = False  # whether results steer the proposals (then `window` applies)

    def __init__(self, candidates: Sequence[Mapping[str, Any]], seed: int = 0):
        self.candidates = [dict(c) for c in candidates]
        self.keys = {canonical(c): i for i, c in enumerate(self.candidates)}
        self.seed = seed
        self.pending: set[str] = set()
        self.results: dict[str, float | None] = {}
        self.window: int | None = None
        self.proposed: list[dict[str, Any]] = []  # every ask not forgotten, in order
        self._proposed_keys: list[str] = []  # their canonical keys
        self._caught_up = 0  # proposals [0, this) are learned (a forgotten one never is)
        self.learned: dict[str, float | None] = {}  # the results fed to `_learn`, in order

    @property
    def remaining(self) -> int:
        return len(self.candidates) - len(self.results) - len(self.pending)

    def ask(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def tell(self, config: Mapping[str, Any], value: float | None) -> None:
        key = canonical(config)
        self.pending.discard(key)
        self.results[key] = value
        if self.window is None:
            self._learn_once(config, value)

    def forget(self, config: Mapping[str, Any]) -> None:
        """Drop a pending ask without a result (it will be proposed again)."""
        key = canonical(config)
        self.pending.discard(key)
        if key in self._proposed_keys:
            index = self._proposed_keys.index(key)
            del self.proposed[index], self._proposed_keys[index]

    @property
    def waiting(self) -> bool:
        """Whether the next proposal waits for a result still outstanding (not exhausted)."""
        return self.learns and self.remaining > 0 and any(
            key not in self.results
            for key in self._proposed_keys[self._caught_up:self._settled()])

    def settle(self) -> None:
        """Learn every result told so far, in proposal order (the run is over: nothing is
        proposed after this, but a shared study still hears of them)."""
        for config, key in zip(self.proposed, self._proposed_keys):
            if key in self.results:
                self._learn_once(config, self.results[key])

    def _catch_up(self) -> bool:
        """Learn the results of the proposals before the window, in proposal order; False
        while one of them is still outstanding."""
        while self._caught_up < self._settled():
            key = self._proposed_keys[self._caught_up]
            if key not in self.results:
                return False
            self._learn_once(self.proposed[self._caught_up], self.results[key])
            self._caught_up += 1
        return True

    def _settled(self) -> int:
        """How many proposals (the first ones) the next proposal depends on."""
        if self.window is None:
            return 0
        return max(0, len(self.proposed) - self.window)

    def _learn_once(self, config: Mapping[str, Any], value: float | None) -> None:
        key = canonical(config)
        if key not in self.learned:
            self.learned[key] = value
            self._learn(config, value)

    def _learn(self, config: Mapping[str, Any], value: float | None) -> None:
        """Update the model with one result (strategies that learn override this)."""

    def _take(self, config: dict[str, Any]) -> dict[str, Any]:
        key = canonical(config)
        self.pending.add(key)
        self.proposed.append(dict(config))
        self._proposed_keys.append(key)
        return dict(config)


class OrderedStrategy(Strategy):
    """Walk a fixed order of the candidates, skipping what is pending or done."""

    def order(self) -> list[int]:
        return list(range(len(self.candidates)))

    def __init__(self, candidates: Sequence[Mapping[str, Any]], seed: int = 0):
        super().__init__(candidates, seed)
        self._order = self.order()

    def ask(self) -> dict[str, Any] | None:
        for i in self._order:
            key = canonical(self.candidates[i])
            if key not in self.pending and key not in self.results:
                return self._take(self.candidates[i])
        return None


class Exhaustive(OrderedStrategy):
    name = "exhaustive"


class Random(OrderedStrategy):
    name = "random"

    def order(self) -> list[int]:
        order = list(range(len(self.candidates)))
        random.Random(self.seed).shuffle(order)
        return order


class Linear(Strategy):
    """Thompson sampling from a Bayesian linear model of log time (linear_model.py).

    The first `startup` proposals are random (the model needs results, and the session asks
    for a whole compile pool's worth before the first one lands); then each proposal is the
    unseen candidate fastest under one posterior draw. Failed variants are left out of the fit
    and never proposed again."""

    name = "linear"
    learns = True

    def __init__(self, candidates: Sequence[Mapping[str, Any]], seed: int = 0, *,
                 startup: int = 8, ridge: float = 3.0):
        super().__init__(candidates, seed)
        import numpy as np

        from autogpu.tuner.linear_model import LinearModel

        self._np = np
        self._rng = np.random.default_rng(seed)
        self._order = list(range(len(self.candidates)))
        random.Random(seed).shuffle(self._order)
        self.startup = startup
        self.model = LinearModel(self.candidates, ridge)
        self._times: dict[int, float] = {}  # candidate index -> log time, of the successes

    def _free(self, index: int) -> bool:
        key = canonical(self.candidates[index])
        return key not in self.pending and key not in self.results

    def ask(self) -> dict[str, Any] | None:
        if self.remaining <= 0 or not self._catch_up():
            return None
        if len(self._times) < self.startup:
            index = next((i for i in self._order if self._free(i)), None)
            return None if index is None else self._take(self.candidates[index])
        rows = list(self._times)
        draw = self.model.sample(rows, [self._times[i] for i in rows], self._rng)
        taken = [self.keys[k] for k in (*self.pending, *self.results)]
        draw[taken] = self._np.inf
        return self._take(self.candidates[int(self._np.argmin(draw))])

    def _learn(self, config: Mapping[str, Any], value: float | None) -> None:
        index = self.keys.get(canonical(config))
        if index is not None and value is not None and value > 0 and math.isfinite(value):
            self._times[index] = math.log(value)


class Model(Strategy):
    """Optuna's samplers over the valid configurations (TPE by default)."""

    name = "model"
    learns = True
    max_proposals = 30  # sampler proposals tried before enqueueing an unseen configuration

    def __init__(self, candidates: Sequence[Mapping[str, Any]], seed: int = 0, *,
                 sampler: str = "tpe", storage: Any = None, study_name: str | None = None,
                 n_startup_trials: int | None = None):
        super().__init__(candidates, seed)
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        self._optuna = optuna
        self._rng = random.Random(seed)
        self._distributions, self._encoders = self._build_distributions()
        startup = n_startup_trials if n_startup_trials is not None else \
            max(3, min(10, len(self.candidates) // 10))
        if sampler == "tpe":
            sampler_obj = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup,
                                                     constant_liar=True)
        elif sampler == "gp":
            try:
                import torch  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]  # optional: 'gp' only
            except ImportError:
                raise CompileError("strategy 'gp' needs PyTorch (pip install torch); "
                                   "use --strategy model (TPE) instead") from None
            sampler_obj = optuna.samplers.GPSampler(seed=seed, n_startup_trials=startup)
        else:
            raise CompileError(f"unknown sampler '{sampler}'")
        self.shared = storage is not None
        self.study = self._create_study(sampler_obj, storage, study_name)
        self._trials: dict[str, list[Any]] = {}
        self._mine: set[int] = set()  # trial numbers this strategy asked for

    def _create_study(self, sampler: Any, storage: Any, study_name: str | None) -> Any:
        optuna = self._optuna
        for attempt in range(20):  # workers may create the shared study at the same moment
            try:
                return optuna.create_study(direction="minimize", sampler=sampler,
                                           storage=storage, study_name=study_name,
                                           load_if_exists=storage is not None)
            except Exception:
                if storage is None or attempt == 19:
                    raise
                import time

                time.sleep(0.1 * (attempt + 1))
        raise AssertionError("unreachable")

    def _elsewhere(self) -> tuple[dict[str, float | None], set[str]]:
        """Results and work in progress that other tuners put in the shared study."""
        if not self.shared:
            return {}, set()
        TrialState = self._optuna.trial.TrialState
        done: dict[str, float | None] = {}
        running: set[str] = set()
        for t in self.study.get_trials(deepcopy=False):
            if t.number in self._mine or set(t.params) != set(self._distributions):
                continue
            try:
                key = canonical(self._decode(t.params))
            except (IndexError, StopIteration, ValueError):
                continue
            if t.state == TrialState.COMPLETE:
                done[key] = t.value
            elif t.state == TrialState.FAIL and t.user_attrs.get("autogpu") == "failed":
                done.setdefault(key, None)
            elif t.state == TrialState.RUNNING:
                running.add(key)
        return done, running

    def _skip(self, trial: Any, value: float | None = None) -> None:
        """Answer a proposal that will not be evaluated here."""
        if value is None:
            trial.set_user_attr("autogpu", "skipped")
            self.study.tell(trial, state=self._optuna.trial.TrialState.FAIL)
        else:
            self.study.tell(trial, value)

    def _build_distributions(
        self,
    ) -> tuple[dict[str, Any], dict[str, tuple[bool, list[Any]]]]:
        from optuna.distributions import CategoricalDistribution, IntDistribution

        names = list(self.candidates[0]) if self.candidates else []
        distributions: dict[str, Any] = {}
        encoders: dict[str, tuple[bool, list[Any]]] = {}
        for name in names:
            values: list[Any] = []
            for c in self.candidates:
                if c[name] not in values:
                    values.append(c[name])
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
            if numeric:
                values = sorted(values)
                distributions[name] = IntDistribution(0, max(len(values) - 1, 0))
            else:
                distributions[name] = CategoricalDistribution(
                    [v if isinstance(v, (int, float, str, bool)) or v is None else canonical(v)
                     for v in values])
            encoders[name] = (numeric, values)
        return distributions, encoders

    def _decode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        config: dict[str, Any] = {}
        for name, (numeric, values) in self._encoders.items():
            raw = params[name]
            if numeric:
                config[name] = values[int(raw)]
            else:
                config[name] = next(v for v in values
                                    if v == raw or (not isinstance(v, (int, float, str, bool))
                                                    and canonical(v) == raw))
        return config

    def _encode(self, config: Mapping[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for name, (numeric, values) in self._encoders.items():
            v = config[name]
            params[name] = values.index(v) if numeric else (
                v if isinstance(v, (int, float, str, bool)) or v is None else canonical(v))
        return params

    def ask(self) -> dict[str, Any] | None:
        if self.remaining <= 0 or not self._catch_up():
            return None
        done, running = self._elsewhere()
        # Fewer proposals once most of the space is known: the sampler then mostly repeats.
        tries = max(2, min(self.max_proposals,
                           self.max_proposals * self.remaining // max(1, len(self.candidates))))
        for _ in range(tries):
            trial = self.study.ask(self._distributions)
            self._mine.add(trial.number)
            config = self._decode(trial.params)
            key = canonical(config)
            if key not in self.keys:  # violates a restriction: never evaluated
                self._skip(trial)
                continue
            if key in self.learned:  # known: answer from memory
                self._skip(trial, self.learned[key])
                continue
            if key in done:  # another tuner measured it (shared study)
                self.results[key] = self.learned[key] = done[key]
                self._skip(trial, done[key])
                continue
            if key in self.pending or key in self.results or key in running:  # in the window
                self._skip(trial)
                continue
            self._trials.setdefault(key, []).append(trial)
            return self._take(config)
        # The sampler keeps proposing known configurations: enqueue an unseen one.
        unseen = [c for c in self.candidates
                  if canonical(c) not in self.results and canonical(c) not in self.pending
                  and canonical(c) not in running and canonical(c) not in done]
        if not unseen:
            return None
        config = self._rng.choice(unseen)
        self.study.enqueue_trial(self._encode(config))
        trial = self.study.ask(self._distributions)
        self._mine.add(trial.number)
        if canonical(self._decode(trial.params)) != canonical(config):
            # Another worker popped our enqueued trial; answer this one and let the caller retry.
            self._skip(trial)
            return self.ask()
        self._trials.setdefault(canonical(config), []).append(trial)
        return self._take(config)

    def _learn(self, config: Mapping[str, Any], value: float | None) -> None:
        key = canonical(config)
        trials = self._trials.get(key)
        if not trials:
            return
        trial = trials.pop(0)
        if value is None:
            trial.set_user_attr("autogpu", "failed")
            self.study.tell(trial, state=self._optuna.trial.TrialState.FAIL)
        else:
            self.study.tell(trial, value)

    def forget(self, config: Mapping[str, Any]) -> None:
        key = canonical(config)
        super().forget(config)
        trials = self._trials.get(key)
        if trials:
            self._skip(trials.pop(0))


def make_strategy(name: str, candidates: Sequence[Mapping[str, Any]], seed: int = 0,
                  **options: Any) -> Strategy:
    if name == "exhaustive":
        return Exhaustive(candidates, seed)
    if name == "linear":
        return Linear(candidates, seed)
    if name == "random":
        return Random(candidates, seed)
    if name in ("model", "tpe"):
        return Model(candidates, seed, sampler="tpe", **options)
    if name == "gp":
        return Model(candidates, seed, sampler="gp", **options)
    raise CompileError(f"unknown strategy '{name}': choose one of {', '.join(STRATEGIES)}")


# --- replaying strategies against a finished table ---------------------------------------------


def evaluations_to_reach(strategy: Strategy, table: Mapping[str, float | None], target: float,
                         limit: int | None = None) -> int | None:
    """How many evaluations `strategy` makes before one within `target` seconds is found."""
    limit = limit if limit is not None else len(strategy.candidates)
    for n in range(1, limit + 1):
        config = strategy.ask()
        if config is None:
            return None
        value = table.get(canonical(config))
        strategy.tell(config, value)
        if value is not None and value <= target:
            return n
    return None


def compare_strategies(
    table: Iterable[tuple[Mapping[str, Any], float | None]],
    strategies: Sequence[str] = ("exhaustive", "random", "model"),
    seeds: Sequence[int] = tuple(range(10)),
    tolerance: float = 0.03,
) -> dict[str, Any]:
    """Evaluations each strategy needs to reach within `tolerance` of the table's optimum.

    `table` is a finished exhaustive result: (configuration, seconds or None for a failure) in
    enumeration order. Each strategy is replayed against it (the table answers instead of the
    GPU) once per seed; exhaustive is deterministic and replayed once.
    """
    rows = [(dict(c), v) for c, v in table]
    values = [v for _, v in rows if v is not None]
    if not values:
        raise CompileError("no variant succeeded: there is no optimum to compare against")
    optimum = min(values)
    target = optimum * (1 + tolerance)
    lookup = {canonical(c): v for c, v in rows}
    candidates = [c for c, _ in rows]
    result: dict[str, Any] = {"optimum_s": optimum, "tolerance": tolerance,
                              "variants": len(candidates), "strategies": {}}
    for name in strategies:
        runs: list[int | None] = []
        for seed in (seeds[:1] if name == "exhaustive" else seeds):
            strategy = make_strategy(name, candidates, seed)
            runs.append(evaluations_to_reach(strategy, lookup, target))
        found = [r for r in runs if r is not None]
        result["strategies"][name] = {
            "evaluations": runs,
            "median": statistics.median(found) if found else None,
            "mean": statistics.fmean(found) if found else None,
            "max": max(found) if found else None,
            "fraction_of_space": (statistics.median(found) / len(candidates)) if found else None,
        }
    return result
