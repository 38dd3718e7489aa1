"""Writes ecl/calib/testdata/sklearn_platt.json: scikit-learn's Platt scaling
(CalibratedClassifierCV(method="sigmoid"), prefit) on fixed two-class logits,
for ecl/calib's test of -platt-targets smoothed.

usage: /usr/bin/python3 scripts/sklearn_platt_fixture.py   (needs python3-sklearn)

Three data sets, each from its own numpy seed: a mis-scaled model on 200
samples, a small one (20 samples) where the smoothed targets matter most,
and a separable one (40 samples), where label targets would fit an
infinite slope. The calibrator sees the decision function s = z1 - z0, the
uncalibrated logit of P(class 1); scikit-learn predicts
P(class 1) = 1/(1 + exp(a*s + b)).
"""
import json

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV


class Fixed(ClassifierMixin, BaseEstimator):
    """A fitted binary classifier whose decision function is column 0 of X."""

    def __init__(self):
        self.classes_ = np.array([0, 1])

    def fit(self, X, y):
        return self

    def decision_function(self, X):
        return X[:, 0]


def case(name, seed, n, scale, separable=False):
    rng = np.random.default_rng(seed)
    s_true = rng.normal(0.0, 2.0, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-s_true))).astype(int)
    if separable:
        s_true = np.where(y == 1, np.abs(s_true) + 0.5, -np.abs(s_true) - 0.5)
    s = scale * s_true  # the model's logit: over-confident when scale > 1
    z0 = rng.normal(0.0, 1.0, n)
    logits = np.stack([z0, z0 + s], axis=1)
    cal = CalibratedClassifierCV(Fixed(), method="sigmoid", cv="prefit").fit(s[:, None], y)
    p = cal.predict_proba(s[:, None])[:, 1]
    a, b = cal.calibrated_classifiers_[0].calibrators[0].a_, cal.calibrated_classifiers_[0].calibrators[0].b_
    return {"name": name, "logits": logits.ravel().tolist(), "labels": y.tolist(),
            "p1": p.tolist(), "a": float(a), "b": float(b)}


cases = [case("mis-scaled, 200 samples", 1, 200, 3.0),
         case("small, 20 samples", 2, 20, 2.0),
         case("separable, 40 samples", 3, 40, 1.0, separable=True)]
with open("ecl/calib/testdata/sklearn_platt.json", "w") as f:
    json.dump({"sklearn": sklearn.__version__, "numpy": np.__version__,
               "command": "/usr/bin/python3 scripts/sklearn_platt_fixture.py", "cases": cases}, f, indent=1)
    f.write("\n")
