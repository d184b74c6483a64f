package experiments

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The XGBoost journal, as Python's json writes it (a bare NaN for an
// undefined tau), and a missing journal.
func TestXGBTau(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	lines := `{"dataset": "a", "split": 0, "kendall_tau": 0.5}
{"dataset": "a", "split": 1, "kendall_tau": NaN}
{"dataset": "b", "split": 0, "kendall_tau": -0.25, "rmse": 1}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := xgbTau(path)
	if err != nil {
		t.Fatal(err)
	}
	if got["a"][0] != 0.5 || !math.IsNaN(got["a"][1]) || got["b"][0] != -0.25 {
		t.Errorf("got %v", got)
	}
	means := xgbMeans([]*TabularLine{{Dataset: "a", Split: 0}, {Dataset: "a", Split: 1}, {Dataset: "b", Split: 0}}, got)
	if means["a"] != 0.5 || means["b"] != -0.25 {
		t.Errorf("means %v (NaN splits left out)", means)
	}
	if m, err := xgbTau(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || len(m) != 0 {
		t.Errorf("missing journal: %v, %v", m, err)
	}
	if err := os.WriteFile(path, []byte("{bad\n"), 0o644); err == nil {
		if _, err := xgbTau(path); err == nil {
			t.Error("a bad line was accepted")
		}
	}
}
