package experiments

import (
	"testing"

	"gonum.org/v1/plot"
)

// The axes' tick labels are distinct and read their values: gonum's
// default ticks of a narrow range near 1 (scaling.png's tamielectric
// panel, relative MSE 0.995 to 1.08) labelled two ticks "1", and those of
// [0.98, 1.06] labelled 1.02 "1" (helper-124).
func TestDistinctTicks(t *testing.T) {
	p := newPlot("t", "x", "y")
	for _, r := range [][2]float64{{0.995, 1.08}, {0.99, 1.15}, {0.98, 1.06}, {0, 1}, {1e-3, 2e-3}, {100, 100.5}, {-0.3, 0.9}} {
		if ts := p.Y.Tick.Marker.Ticks(r[0], r[1]); !goodLabels(ts) {
			t.Errorf("[%v, %v]: labels repeat: %+v", r[0], r[1], ts)
		}
	}
	if plain := (plot.DefaultTicks{}).Ticks(0.995, 1.08); goodLabels(plain) {
		t.Logf("gonum's default ticks of [0.995, 1.08] no longer repeat a label: %+v", plain)
	}
	// valueTicks labels the given values only.
	v := valueTicks{plot.LogTicks{Prec: -1}, []float64{32, 64, 128, 256}}
	var labels []string
	for _, tk := range v.Ticks(30, 260) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if len(labels) != 4 || labels[0] != "32" || labels[3] != "256" {
		t.Errorf("valueTicks labels %v, want 32 64 128 256", labels)
	}
}
