"""Mean Kendall's tau and test NLL_u per dataset and sigma of pilot.sh's lines."""
import collections
import sys

runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    ds, s, _seed, tau, nll, _cov = line.split()
    runs[(ds, s)].append((float(tau), float(nll)))
sets = list(dict.fromkeys(k[0] for k in runs))
sigmas = sorted({k[1] for k in runs}, key=float)
print("| dataset | " + " | ".join(f"sigma {s}: tau, NLL_u" for s in sigmas) + " |")
print("|---|" + "---|" * len(sigmas))
for ds in sets:
    cells = []
    for s in sigmas:
        r = runs.get((ds, s))
        cells.append("—" if not r else "%.3f, %.2f" % (sum(x[0] for x in r) / len(r), sum(x[1] for x in r) / len(r)))
    print(f"| {ds} | " + " | ".join(cells) + " |")
