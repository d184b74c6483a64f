package experiments

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg"
	"decoreg/dist"
	"decoreg/synth"
)

// The decoder's cell probabilities from its batched sequence probabilities
// equal the differences of its exact CDF at the cell edges, and sum to 1.
func TestCellProbs(t *testing.T) {
	tn, _ := synth.NewTruncNorm(riskMean, riskStd)
	const n, k = 512, 5
	y := tn.Sample(n, 1)
	m, err := decoreg.FitFlat(context.Background(), make([]float64, n), n, 1, y, RiskConfig("decoder", k, 0, Options{Quick: true, Threads: 1}))
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Dist([]float64{0})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.(*dist.Token); !ok {
		t.Fatalf("a decoder's distribution is %T", d)
	}
	p, err := cellProbs(m, d, k)
	if err != nil {
		t.Fatal(err)
	}
	sum, prev := 0.0, 0.0
	for j, v := range p {
		sum += v
		c := 1.0
		if j+1 < len(p) {
			c = d.CDF(float64(j+1) / float64(len(p)))
		}
		if !(math.Abs((c-prev)-v) <= 1e-9) {
			t.Errorf("cell %d: %v from the sequence, %v from the CDF", j, v, c-prev)
		}
		prev = c
	}
	if !(math.Abs(sum-1) <= 1e-9) {
		t.Errorf("cell probabilities sum to %v", sum)
	}
	if mise := tn.MISE(p); !(mise > 0) || math.IsInf(mise, 0) {
		t.Errorf("MISE %v", mise)
	}
}

// TestRiskLineChecked: a risk line edited by hand whose K the report's
// theory cannot take (k -1 panicked inside it, k 1000000 gave +Inf), whose
// MISE is negative, or whose cell probabilities are not 2^K is refused,
// naming the file, line and field.
func TestRiskLineChecked(t *testing.T) {
	good := `{"experiment":"risk","key":"head=decoder,n=16,k=2,seed=0","seconds":1,"head":"decoder","n":16,"k":2,"seed":0,"mise":0.5,"mise_theory":0.1,"p":[0.1,0.2,0.3,0.4],"test_nll":0,"true_nll":0,"epochs":1,"config":{},"train_rows":1,"val_rows":1,"train_seconds":1,"stopped":"x","mass_err":0}`
	dir := t.TempDir()
	path := filepath.Join(dir, JournalFile)
	for _, c := range []struct{ from, to, want string }{
		{"", "", ""},
		{`"k":2`, `"k":-1`, "k -1"},
		{`"k":2`, `"k":1000000`, "k 1000000"},
		{`"mise":0.5`, `"mise":-1`, "mise -1"},
		{`"p":[0.1,0.2,0.3,0.4]`, `"p":[]`, "p has 0 cell probabilities"},
		{`0.3,`, `1.3,`, "p[2] is 1.3"},
		{`"n":16`, `"n":0`, "n 0"},
		{`"head":"decoder"`, `"head":"mdn"`, `head "mdn"`},
	} {
		line := strings.Replace(good, c.from, c.to, 1)
		if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		lines, _, err := ReadJournal(path, "risk", func() *RiskLine { return new(RiskLine) })
		var ie *InputError
		switch {
		case c.want == "" && (err != nil || len(lines) != 1):
			t.Errorf("the good line: %v", err)
		case c.want != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), "line 1 (head=decoder,n=16,k=2,seed=0): "+c.want)):
			t.Errorf("%s: %v, want an input error naming %q", c.to, err, c.want)
		}
	}
}
