package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"decoreg"
)

func TestFloatJSON(t *testing.T) {
	for _, c := range []struct {
		v    float64
		json string
	}{
		{1.5, "1.5"}, {-2e-300, "-2e-300"}, {0, "0"},
		{math.NaN(), "null"}, {math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`},
	} {
		b, err := json.Marshal(Float(c.v))
		if err != nil || string(b) != c.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", c.v, b, err, c.json)
		}
		var f Float
		if err := json.Unmarshal(b, &f); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
		}
		if got := float64(f); got != c.v && !(math.IsNaN(got) && math.IsNaN(c.v)) {
			t.Errorf("round trip of %v gave %v", c.v, got)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"x"`), &f); err == nil {
		t.Error(`Unmarshal("x") succeeded`)
	}
}

func TestParseInts(t *testing.T) {
	for s, want := range map[string][]int{
		"0-9": {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "3": {3}, "5,1,2-3,2": {1, 2, 3, 5}, " 0 , 2-2 ": {0, 2},
	} {
		got, err := ParseInts(s)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseInts(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", ",", "a", "3-1", "-1", "1-", "1-x", "2.5", "0,,1", "0,1,"} {
		if got, err := ParseInts(s); err == nil {
			t.Errorf("ParseInts(%q) = %v, want an error", s, got)
		}
	}
	if _, err := ParseInts("0-99999999"); err == nil || !strings.Contains(err.Error(), "a range of more than 1048576 numbers") {
		t.Errorf("a huge range: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for s, want := range map[string][2]int{"0/1": {0, 1}, "3/4": {3, 4}, " 1 / 2 ": {1, 2}} {
		i, n, err := ParseShard(s)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %v", s, i, n, err, want)
		}
	}
	for _, s := range []string{"", "1", "2/2", "-1/2", "0/0", "a/b", "1/2/3", "+1/2", "1/+2", "-0/1", "0x1/2"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) succeeded", s)
		}
	}
}

func TestParseHeads(t *testing.T) {
	got, err := ParseHeads("pointwise, mdn,decoder-normalized,mdn")
	if want := []string{MDN, DecoderNormalized, Pointwise}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseHeads = %v, %v; want %v", got, err, want)
	}
	if _, err := ParseHeads("mdn,decoder"); err == nil || !strings.Contains(err.Error(), `"decoder"`) {
		t.Errorf("ParseHeads with an unknown head: %v", err)
	}
	if _, err := ParseHeads(" , "); err == nil {
		t.Error("ParseHeads of no heads succeeded")
	}
	if _, err := ParseHeads("riemann,"); err == nil || !strings.Contains(err.Error(), "entry 2 is empty") {
		t.Errorf("ParseHeads with an empty entry: %v", err)
	}
}

func TestHeadConfig(t *testing.T) {
	for _, h := range BenchHeads {
		c, err := HeadConfig(h)
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxEpochs != decoreg.DefaultMaxEpochs || c.EncWidth != decoreg.DefaultEncWidth {
			t.Errorf("%s: not defaulted: %+v", h, c)
		}
	}
	n, _ := HeadConfig(DecoderNormalized)
	u, _ := HeadConfig(DecoderUnnormalized)
	if n.Vocab != decoreg.DefaultVocab || u.Vocab != decoreg.DefaultUnnormalized || n.Head != decoreg.HeadDecoder {
		t.Errorf("decoder vocabularies: %q, %q", n.Vocab, u.Vocab)
	}
	m, _ := HeadConfig(MDN)
	o := Overrides{EncWidth: 8, DecWidth: 16, MaxEpochs: 2, Seed: 7}
	if c := o.apply(m); c.EncWidth != 8 || c.DecWidth != 0 || c.MaxEpochs != 2 || c.Seed != 7 || c.Components != decoreg.DefaultComponents {
		t.Errorf("overrides on mdn: %+v", c)
	}
	if c := o.apply(n); c.DecWidth != 16 || c.DecLayers != decoreg.DefaultDecLayers {
		t.Errorf("overrides on the decoder: %+v", c)
	}
}

func TestSweepGrid(t *testing.T) {
	for _, h := range BenchHeads {
		base, _ := HeadConfig(h)
		grid := SweepGrid(h, base)
		if len(grid) != 6 {
			t.Fatalf("%s: %d candidates, want 6", h, len(grid))
		}
		seen := map[decoreg.Config]bool{}
		for _, c := range grid {
			rc := c.Config
			if seen[rc] {
				t.Errorf("%s: duplicate candidate %s", h, c.Label)
			}
			seen[rc] = true
			if !strings.HasPrefix(c.Label, "lr=") || (c.Config.LR != 1e-4 && c.Config.LR != 5e-4) {
				t.Errorf("%s: candidate %q has lr %v", h, c.Label, c.Config.LR)
			}
		}
		if !strings.Contains(SweepDescription(), h+": lr {1e-4, 5e-4} x ") {
			t.Errorf("SweepDescription lacks %s:\n%s", h, SweepDescription())
		}
	}
	base, _ := HeadConfig(Riemann)
	g := SweepGrid(Riemann, base)
	if g[1].Label != "lr=1e-4 bins=256" || g[1].Config.Bins != 256 || g[1].Config.LR != 1e-4 {
		t.Errorf("riemann candidate 1: %q %+v", g[1].Label, g[1].Config)
	}
}

// TestConfigRoundTrip: a result file keeps every setting of its Config.
func TestConfigRoundTrip(t *testing.T) {
	c := decoreg.Config{Head: decoreg.HeadDecoder, Vocab: "normalized:base=4,length=3", RawTarget: true,
		UnmaskedLoss: true, EncLayers: 3, EncWidth: 5, DecLayers: 2, DecWidth: 8, DecHeads: 2, Bins: 9,
		Components: 4, Sigmoid: true, LR: 0.25, WeightDecay: 0.5, AdamW: true, BatchSize: 7, MaxEpochs: 11,
		Patience: 3, ValFrac: 0.2, Seed: 99, Threads: 1}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteResult(path, &Result{Dataset: "d", Head: "mdn", Config: c, Error: "diverged"}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadResult(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Config; !reflect.DeepEqual(got, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
	}
}

func TestPlanAndShards(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"b", "a", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "c" { // c has no data file: not a dataset
			os.WriteFile(filepath.Join(dir, d, DataFile), []byte("x,y\n1,2\n"), 0o644)
		}
	}
	plan, err := Plan(UCIOptions{DataDir: dir, Heads: []string{Riemann, MDN}, Splits: []int{2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range plan {
		got = append(got, r.String())
	}
	want := []string{"a/mdn/split0", "a/mdn/split2", "a/riemann/split0", "a/riemann/split2",
		"b/mdn/split0", "b/mdn/split2", "b/riemann/split0", "b/riemann/split2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan %v\nwant %v", got, want)
	}
	for n := 1; n <= 3; n++ {
		count := map[Run]int{}
		for i := 0; i < n; i++ {
			for _, r := range ShardOf(plan, i, n) {
				count[r]++
			}
		}
		for k, r := range plan {
			if count[r] != 1 {
				t.Errorf("%d shards: run %v in %d shards", n, r, count[r])
			}
			if s := ShardOf(plan, k%n, n); !containsRun(s, r) {
				t.Errorf("%d shards: run %d (%v) not in shard %d", n, k, r, k%n)
			}
		}
	}
	if _, err := Plan(UCIOptions{DataDir: filepath.Join(dir, "c")}); err == nil {
		t.Error("Plan of a directory without datasets succeeded")
	}
}

func containsRun(rs []Run, r Run) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func TestLoadResultsErrors(t *testing.T) {
	dir := t.TempDir()
	r := &Result{Dataset: "a", Head: MDN, Split: 1}
	// A result stored under the wrong path.
	p := ResultPath(dir, "a", MDN, 2)
	if err := WriteResult(p, r); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadResults(dir); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("misplaced result: %v", err)
	}
	os.Remove(p)
	if _, err := LoadResults(dir); err == nil || !strings.Contains(err.Error(), "no result files") {
		t.Errorf("empty tree: %v", err)
	}
	p = ResultPath(dir, "a", MDN, 1)
	os.WriteFile(p, []byte("{not json"), 0o644)
	if _, err := LoadResults(dir); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("corrupt result: %v", err)
	}
	if _, err := LoadResults(filepath.Join(dir, "nope")); err == nil {
		t.Error("missing directory: no error")
	}
	// One split under two names (split1.json, split01.json) would count
	// twice; a file with something after its object is not a result.
	ok := &Result{Dataset: "a", Head: MDN, Split: 1, Error: "diverged"}
	if err := WriteResult(p, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadResults(dir); err != nil {
		t.Fatalf("a good result: %v", err)
	}
	b, _ := os.ReadFile(p)
	alias := filepath.Join(filepath.Dir(p), "split01.json")
	os.WriteFile(alias, b, 0o644)
	if _, err := LoadResults(dir); err == nil || !strings.Contains(err.Error(), "split01.json") {
		t.Errorf("split01.json beside split1.json: %v", err)
	}
	os.Remove(alias)
	os.WriteFile(p, append(b, []byte(`{"x":1}`)...), 0o644)
	if _, err := LoadResults(dir); err == nil || !strings.Contains(err.Error(), "follows") {
		t.Errorf("trailing data: %v", err)
	}
}

// TestReadResultOldAndFailed: a result written before nll_token existed
// reads it as NaN (not 0); a failed run's result, which has no eval, reads
// with a nil Eval.
func TestReadResultOldAndFailed(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	failed := filepath.Join(dir, "failed.json")
	os.WriteFile(old, []byte(`{"dataset":"d","head":"riemann","split":0,"eval":{"n":3,"nll":1.5,"nll_u":0.5,"mse":1,"rel_mse":1,"kendall_tau":0.5,"clipped":0,"point":"mean"}}`), 0o644)
	os.WriteFile(failed, []byte(`{"dataset":"d","head":"mdn","split":0,"error":"decoreg: training diverged"}`), 0o644)
	r, err := ReadResult(old)
	if err != nil {
		t.Fatal(err)
	}
	if r.Eval == nil || float64(r.Eval.NLL) != 1.5 || !math.IsNaN(float64(r.Eval.NLLToken)) {
		t.Errorf("old result: eval %+v, want nll 1.5 and nll_token NaN", r.Eval)
	}
	r, err = ReadResult(failed)
	if err != nil {
		t.Fatal(err)
	}
	if r.Eval != nil || r.Error == "" {
		t.Errorf("failed result: eval %+v, error %q", r.Eval, r.Error)
	}
	// A result with nll_token keeps it.
	res := &Result{Dataset: "d", Head: "riemann", Eval: &decoreg.Eval{N: 1, NLLToken: 2.5}}
	path := filepath.Join(dir, "new.json")
	if err := WriteResult(path, res); err != nil {
		t.Fatal(err)
	}
	if r, err = ReadResult(path); err != nil || float64(r.Eval.NLLToken) != 2.5 {
		t.Errorf("new result: %+v, %v", r.Eval, err)
	}
}

// TestRunUCIValidatesConfigs: RunUCI refuses overrides that make a head's
// configuration invalid before it runs anything, for head lists written
// as Plan accepts them (spaces, empty entries, commas), with an InputError.
func TestRunUCIValidatesConfigs(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", DataFile), []byte("x,y\n1,2\n"), 0o644)
	for _, heads := range [][]string{{" mdn", ""}, {"mdn,riemann"}, {}} {
		_, err := RunUCI(context.Background(), UCIOptions{DataDir: dir, OutDir: out, Heads: heads, Splits: []int{0},
			Overrides: Overrides{EncWidth: decoreg.MaxWidth + 1}})
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, decoreg.ErrConfig) {
			t.Errorf("heads %q: error %v, want an InputError wrapping ErrConfig", heads, err)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d entries written", len(ents))
	}
}

// The progress lines print an undefined score as "n/a" (they printed
// "tau NaN" for a split whose test targets tie).
func TestLogNum(t *testing.T) {
	if got := logNum("%.3f", math.NaN()); got != "n/a" {
		t.Errorf("NaN: %q", got)
	}
	if got := logNum("%.3f", 0.5); got != "0.500" {
		t.Errorf("0.5: %q", got)
	}
}

// TestDatasetNameSeparators: a dataset directory whose name holds a comma
// or = is refused, by name and when found in the data directory: a run's
// key is "dataset=NAME,..." and such a name was read as its other parts.
func TestDatasetNameSeparators(t *testing.T) {
	for _, d := range []string{"a,b", "a=b", "a,max_train=5"} {
		if err := CheckDatasetName(d); err == nil || !strings.Contains(err.Error(), "comma or =") {
			t.Errorf("%q: %v", d, err)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a,max_train=5"), 0o755)
	os.WriteFile(filepath.Join(dir, "a,max_train=5", DataFile), nil, 0o644)
	if _, err := Datasets(dir); err == nil || !strings.Contains(err.Error(), `"a,max_train=5" has a comma or =`) {
		t.Errorf("Datasets: %v", err)
	}
}
