package experiments

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"slices"

	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"decoreg"
	"decoreg/data"
	"decoreg/dist"
	"decoreg/metrics"
)

// The real-data experiments (DESIGN.md section 8, items 4, 5 and 8): the
// paper ran them on OpenML-CTR23 and AMLB tasks, which cannot be
// downloaded here; they run on the UCI datasets of --data (any directory
// of datasets in the same layout: DIR/<name>/data.csv.gz and
// test_mask.csv.gz).

// uciData loads datasets once per experiment run and hands out train/test
// parts. It is safe for concurrent use.
type uciData struct {
	dir  string
	mu   sync.Mutex
	sets map[string]*dataset
}

func newUCIData(opts Options) *uciData {
	return &uciData{dir: dataDir(opts), sets: map[string]*dataset{}}
}

// DefaultDataDir is the data directory when Options.DataDir is empty:
// ../shared/data/uci, relative to the working directory (the command line
// passes its own default, which also looks beside the git root).
func DefaultDataDir() string { return "../shared/data/uci" }

// dataDir is opts.DataDir or DefaultDataDir.
func dataDir(opts Options) string {
	if opts.DataDir == "" {
		return DefaultDataDir()
	}
	return opts.DataDir
}

func (u *uciData) get(name string) (*dataset, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if ds := u.sets[name]; ds != nil {
		return ds, nil
	}
	ds, err := loadDataset(u.dir, name, nil)
	if err != nil {
		return nil, &InputError{err}
	}
	u.sets[name] = ds
	return ds, nil
}

// split returns the train and test parts of split k of a dataset.
func (u *uciData) split(name string, k int) (tr, te *data.Dataset, err error) {
	ds, err := u.get(name)
	if err != nil {
		return nil, nil, err
	}
	test, err := ds.m.Test(k)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	tr, te = data.TrainTest(ds.d, test)
	return tr, te, nil
}

// wrappedSplit is split for split k modulo the dataset's number of
// splits, which it returns. The plans of split indices (realworld,
// calibration, decoder-size, error-correction, hamming, tabular) refuse
// more splits than a dataset has (checkSplits), so that k is the split.
func (u *uciData) wrappedSplit(name string, k int) (tr, te *data.Dataset, split int, err error) {
	ds, err := u.get(name)
	if err != nil {
		return nil, nil, 0, err
	}
	split = k % ds.m.Splits()
	tr, te, err = u.split(name, split)
	return tr, te, split, err
}

// TrainSubset returns size distinct row indices drawn uniformly from
// 0..rows-1 without replacement, sorted, from seed; all rows when size >=
// rows. The same (rows, size, seed) give the same subset, so every head of
// a comparison trains on the same rows.
func TrainSubset(rows, size int, seed uint64) []int {
	if size >= rows {
		out := make([]int, rows)
		for i := range out {
			out[i] = i
		}
		return out
	}
	r := rand.New(rand.NewPCG(seed, 0x5ab5e7))
	perm := r.Perm(rows)[:size]
	sort.Ints(perm)
	return perm
}

// subsetSeed is the seed of a dataset's training subset for run r: the same
// for every head.
func subsetSeed(dataset string, size, r int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", dataset, size, r)
	return h.Sum64()
}

// datasetsFor returns opts.Datasets (sorted: the plan, and so what each
// --shard I/N runs, does not depend on the order they were listed in;
// shards given one list in two orders overlapped and left runs out), or
// the datasets of the data directory, or def when the directory has all of
// def and opts.Datasets is nil.
func datasetsFor(opts Options, def []string) []string {
	switch {
	case len(opts.Datasets) > 0:
		return slices.Sorted(slices.Values(opts.Datasets))
	case def != nil:
		return def
	}
	ds, _ := Datasets(dataDir(opts)) // none: checkDatasets says so
	return ds
}

// nOr returns opts.N, or def (quick with Quick) when it is 0.
func nOr(opts Options, def, quick int) int {
	switch {
	case opts.N > 0:
		return opts.N
	case opts.Quick:
		return quick
	}
	return def
}

// seedsOr returns opts.Seeds, or def (1 with Quick) when it is 0.
func seedsOr(opts Options, def int) int {
	switch {
	case opts.Seeds > 0:
		return opts.Seeds
	case opts.Quick:
		return 1
	}
	return def
}

// realPlan is the start of every real-data plan: the data, the datasets
// (opts.Datasets, else def, else every dataset; quick when Quick and none
// are given), checked to exist, and the runs per setting (opts.Seeds, else
// defSeeds; 1 with Quick).
func realPlan(opts Options, def, quick []string, defSeeds int) (*uciData, []string, int, error) {
	names := datasetsFor(opts, def)
	if opts.Quick && len(opts.Datasets) == 0 {
		names = quick
	}
	if err := checkDatasets(opts, names); err != nil {
		return nil, nil, 0, err
	}
	return newUCIData(opts), names, seedsOr(opts, defSeeds), nil
}

// realSplitPlan is realPlan for the experiments whose runs per setting are
// splits 0..S-1 of each dataset (all but scaling): S above a dataset's
// number of splits is refused (checkSplits).
func realSplitPlan(experiment string, opts Options, def, quick []string, defSeeds int) (*uciData, []string, int, error) {
	u, names, splits, err := realPlan(opts, def, quick, defSeeds)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := checkSplits(experiment, opts, names, splits); err != nil {
		return nil, nil, 0, err
	}
	return u, names, splits, nil
}

// checkSplits refuses more splits than a dataset of names has (its mask's
// columns): experiment's runs of split k would train and test on split k
// modulo that number (wrappedSplit), repeating a split under another key
// and another seed. splits is --seeds (or the experiment's default).
func checkSplits(experiment string, opts Options, names []string, splits int) error {
	if splits <= 1 {
		return nil // every dataset has split 0
	}
	flag := fmt.Sprintf("--seeds %d", splits)
	if opts.Seeds == 0 {
		flag += " (the default)"
	}
	for _, ds := range names {
		m, err := data.ReadMask(filepath.Join(dataDir(opts), ds, MaskFile))
		if err != nil {
			return &InputError{fmt.Errorf("dataset %s: %v", ds, err)}
		}
		if splits > m.Splits() {
			return &InputError{fmt.Errorf("%s: %s: dataset %s has %d splits (0..%d): --seeds is at most %d",
				experiment, flag, ds, m.Splits(), m.Splits()-1, m.Splits())}
		}
	}
	return nil
}

// checkDatasets reports a dataset of names that the data directory lacks.
func checkDatasets(opts Options, names []string) error {
	dir := dataDir(opts)
	if len(names) == 0 {
		if _, err := Datasets(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &InputError{err} // none, or one misnamed
		}
		return &InputError{fmt.Errorf("%s: no datasets (no subdirectory holds %s)", dir, DataFile)}
	}
	for _, n := range names {
		if err := CheckDatasetName(n); err != nil {
			return &InputError{err}
		}
		if _, err := os.Stat(filepath.Join(dir, n, DataFile)); err != nil {
			return &InputError{fmt.Errorf("dataset %s: %v", n, err)}
		}
	}
	return nil
}

// sampleMeanRelMSE draws ns[len-1] samples per test row with opts and
// returns, for each n of ns, the relative MSE of the mean of each row's
// first n samples, and that of the median of all of them.
func sampleMeanRelMSE(m *decoreg.Model, x []float64, y []float64, ns []int, o dist.SampleOptions, seed uint64) ([]Float, Float, error) {
	rows := len(y)
	ds, err := m.Dists(context.Background(), x, rows, dist.TokenOptions{})
	if err != nil {
		return nil, 0, err
	}
	nmax := ns[len(ns)-1]
	r := rand.New(rand.NewPCG(seed, 0x5a3b1e))
	samples := make([][]float64, rows)
	for i, d := range ds {
		samples[i] = d.Sample(nmax, o, r)
	}
	points, med := NestedMeans(samples, ns)
	out := make([]Float, len(ns))
	for j := range ns {
		out[j] = Float(metrics.RelMSE(points[j], y))
	}
	return out, Float(metrics.RelMSE(med, y)), nil
}

// NestedMeans returns, for each n of ns (increasing, each at most the
// number of samples of every row), the mean of each row's first n samples,
// and each row's median of all its samples.
func NestedMeans(samples [][]float64, ns []int) (means [][]float64, medians []float64) {
	means = make([][]float64, len(ns))
	for j := range means {
		means[j] = make([]float64, len(samples))
	}
	medians = make([]float64, len(samples))
	for i, s := range samples {
		sum, k := 0.0, 0
		for j, n := range ns {
			for ; k < n; k++ {
				sum += s[k]
			}
			means[j][i] = sum / float64(n)
		}
		medians[i] = metrics.Median(s)
	}
	return means, medians
}

// capRows returns at most n rows of d, drawn from seed (all when d has no
// more), for evaluations whose cost grows with the test rows.
func capRows(d *data.Dataset, n int, seed uint64) *data.Dataset {
	if d.Rows <= n {
		return d
	}
	return data.Subset(d, TrainSubset(d.Rows, n, seed))
}
