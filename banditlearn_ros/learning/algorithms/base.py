# Copyright 2026 banditlearn_ros contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The one interface every learner shares: labels, input checks, seeded ties, state.

A learner keeps its learned state in arrays with one row per label, so adding a label
appends a row and keeps everything learned so far.  Hyperparameters are constructor
arguments stored under their own names; ``set_params`` changes them with the same checks.
"""

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .centring import Centring
from .checks import (check_choice, check_positive, check_range,  # noqa: F401 (re-exported)
                     HyperparameterError, LearnerInputError)
from .prediction import Prediction

OPEN_SET_PREFIX = 'open_set_'
"""Model-file arrays of the open set's calibration (``open_set.Calibration.state``)."""

Label = Union[int, str]


class OnlineClassifier:
    """
    Base of every learner: labels, feature checks, seeded tie-breaking, state.

    Subclasses declare ``name``, ``_hyperparameters`` (names of constructor arguments),
    ``_array_names`` (learned state arrays, first axis = label) and implement
    ``_validate``, ``_init_rows`` and ``scores``.
    """

    name = 'base'
    _hyperparameters: tuple = ()
    _hyperparameters_before: Dict[str, Any] = {}
    """Values of hyperparameters added later, for states saved before they existed."""
    _array_names: tuple = ()
    _construction_only: tuple = ()
    """Hyperparameters that shape the learned arrays: set at construction, refused later."""
    _positive_arrays: tuple = ()
    """Arrays of variances or precisions: entries (of a full matrix, its diagonal) > 0."""

    def __init__(self, labels: Union[int, Sequence[str]], n_features: int, seed: int = 0):
        if isinstance(labels, (int, np.integer)):
            if labels < 1:
                raise HyperparameterError(f'need at least one label, got {labels}')
            labels = [str(i) for i in range(int(labels))]
        labels = [str(lb) for lb in labels]
        if not labels:
            raise HyperparameterError('need at least one label')
        if len(set(labels)) != len(labels):
            raise HyperparameterError(f'label names must be unique, got {labels}')
        if int(n_features) < 1:
            raise HyperparameterError(f'n_features must be >= 1, got {n_features}')
        self.labels: List[str] = labels
        self.n_features = int(n_features)
        self.seed = int(seed)
        self._rng = np.random.default_rng(self.seed)
        self.n_updates = 0
        self.centring = Centring('none')
        """The mean taken out of each vector before the learner sees it (``centring``);
        carried here so that it is saved, loaded and reset with the model.  ``centred``
        applies it; ``select`` and ``learn`` take vectors already centred."""
        self.calibration: Optional[Any] = None
        """What rejection of never-taught gestures learned (``open_set.Calibration``), or
        None; carried here, like the centring, so that the model file keeps it."""
        self._validate()
        for name in self._array_names:
            setattr(self, '_' + name, self._init_rows(name, len(labels)))

    # -- hyperparameters -------------------------------------------------------------
    def _validate(self) -> None:
        """Check hyperparameters and compute derived constants (override)."""

    @classmethod
    def hyperparameter_names(cls) -> Tuple[str, ...]:
        """Return the names of the constructor's hyperparameters (``get_params``'s keys)."""
        return tuple(cls._hyperparameters)

    @classmethod
    def array_names(cls) -> Tuple[str, ...]:
        """Return the names of the learned arrays (a model file's, one row per label)."""
        return tuple(cls._array_names)

    def take_learned(self, other: 'OnlineClassifier', extra: Dict[str, Any]) -> None:
        """
        Take ``other``'s learned arrays (same class and shapes, checked) and ``extra`` state.

        In place, so what holds this learner keeps it; new arrays, not writes into the old
        ones, so sums cached from the old rows are not used again.
        """
        for name in self._array_names:
            setattr(self, '_' + name, getattr(other, '_' + name))
        self._load_extra_state(extra)

    def get_params(self) -> Dict[str, Any]:
        """Return the hyperparameters as a dict of constructor arguments."""
        return {name: getattr(self, name) for name in self._hyperparameters}

    def set_params(self, **params: Any) -> None:
        """Change hyperparameters; on an invalid value nothing changes and the error says why."""
        unknown = set(params) - set(self._hyperparameters)
        if unknown:
            raise HyperparameterError(
                f'{self.name} has no hyperparameter {sorted(unknown)}; '
                f'it has {list(self._hyperparameters)}')
        old = self.get_params()
        fixed = sorted(k for k in set(params) & set(self._construction_only)
                       if params[k] != old[k])
        if fixed:
            raise HyperparameterError(
                f'{self.name}: {", ".join(fixed)} can only be set when the learner is made '
                '(it shapes the learned arrays); start a new model to change it')
        for key, value in params.items():
            setattr(self, key, value)
        try:
            self._validate()
        except HyperparameterError:
            for key, value in old.items():
                setattr(self, key, value)
            self._validate()
            raise

    # -- labels and inputs -----------------------------------------------------------
    @property
    def n_labels(self) -> int:
        """Return how many labels are known."""
        return len(self.labels)

    def label_index(self, label: Label) -> int:
        """Return the index of a label given by index or by name."""
        if isinstance(label, (str, np.str_)):
            try:
                return self.labels.index(str(label))
            except ValueError:
                raise LearnerInputError(
                    f'unknown label {label!r}; known labels are {self.labels}') from None
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, (int, np.integer)):
            raise LearnerInputError(f'a label is an index or a name, got {label!r}')
        if not 0 <= int(label) < self.n_labels:
            raise LearnerInputError(
                f'label index {int(label)} is outside 0..{self.n_labels - 1}')
        return int(label)

    def add_label(self, name: str) -> int:
        """
        Add a class at runtime; what was learned for the others is kept.

        Returns
        -------
        int
            Index of the new label.

        """
        name = str(name)
        if name in self.labels:
            raise LearnerInputError(f'label {name!r} exists already')
        for arr_name in self._array_names:
            old = getattr(self, '_' + arr_name)
            setattr(self, '_' + arr_name,
                    np.concatenate([old, self._init_rows(arr_name, 1)], axis=0))
        self.labels.append(name)
        return self.n_labels - 1

    def check_x(self, x: Any) -> np.ndarray:
        """Return x as a float64 vector of the right size; never mutates the caller's array."""
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise LearnerInputError('features must be numbers') from None
        if arr.ndim != 1:
            arr = arr.reshape(-1) if arr.size == self.n_features else arr
        if arr.ndim != 1 or arr.shape[0] != self.n_features:
            raise LearnerInputError(
                f'expected {self.n_features} features, got shape {np.shape(x)}')
        if not np.all(np.isfinite(arr)):
            raise LearnerInputError('features contain NaN or infinity')
        return arr

    def centred(self, x: np.ndarray, take: bool = True) -> np.ndarray:
        """
        Return ``x`` as this learner sees it: the features' mean taken out (``centring``).

        The one place a vector is centred (the live learner, replay and the offline runs
        alike).  ``x`` must be a finite float64 vector of the learner's size; with
        ``take`` it first moves the running mean, else it is only looked at.  With
        centring ``none`` (the papers' algorithms) ``x`` itself is returned.
        """
        return self.centring.apply(x) if take else self.centring.centre(x)

    def _argmax(self, values: np.ndarray) -> int:
        """Argmax with ties broken at random from the learner's seed."""
        first = int(values.argmax())
        ties = values == values[first]
        if np.count_nonzero(ties) == 1:
            return first
        best = np.flatnonzero(ties)
        return int(best[self._rng.integers(best.size)])

    # -- predictions -----------------------------------------------------------------
    def scores(self, x: Any) -> np.ndarray:
        """Per-label margins for x (override)."""
        raise NotImplementedError

    def predict(self, x: Any) -> int:
        """Greedy prediction: the best-scoring label index, no exploration."""
        return self._argmax(self.scores(x))

    # -- state -----------------------------------------------------------------------
    def _init_rows(self, name: str, n: int) -> np.ndarray:
        """Return the initial learned state for ``n`` new labels (override)."""
        raise NotImplementedError

    def _extra_state(self) -> Dict[str, Any]:
        """JSON-able learned state beyond the arrays (extend with super())."""
        extra: Dict[str, Any] = {'n_updates': self.n_updates}
        if self.centring.active:
            extra['centring'] = self.centring.state()
        return extra

    def _load_extra_state(self, extra: Dict[str, Any]) -> None:
        """Restore what ``_extra_state`` returned (extend with super())."""
        self.n_updates = int(extra.get('n_updates', 0))
        # A file saved before centring existed (or with none) learned on raw vectors.
        self.centring = Centring.from_state(extra.get('centring', {'mode': 'none'}),
                                            self.n_features)

    def state_dict(self) -> Dict[str, Any]:
        """Everything needed to continue exactly: plain arrays plus JSON-able values."""
        arrays = {name: getattr(self, '_' + name).copy() for name in self._array_names}
        extra = self._extra_state()
        if self.calibration is not None:
            extra['open_set'], held = self.calibration.state()
            arrays.update({OPEN_SET_PREFIX + k: v for k, v in held.items()})
        return {
            'algorithm': self.name,
            'hyperparameters': self.get_params(),
            'labels': list(self.labels),
            'n_features': self.n_features,
            'seed': self.seed,
            'rng_state': _jsonable(self._rng.bit_generator.state),
            'extra': extra,
            'arrays': arrays,
        }

    @classmethod
    def from_state_dict(cls, state: Dict[str, Any]) -> 'OnlineClassifier':
        """Rebuild a learner from ``state_dict()`` output, checking every shape."""
        if state.get('algorithm') != cls.name:
            raise ValueError(f'state is for {state.get("algorithm")!r}, not {cls.name!r}')
        hyperparameters = {**cls._hyperparameters_before, **state['hyperparameters']}
        obj = cls(labels=state['labels'], n_features=state['n_features'],
                  seed=state.get('seed', 0), **hyperparameters)
        arrays = state['arrays']
        missing = set(cls._array_names) - set(arrays)
        if missing:
            raise ValueError(f'state lacks arrays {sorted(missing)}')
        for name in cls._array_names:
            expected = getattr(obj, '_' + name)
            arr = np.asarray(arrays[name])
            if arr.shape != expected.shape:
                raise ValueError(
                    f'array {name!r} has shape {arr.shape}, expected {expected.shape}')
            if not np.all(np.isfinite(arr)):
                raise ValueError(f'array {name!r} contains NaN or infinity')
            if name in cls._positive_arrays:
                check_positive(name, arr, obj.labels)
            setattr(obj, '_' + name, np.array(arr, dtype=expected.dtype))
        if state.get('rng_state'):
            obj._rng.bit_generator.state = state['rng_state']
        extra = state.get('extra') or {}
        obj._load_extra_state(extra)
        return obj


class BanditLearner(OnlineClassifier):
    """A learner that only hears whether its output label was right (one bit)."""

    def __init__(self, labels: Union[int, Sequence[str]], n_features: int, seed: int = 0):
        super().__init__(labels, n_features, seed)
        self.confirmations: Dict[str, int] = {}
        """The "yes" answers each label added at runtime has had (``on_probation``)."""

    def select(self, x: Any) -> Prediction:
        """Choose the output label for x, exploring as the algorithm prescribes."""
        raise NotImplementedError

    def learn(self, x: Any, label: Label, correct: bool,
              prediction: Optional[Prediction] = None) -> bool:
        """
        Learn from the bit ``correct`` about output ``label`` for ``x``.

        Parameters
        ----------
        x : array_like
            The observation the label was output for.
        label : int or str
            The output label the feedback is about.
        correct : bool
            True when the person said the label was right.
        prediction : Prediction, optional
            The ``select`` result for this round; algorithms whose update depends on the
            greedy label or the sampling probability take them from here (else they are
            recomputed from the current model).

        Returns
        -------
        bool
            True when the model changed.

        """
        raise NotImplementedError

    def select_valid(self, x: np.ndarray) -> Optional[Prediction]:
        """
        ``select`` for a float64 vector of the right size; None (nothing changed) if not finite.

        The fast path for callers that converted and sized x already (``Interaction``):
        the caller vouches for the dtype and size, this checks finiteness.  Learners with a
        faster way to refuse NaN or infinity override it.
        """
        if not math.isfinite(x.dot(x)) and not np.isfinite(x).all():
            return None
        return self.select(x)

    def learn_valid(self, x: np.ndarray, index: int, correct: bool,
                    prediction: Optional[Prediction]) -> int:
        """
        ``learn`` for an x ``select_valid`` took, a label index and a bool: 1 if changed.

        The fast path of ``ask_again.Questions``: nothing is checked again, so x must be the
        vector ``select_valid`` accepted and ``index`` one of its labels.
        """
        return int(bool(self.learn(x, index, correct, prediction=prediction)))

    def learn_new_label(self, x: Any, name: str) -> int:
        """
        Add the label a person named for ``x`` and learn ``x`` as a yes for it.

        This is how a gesture the robot did not know is taught: every known label was
        rejected for ``x``, the person says what it is, and the observation that was
        rejected becomes the new label's first example.  Nothing changes if ``x`` or
        ``name`` is refused.

        Returns
        -------
        int
            Index of the new label.

        """
        x = self.check_x(x)
        index = self.add_label(name)
        self.learn(x, index, True)
        self.confirm(index)
        return index

    # -- labels added at runtime -------------------------------------------------------
    def add_label(self, name: str) -> int:
        """Add a class at runtime and start counting the "yes" answers it gets."""
        index = super().add_label(name)
        self.confirmations[self.labels[index]] = 0
        return index

    def confirm(self, index: int) -> None:
        """Count a "yes" to label ``index`` (only labels added at runtime are counted)."""
        name = self.labels[index]
        if name in self.confirmations:
            self.confirmations[name] += 1

    def on_probation(self, probation: int) -> List[int]:
        """Return the labels added at runtime with fewer than ``probation`` "yes" answers."""
        if probation <= 0 or not self.confirmations:
            return []
        return [self.labels.index(n) for n, c in self.confirmations.items() if c < probation]

    def _extra_state(self) -> Dict[str, Any]:
        extra = super()._extra_state()
        if self.confirmations:
            extra['confirmations'] = dict(self.confirmations)
        return extra

    def _load_extra_state(self, extra: Dict[str, Any]) -> None:
        super()._load_extra_state(extra)
        counts = extra.get('confirmations', {})
        if not isinstance(counts, dict) or any(
                n not in self.labels or isinstance(c, bool) or not isinstance(c, int) or c < 0
                for n, c in counts.items()):
            raise ValueError(f'confirmations must map known labels to counts >= 0, '
                             f'got {counts!r}')
        self.confirmations = {str(n): int(c) for n, c in counts.items()}

    def _upper_confidence_choice(self, scores: np.ndarray, widths: np.ndarray) -> Prediction:
        """Output the label maximising ``score + width`` (ties at random): the UCB rule."""
        bounds = scores + widths
        chosen = self._argmax(bounds)
        return self._prediction(chosen, scores, bounds, greedy=self._argmax(scores))

    def _prediction(self, chosen: int, scores: np.ndarray, bounds: np.ndarray,
                    greedy: int, probability: float = 1.0) -> Prediction:
        return Prediction(index=chosen, label=self.labels[chosen], scores=scores,
                          bounds=bounds, explored=bool(scores[chosen] < scores.max()),
                          greedy=greedy, probability=probability)

    @staticmethod
    def _check_correct(correct: Any) -> bool:
        if not isinstance(correct, (bool, np.bool_)):
            raise LearnerInputError(f'feedback must be True or False, got {correct!r}')
        return bool(correct)


class FullFeedbackLearner(OnlineClassifier):
    """A reference learner that is told the true label (not possible with a person's yes/no)."""

    def learn_true(self, x: Any, y: Label) -> bool:
        """Update from the true label; returns True when the model changed."""
        raise NotImplementedError


def _jsonable(obj: Any) -> Any:
    """Numpy scalars and arrays inside dicts to plain Python, for JSON."""
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    return obj
