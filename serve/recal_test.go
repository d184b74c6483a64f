package serve

import (
	"strings"
	"testing"

	"decoreg"
)

// A recalibrated model (calibrate_by isotonic) samples by inverse CDF:
// the decoder's sampling options are refused, naming them; plain samples
// are accepted.
func TestRecalibratedSampleOptions(t *testing.T) {
	lim := DefaultLimits
	ms := modelSpec{features: []string{"a", "b"}, head: decoreg.HeadDecoder, recal: true}
	for _, body := range []string{
		`{"x":[[1,2]],"outputs":["samples"],"samples":{"n":3,"temperature":0.5}}`,
		`{"x":[[1,2]],"outputs":["samples"],"samples":{"n":3,"top_k":2}}`,
		`{"x":[[1,2]],"outputs":["samples"],"samples":{"n":3,"top_p":0.9}}`,
	} {
		_, err := parseRequest([]byte(body), ms, lim)
		if err == nil || !strings.Contains(err.Error(), "inverse CDF") {
			t.Errorf("%s: %v", body, err)
		}
	}
	if _, err := parseRequest([]byte(`{"x":[[1,2]],"outputs":["samples"],"samples":{"n":3}}`), ms, lim); err != nil {
		t.Errorf("plain samples: %v", err)
	}
}
