#!/usr/bin/env python3
"""XGBoost baseline on the paper's 24 UCI data sets (decoreg issue 13).

For each data set <name> under --data, reads <name>/data.csv.gz (CSV with a
header; the target is the LAST column, every other column a numeric feature)
and <name>/test_mask.csv.gz (header split0,...,split{k-1}; one row per data
row; "1" marks a test row of that split, "0" a train row -- the format
decoreg's data.ReadMask reads, and nothing else is accepted). For each
requested split it trains

    XGBRegressor(n_estimators=500, learning_rate=0.05, max_depth=6,
                 subsample=0.8, colsample_bytree=0.8, random_state=0,
                 n_jobs=1, tree_method="hist")

on the train rows (raw features, raw targets, no scaling), predicts the test
rows, and appends one JSON line to --out with Kendall's tau-b of
(prediction, test target) (scipy.stats.kendalltau's default, the same
statistic as decoreg's metrics.KendallTau), the test RMSE, n_train, n_test,
the fit+predict seconds, the xgboost and numpy versions and the repository
commit.

Resumable: each (dataset, split) is written as one line in a single write
call and flushed as soon as it finishes; a rerun skips the keys already in
--out. --shard I/N keeps only the (dataset, split) jobs whose index in the
job list is I modulo N, so N processes can share the work.

Run (from the repository root, with Debian's python3-xgboost, python3-numpy,
python3-scipy and python3-sklearn, which XGBRegressor needs; /usr/bin/python3
so that a pyenv python does not shadow them):

    nice -n 10 /usr/bin/python3 experiments/xgboost/xgb_uci.py --splits 0
    nice -n 10 /usr/bin/python3 experiments/xgboost/xgb_uci.py --splits 0-9
    /usr/bin/python3 experiments/xgboost/report.py
"""

import argparse
import csv
import gzip
import io
import json
import os
import subprocess
import sys
import time

import numpy as np
import scipy
import scipy.stats
import sklearn  # XGBRegressor needs it (Debian: python3-sklearn)
import xgboost

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PARAMS = dict(n_estimators=500, learning_rate=0.05, max_depth=6, subsample=0.8,
              colsample_bytree=0.8, random_state=0, n_jobs=1, tree_method="hist")


def open_text(path):
    """Opens a CSV file as text, gunzipping it if it starts with the gzip magic."""
    f = open(path, "rb")
    if f.peek(2)[:2] == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.GzipFile(fileobj=f), encoding="utf-8", newline="")
    return io.TextIOWrapper(f, encoding="utf-8", newline="")


def read_data(path):
    """Returns (header, X, y): the target is the last column."""
    with open_text(path) as f:
        r = csv.reader(f)
        header = [h.strip().lstrip("\ufeff") for h in next(r)]
        rows = []
        for i, rec in enumerate(r, start=2):
            if len(rec) != len(header):
                sys.exit(f"{path}:{i}: {len(rec)} fields, the header has {len(header)}")
            rows.append([float(c) for c in rec])
    a = np.asarray(rows, dtype=np.float64)
    return header, a[:, :-1], a[:, -1]


def read_mask(path):
    """Returns a (rows, splits) bool array, read as decoreg's data.ReadMask does."""
    with open_text(path) as f:
        r = csv.reader(f)
        header = [h.strip() for h in next(r)]
        if header:
            header[0] = header[0].lstrip("\ufeff")
        for j, name in enumerate(header):
            if name != f"split{j}":
                sys.exit(f"{path}: column {j + 1} is {name!r}, want 'split{j}'")
        rows = []
        for i, rec in enumerate(r, start=2):
            if len(rec) != len(header):
                sys.exit(f"{path}:{i}: {len(rec)} fields, the header has {len(header)}")
            row = []
            for c in rec:
                c = c.strip()
                if c not in ("0", "1"):
                    sys.exit(f"{path}:{i}: mask value {c!r}, want 0 or 1")
                row.append(c == "1")
            rows.append(row)
    if not rows:
        sys.exit(f"{path}: no rows")
    return np.asarray(rows, dtype=bool)


def parse_splits(s):
    """'0-9', '3' or '0,2,5-7' -> sorted list of ints."""
    out = set()
    for part in s.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return sorted(out)


def git_commit():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def done_keys(path):
    keys = set()
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line from a killed run; redone
                keys.add((rec["dataset"], rec["split"]))
    return keys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data", "uci"),
                    help="directory of <name>/data.csv.gz and <name>/test_mask.csv.gz")
    ap.add_argument("--splits", default="0-9", help="e.g. 0-9, 0 or 0,3,5-7")
    ap.add_argument("--datasets", default="", help="comma-separated names (default: all under --data)")
    ap.add_argument("--out", default=os.path.join(REPO, "experiments", "results", "xgboost", "results.jsonl"))
    ap.add_argument("--shard", default="0/1", help="I/N: do only jobs with index %% N == I")
    ap.add_argument("--commit", default="", help="repository commit to record (default: git rev-parse HEAD)")
    args = ap.parse_args()

    data_dir = os.path.normpath(args.data)
    if args.datasets:
        names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    else:
        names = sorted(n for n in os.listdir(data_dir)
                       if os.path.exists(os.path.join(data_dir, n, "data.csv.gz")))
    splits = parse_splits(args.splits)
    shard_i, shard_n = (int(x) for x in args.shard.split("/"))
    commit = args.commit or git_commit()

    jobs = [(n, s) for s in splits for n in names]  # split-major: split 0 of every set first
    jobs = [j for k, j in enumerate(jobs) if k % shard_n == shard_i]
    done = done_keys(args.out)
    todo = [j for j in jobs if j not in done]
    print(f"{len(jobs)} jobs in this shard, {len(jobs) - len(todo)} already in {args.out}, "
          f"{len(todo)} to do; xgboost {xgboost.__version__}, commit {commit}", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)

    cache = {}
    fd = os.open(args.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        for name, split in todo:
            if name not in cache:
                cache.clear()
                _, X, y = read_data(os.path.join(data_dir, name, "data.csv.gz"))
                mask = read_mask(os.path.join(data_dir, name, "test_mask.csv.gz"))
                if mask.shape[0] != X.shape[0]:
                    sys.exit(f"{name}: mask has {mask.shape[0]} rows but data has {X.shape[0]}")
                cache[name] = (X, y, mask)
            X, y, mask = cache[name]
            if split >= mask.shape[1]:
                sys.exit(f"{name}: split {split}, want 0 to {mask.shape[1] - 1}")
            test = mask[:, split]
            t0 = time.time()
            model = xgboost.XGBRegressor(**PARAMS)
            model.fit(X[~test], y[~test])
            pred = model.predict(X[test]).astype(np.float64)
            secs = time.time() - t0
            yt = y[test]
            tau = scipy.stats.kendalltau(pred, yt)[0]
            rmse = float(np.sqrt(np.mean((pred - yt) ** 2)))
            rec = dict(dataset=name, split=split, kendall_tau=float(tau), rmse=rmse,
                       n_train=int((~test).sum()), n_test=int(test.sum()), seconds=round(secs, 3),
                       xgboost=xgboost.__version__, numpy=np.__version__, scipy=scipy.__version__,
                       sklearn=sklearn.__version__,
                       commit=commit, params=PARAMS)
            os.write(fd, (json.dumps(rec, sort_keys=True) + "\n").encode())
            os.fsync(fd)
            print(f"{name:14s} split {split}: tau {tau:.4f}  rmse {rmse:.4g}  "
                  f"n_train {rec['n_train']} n_test {rec['n_test']}  {secs:.1f}s", flush=True)
    finally:
        os.close(fd)


if __name__ == "__main__":
    main()
