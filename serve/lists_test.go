package serve

import (
	"slices"
	"testing"

	"decoreg"
)

// The package's defaults are decoreg's, and its exported lists are copies
// for reading: changing them changes nothing it does (helper-122).
func TestExportedListsNotRead(t *testing.T) {
	if !slices.Equal(defaultLevels(), decoreg.DefaultLevels) {
		t.Errorf("serve's default levels %v, decoreg's %v", defaultLevels(), decoreg.DefaultLevels)
	}
	saved := [][]string{slices.Clone(Outputs), slices.Clone(DefaultOutputs), slices.Clone(ModelExts)}
	savedLevels := slices.Clone(decoreg.DefaultLevels)
	defer func() {
		copy(Outputs, saved[0])
		copy(DefaultOutputs, saved[1])
		copy(ModelExts, saved[2])
		copy(decoreg.DefaultLevels, savedLevels)
	}()
	Outputs[0], DefaultOutputs[0], ModelExts[0], decoreg.DefaultLevels[0] = "x", "x", ".x", 7
	ms := modelSpec{features: []string{"a", "b"}, head: decoreg.HeadDecoder}
	lim := Limits{MaxRows: 50, MaxSamples: 500, MaxQuantiles: 20, MaxDensity: 500, MaxValues: 3000}
	for _, body := range []string{`{"x":[[1,2]]}`, `{"x":[[1,2]],"outputs":["mean"]}`} {
		q, err := parseRequest([]byte(body), ms, lim)
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if body == `{"x":[[1,2]]}` && !slices.Equal(q.levels, savedLevels) {
			t.Errorf("default levels %v", q.levels)
		}
	}
	if modelName("m.model") != "m" {
		t.Errorf("m.model is not served after ModelExts changed")
	}
}
