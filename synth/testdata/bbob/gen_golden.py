"""Generates golden.json for synth/bbob_test.go from vizier's bbob.py.

Usage (see README.md): python3 gen_golden.py /path/to/dir/containing/bbob.py OUT.json
Requires only numpy; bbob.py is vizier's file with the scipy/pyvizier imports
removed (they are not used by the function definitions with seed=0).
"""
import json
import platform
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import bbob  # noqa: E402  (vizier's bbob.py, stripped as described in README)

NAMES = [
    "Sphere", "Ellipsoidal", "Rastrigin", "BuecheRastrigin", "LinearSlope",
    "AttractiveSector", "StepEllipsoidal", "RosenbrockRotated", "Discus",
    "BentCigar", "SharpRidge", "DifferentPowers", "Weierstrass", "SchaffersF7",
    "SchaffersF7IllConditioned", "GriewankRosenbrock", "Schwefel", "Katsuura",
    "Lunacek", "Gallagher101Me", "Gallagher21Me", "NegativeSphere",
    "NegativeMinDifference", "FonsecaFleming",
]
DIMS = [1, 2, 3, 5, 10, 20, 40, 150]
# Functions synth.NewBBOB rejects for D = 1: those built on consecutive pairs
# (z_i, z_{i+1}), for which vizier returns a constant or divides by zero, and
# Lunacek, whose s = 1 - 1/(2*sqrt(21) - 8.2) is negative for D = 1, so that
# vizier's mu1 = -((mu0**2 - 1)/s)**0.5 and the value are complex.
NEEDS_DIM2 = {"RosenbrockRotated", "SchaffersF7", "SchaffersF7IllConditioned",
              "GriewankRosenbrock", "NegativeMinDifference", "Lunacek"}
SEED = 20240601


def main():
  rng = np.random.RandomState(SEED)
  cases = []
  for d in DIMS:
    pts = [
        ("origin", np.zeros(d)),
        ("corner+5", np.full(d, 5.0)),
        ("corner-5", np.full(d, -5.0)),
        ("ramp", np.arange(1, d + 1, dtype=np.float64) / d),
    ]
    for k in range(5):
      pts.append((f"uniform{k}", rng.uniform(-5.0, 5.0, size=d)))
    # Extra points outside the box, to exercise the penalty terms.
    for k in range(2):
      pts.append((f"outside{k}", rng.uniform(-8.0, 8.0, size=d)))
    for label, x in pts:
      vals = {}
      for name in NAMES:
        if d == 1 and name in NEEDS_DIM2:
          continue
        fn = getattr(bbob, name)
        # vizier's NumpyExperimenter passes a fresh 1-D float64 row; the
        # functions reshape their argument in place, so copy per call.
        v = fn(np.array(x, dtype=np.float64, copy=True), seed=0)
        if np.iscomplexobj(v):
          raise SystemExit(f"complex {name} at {label} d={d}: {v}")
        v = float(v)
        if not np.isfinite(v):
          raise SystemExit(f"non-finite {name} at {label} d={d}: {v}")
        vals[name] = v
      cases.append({"dim": d, "label": label, "x": [float(t) for t in x],
                    "values": vals})
  out = {
      "source": "google/vizier vizier/_src/benchmarks/experimenters/synthetic/bbob.py",
      "seed": 0,
      "python": platform.python_version(),
      "numpy": np.__version__,
      "point_seed": SEED,
      "cases": cases,
  }
  with open(sys.argv[2], "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")


if __name__ == "__main__":
  main()
