package serve

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	var logged syncBuffer
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
	// Counted by model; logged at most once a second a model (a line a
	// request flooded the log; review).
	for range 5 {
		post(t, u, `{"x":[[9,9]]}`)
	}
	if n := strings.Count(logged.String(), "answered 500"); n != 1 {
		t.Errorf("6 faults in well under a second logged %d times:\n%s", n, logged.String())
	}
	// The count held back is logged a second after the line, without
	// another fault (it waited for the next one, perhaps for good).
	want := `model "m": answered 500 to 5 more request(s) for the fault logged last`
	for end := time.Now().Add(5 * time.Second); !strings.Contains(logged.String(), want) && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logged.String(), want) {
		t.Errorf("the held count was not logged:\n%s", logged.String())
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `decoreg_model_faults_total{model="m"} 6`) {
		t.Errorf("metrics lack the faults by model:\n%s", body)
	}
	os.Remove(path)
}

func TestRateLog(t *testing.T) {
	var r rateLog
	t0 := time.Unix(1000, 0)
	steps := []struct {
		key  string
		at   time.Duration
		held int
		ok   bool
	}{
		{"a", 0, 0, true}, {"a", 100 * time.Millisecond, 0, false}, {"b", 200 * time.Millisecond, 0, true},
		{"a", 900 * time.Millisecond, 0, false}, {"a", 1100 * time.Millisecond, 2, true}, {"a", 1200 * time.Millisecond, 0, false},
	}
	for i, s := range steps {
		if held, ok := r.take(s.key, t0.Add(s.at)); held != s.held || ok != s.ok {
			t.Errorf("step %d: %d, %v; want %d, %v", i, held, ok, s.held, s.ok)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a logger writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestRateLogFlush: a held count is flushed a second after the line let
// through, which keeps its second: the next line after it is let through
// with its own message (a flush that took the slot left only counts in
// the log under steady faults; review); after stop, nothing is flushed.
func TestRateLogFlush(t *testing.T) {
	var mu sync.Mutex
	var got []int
	r := rateLog{flush: func(key string, n int) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	}}
	now := time.Now()
	if _, ok := r.take("a", now); !ok {
		t.Fatal("the first line was held")
	}
	r.take("a", now)
	r.take("a", now)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != 2 {
		t.Errorf("flushed %v, want [2]", got)
	}
	mu.Unlock()
	if held, ok := r.take("a", time.Now()); !ok || held != 0 {
		t.Errorf("the line after the flush: held %d, let through %v", held, ok)
	}
	r.take("a", time.Now()) // held, a flush scheduled
	r.stop()
	time.Sleep(1200 * time.Millisecond)
	mu.Lock()
	if len(got) != 1 {
		t.Errorf("flushed after stop: %v", got)
	}
	mu.Unlock()
}
