package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"decoreg"
)

// TestGraceLateAnswer: a request counted cancelled at the end of the grace
// period whose work did not stop (the encoding of a large answer) and that
// answered 200 within the second the connections are given is not counted
// cancelled: Serve's error agrees with what the client got (it said 1
// cancelled, and serve exited 1, though the client had its whole answer;
// helper-132).
func TestGraceLateAnswer(t *testing.T) {
	o := Options{Limits: Limits{MaxSamples: 1 << 24, MaxValues: 1 << 26}}
	o.Model = filepath.Join(t.TempDir(), "m.model")
	saveModel(t, fitTiny(t, decoreg.HeadRiemann, 1), o.Model)
	o.Log = quietLog()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, 50*time.Millisecond) }()
	body := `{"x":[` + strings.TrimSuffix(strings.Repeat("[1,2],", 1000), ",") + `],"outputs":["samples"],"samples":{"n":1000}}`
	codes := make(chan int, 1)
	start := time.Now()
	go func() {
		// Not post, whose t.Fatal on a connection closed under the
		// request would end this goroutine without a word, and the test
		// would wait for its code forever (it did, once, on a loaded
		// machine): -1 is no answer.
		resp, err := http.Post("http://"+ln.Addr().String()+"/v1/models/m/predict", "application/json", strings.NewReader(body))
		if err != nil {
			codes <- -1
			return
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			codes <- -1
			return
		}
		codes <- resp.StatusCode
	}()
	for b, _, _ := s.BatchTotals(); b == 0; b, _, _ = s.BatchTotals() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the sampling done: the answer is being encoded
	cancel()
	err = <-served
	code := <-codes
	var ge *GraceError
	switch {
	case code == 200 && err != nil:
		t.Errorf("the client had its answer (200), but Serve: %v", err)
	case code == -1 && (!errors.As(err, &ge) || ge.Requests != 1):
		t.Errorf("the client's connection was closed without a whole answer, but Serve: %v", err)
	case code != 200 && code != -1 && (!errors.As(err, &ge) || ge.Cancelled != 1):
		t.Errorf("the client got %d, but Serve: %v", code, err)
	case code != 200:
		t.Logf("the request was cancelled (%d after %v): the answer was not made late", code, time.Since(start))
	}
}
