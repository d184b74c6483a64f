package serve

import (
	"bytes"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg"
	"decoreg/internal/modelfile"
)

// TestModelFaultIs500: a row like the training data whose prediction
// overflows is the model's fault: it was answered 400, as if the client's
// row were bad, and not logged. The model here has first-layer weights of
// 1e38 (finite, and its predictions at the rows Load checks, within 1.5
// sds of the training centre, are finite, so the file loads): a row 9 sds
// out overflows the network's float32 arithmetic. (At 3e38 Load refuses
// it: TestHandEditedModel_FirstLayerOverflow.)
func TestModelFaultIs500(t *testing.T) {
	m := fitTiny(t, decoreg.HeadPointwise, 1)
	path := filepath.Join(t.TempDir(), "m.model")
	saveModel(t, m, path)
	hb, params, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range params[:2*32] { // the first layer's weights: 2 features x 32
		params[i] *= 1e38
	}
	if err := modelfile.WriteFile(path, hb, params); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	_, ts := newTestServer(t, nil, Options{Model: path, Log: log.New(&logged, "", 0)})
	u := ts.URL + "/v1/models/m/predict"
	if code, b, _ := post(t, u, `{"x":[[0,0]]}`); code != http.StatusOK {
		t.Fatalf("a row at the centre: %d %s", code, b)
	}
	code, b, _ := post(t, u, `{"x":[[9,9]]}`)
	if code != http.StatusInternalServerError || !strings.Contains(string(b), "not the row, is at fault") {
		t.Errorf("a row 9 sds out: %d %s, want 500 blaming the model", code, b)
	}
	if !strings.Contains(logged.String(), "not the row, is at fault") {
		t.Errorf("not logged: %q", logged.String())
	}
	os.Remove(path)
}
