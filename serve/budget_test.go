package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"decoreg"
)

// The budget gives units in arrival order: a request that does not fit
// waits, and one after it waits behind it even if it would fit; a wait
// cut by its context takes nothing and lets the next one through.
func TestBudget(t *testing.T) {
	b := newBudget(10)
	ctx := context.Background()
	if err := b.take(ctx, 7); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 3)
	waiting := func(n int) { // until n requests wait
		for {
			b.mu.Lock()
			k := len(b.waits)
			b.mu.Unlock()
			if k == n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	go func() { b.take(ctx, 6); got <- "six" }()
	waiting(1) // six waits first
	go func() { b.take(ctx, 2); got <- "two" }()
	waiting(2)
	b.give(7) // 10 free: six, then two (8 of 10)
	if a, c := <-got, <-got; a == c {
		t.Fatalf("got %s twice", a)
	}
	// 2 free: a wait for 5 cut by its deadline takes nothing.
	c, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if err := b.take(c, 5); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait past its deadline: %v", err)
	}
	b.give(8)
	if err := b.take(ctx, 10); err != nil || b.free != 0 || len(b.waits) != 0 {
		t.Errorf("the whole budget after a cut wait: %v, free %d, %d waiting", err, b.free, len(b.waits))
	}
}

// A request waits for room among the answers being made
// (MaxValuesInFlight), and is answered 503 with Retry-After past its
// deadline; once the room is free it is answered. New refuses a budget
// below the per-request limit, a reload interval too short and a timeout
// too long.
func TestMaxValuesInFlight(t *testing.T) {
	m := fitTiny(t, decoreg.HeadMDN, 1)
	s, ts := newTestServer(t, m, Options{Limits: Limits{MaxValues: 100}, MaxValuesInFlight: 100, RequestTimeout: time.Second})
	if err := s.values.take(context.Background(), 95); err != nil { // another request's answer, being made
		t.Fatal(err)
	}
	body := `{"x": [[0, 0], [1, 1]], "outputs": ["mean", "quantiles"], "quantiles": [0.1, 0.5, 0.9]}` // 2 x 4 numbers
	code, b, h := post(t, ts.URL+"/v1/models/m/predict", body)
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(string(b), "this one, of 8 numbers, waited past its limit of 1s") {
		t.Errorf("no room: %d %s", code, b)
	}
	s.values.give(95)
	if code, b, _ := post(t, ts.URL+"/v1/models/m/predict", body); code != http.StatusOK {
		t.Errorf("room again: %d %s", code, b)
	}
	if s.values.free != 100 {
		t.Errorf("%d of 100 free after the answers", s.values.free)
	}
	for _, o := range []Options{
		{Limits: Limits{MaxValues: 100}, MaxValuesInFlight: 99},
		{ReloadEvery: time.Nanosecond},
		{RequestTimeout: 1 << 62},
	} {
		o.Model, o.Log = "x.drg", quietLog()
		if _, err := New(o); err == nil {
			t.Errorf("%+v accepted", fmt.Sprint(o.MaxValuesInFlight, o.ReloadEvery, o.RequestTimeout))
		}
	}
}

// A body refused before it is read (an unknown model or endpoint, a wrong
// method or encoding) is drained, so that a client that sends it all
// before it reads (Python's urllib) reads the refusal, not a reset
// connection.
func TestRefusedBodyDrained(t *testing.T) {
	m := fitTiny(t, decoreg.HeadMDN, 1)
	_, ts := newTestServer(t, m, Options{MaxBodyBytes: 32 << 20})
	body := strings.Repeat(" ", 20<<20) // more than the sockets buffer
	for _, c := range []struct {
		method, path, extra string
		code                int
	}{
		{"POST", "/v1/models/nope/predict", "", 404},
		{"POST", "/v1/predict", "", 404},
		{"PUT", "/v1/models/m/predict", "", 405},
		{"POST", "/v1/models/m/predict", "Content-Encoding: gzip\r\n", 415},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n", c.method, c.path, c.extra, len(body))
		if _, err := io.WriteString(conn, body); err != nil {
			t.Errorf("%s %s: sending the body: %v", c.method, c.path, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.path, err)
		} else if resp.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.code)
		}
		conn.Close()
	}
}

// A log line holds no line break of a file name or error: it could forge
// the lines that follow.
func TestLogOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"model \"m\": loaded from d/nl\nx.drg\r\x1b[31m\tok": `model "m": loaded from d/nl\nx.drg\r\x1b[31m` + "\tok",
		"a\xffb":              "a\xffb", // not UTF-8: as it is, with or without a control beside it
		"a\xffb\n":            "a\xffb" + `\n`,
		"\u009b[31m\u0085x":   `\u009b[31m\u0085x`, // C1: CSI, NEL
		"\x9b[31m":            `\x9b[31m`,          // CSI on an 8-bit terminal
		"p\u2028q é ✓ \u00a0": `p\u2028q é ✓ ` + "\u00a0",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// An answer made gives its room back before it is sent, but for its
// encoded bytes: clients that never read their large answers held the
// room of every other request until the write deadline (review), and
// their bytes still count.
func TestValuesGivenBackBeforeSending(t *testing.T) {
	m := fitTiny(t, decoreg.HeadMDN, 1)
	s, ts := newTestServer(t, m, Options{Limits: Limits{MaxValues: 1 << 20}})
	for range 2 { // the whole default room, 2 x MaxValues
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		body := `{"x":[[0.5,0.5]],"outputs":["samples"],"samples":{"n":1048576}}`
		fmt.Fprintf(conn, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.values.mu.Lock()
		free := s.values.free
		s.values.mu.Unlock()
		if free >= 3*(2<<20)/4 && s.inFlight() >= 2 {
			break // both answers made, neither read, the room back but for their bytes (about a sixth)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d free, %d requests in flight, 20 s after two large answers that are not read", free, 2<<20, s.inFlight())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, b, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x": [[0, 0]]}`); code != http.StatusOK {
		t.Errorf("beside two answers not read: %d %s", code, b)
	}
}

// TestBodiesBudget: the buffers of the bodies being read have room of
// their own (16 bodies at --max-body), taken as they grow with the bytes
// received: clients that sent most of large bodies and stalled hold it,
// and another large body waits, 503 past the timeout (stalled uploads of
// 4 MiB took 10 MB each, without bound), while clients that sent their
// headers alone hold a chunk each (when the room was taken by the
// declared length, 16 of them stopped every request; review). The large
// body is answered once the stalled clients are gone.
func TestBodiesBudget(t *testing.T) {
	m := fitTiny(t, decoreg.HeadRiemann, 1)
	const maxBody = 200_000
	s, ts := newTestServer(t, m, Options{MaxBodyBytes: maxBody, RequestTimeout: 300 * time.Millisecond})
	addr := strings.TrimPrefix(ts.URL, "http://")
	u := ts.URL + "/v1/models/m/predict"
	large := `{"x":[[0,0]]}` + strings.Repeat(" ", maxBody-20)
	stall := func(n int, send int) []net.Conn {
		var cs []net.Conn
		for range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", maxBody)
			c.Write([]byte(large[:send]))
			cs = append(cs, c)
		}
		return cs
	}
	closeAll := func(cs []net.Conn) {
		for _, c := range cs {
			c.Close()
		}
	}
	// 40 clients that sent their headers alone: room for the others.
	idle := stall(40, 0)
	time.Sleep(200 * time.Millisecond)
	if code, b, _ := post(t, u, large); code != http.StatusOK {
		t.Errorf("a large body beside 40 clients that sent headers alone: %d %s", code, b)
	}
	closeAll(idle)
	// 16 that sent all but 10 bytes: once the server has read theirs (the
	// budget's room for another large body gone), no room for another.
	// (Polling with large bodies meanwhile raced their growths: a stalled
	// one refused gave its room to the polls, answered 200.)
	stalled := stall(16, maxBody-10)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		s.bodies.mu.Lock()
		free := s.bodies.free
		s.bodies.mu.Unlock()
		if free < maxBody/bytesPerValue {
			break
		}
	}
	code, b, h := post(t, u, large)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(b), "the server is reading other large request bodies") || h.Get("Retry-After") == "" {
		t.Errorf("a large body beside stalled ones: %d %s", code, b)
	}
	closeAll(stalled)
	// Until the server has seen the stalled clients go (503 before).
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		if code, b, _ = post(t, u, large); code == http.StatusOK {
			break
		}
	}
	if code != http.StatusOK {
		t.Errorf("the large body, the stalled clients gone: %d %s", code, b)
	}
}

// TestBodiesNoHoldAndWait: uploads that hold room never wait for more
// (requests holding room and waiting for more could only wait on each
// other: 40 uploads half sent when the budget filled all waited out the
// timeout, and most got 503; review): each is answered at once, 200 or a
// 503 saying to send it again.
func TestBodiesNoHoldAndWait(t *testing.T) {
	m := fitTiny(t, decoreg.HeadRiemann, 1)
	const maxBody, cl, n = 64 << 10, 60_000, 40
	_, ts := newTestServer(t, m, Options{MaxBodyBytes: maxBody, RequestTimeout: 30 * time.Second})
	addr := strings.TrimPrefix(ts.URL, "http://")
	body := `{"x":[[0,0]]}` + strings.Repeat(" ", cl-13)
	statuses := make([]string, n)
	var sent, done sync.WaitGroup
	sent.Add(n)
	half := make(chan struct{})
	for i := range n {
		done.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				sent.Done()
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", cl, body[:cl/2])
			sent.Done()
			<-half
			c.Write([]byte(body[cl/2:]))
			c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a third of the timeout
			line, _ := bufio.NewReader(c).ReadString('\n')
			statuses[i] = strings.TrimSpace(line)
		})
	}
	sent.Wait()
	time.Sleep(300 * time.Millisecond) // their first halves read
	close(half)
	done.Wait()
	ok := 0
	for i, st := range statuses {
		switch st {
		case "HTTP/1.1 200 OK":
			ok++
		case "HTTP/1.1 503 Service Unavailable":
		default:
			t.Errorf("upload %d: %q (not answered before the client's deadline: waiting for room)", i, st)
		}
	}
	if ok == 0 {
		t.Errorf("no upload answered 200: %q", statuses)
	}
}

// TestBodiesRoomGivenBack: every unit of the bodies' room comes back,
// whatever the body (empty, at the limit, chunked, over the limit, cut
// off, stalled past the timeout of its room).
func TestBodiesRoomGivenBack(t *testing.T) {
	m := fitTiny(t, decoreg.HeadRiemann, 1)
	const maxBody = 10_000
	s, ts := newTestServer(t, m, Options{MaxBodyBytes: maxBody, RequestTimeout: 500 * time.Millisecond})
	addr := strings.TrimPrefix(ts.URL, "http://")
	body := func(n int) string { return `{"x":[[0,0]]}` + strings.Repeat(" ", n-13) }
	hdr := "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
	chunked := func(b string) string {
		return hdr + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(b), b)
	}
	for _, c := range []struct {
		name, req, status string
		cut               bool
	}{
		{"empty", hdr + "Content-Length: 0\r\n\r\n", "400", false},
		{"at the limit", hdr + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", maxBody, body(maxBody)), "200", false},
		{"chunked at the limit", chunked(body(maxBody)), "200", false},
		{"chunked over the limit", chunked(body(3 * maxBody)), "413", false},
		{"cut off", hdr + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", maxBody, body(5000)), "", true},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, c.req)
		if c.cut {
			time.Sleep(50 * time.Millisecond)
			conn.Close()
			continue
		}
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if !strings.Contains(line, " "+c.status+" ") {
			t.Errorf("%s: %q, want %s", c.name, line, c.status)
		}
	}
	total := bodiesUnits(maxBody)
	var free, waits int
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		s.bodies.mu.Lock()
		free, waits = s.bodies.free, len(s.bodies.waits)
		s.bodies.mu.Unlock()
		if free == total && waits == 0 {
			break
		}
	}
	if free != total || waits != 0 {
		t.Errorf("the bodies' room: %d of %d free, %d waiting", free, total, waits)
	}
}

// TestMaxBodyBytesBounded: New refuses a MaxBodyBytes above MaxBodyBytes
// (the budget's arithmetic overflowed: every request waited, or one body
// could need more than the whole budget), and AllowedHosts entries that
// are no names.
func TestMaxBodyBytesBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.model")
	saveModel(t, fitTiny(t, decoreg.HeadRiemann, 1), path)
	if _, err := New(Options{Model: path, MaxBodyBytes: math.MaxInt64, Log: quietLog()}); err == nil || !strings.Contains(err.Error(), "MaxBodyBytes") {
		t.Errorf("MaxBodyBytes MaxInt64: %v", err)
	}
	s, err := New(Options{Model: path, MaxBodyBytes: MaxBodyBytes, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, h := range []string{"a.example:80", "*.", "", "a b"} {
		if _, err := New(Options{Model: path, AllowedHosts: []string{h}, Log: quietLog()}); err == nil || !strings.Contains(err.Error(), "AllowedHosts") {
			t.Errorf("AllowedHosts %q: %v", h, err)
		}
	}
}

// TestBodiesGrowRefusedDrained: a client that sent "Expect: 100-continue"
// is sending its body once its first chunk is read: refused for room to
// grow, the body is drained, so that the client, writing the whole body
// before it reads, gets the 503 (it was reset while writing; review).
func TestBodiesGrowRefusedDrained(t *testing.T) {
	m := fitTiny(t, decoreg.HeadRiemann, 1)
	const maxBody = 4 << 20
	s, ts := newTestServer(t, m, Options{MaxBodyBytes: maxBody, RequestTimeout: 2 * time.Second})
	addr := strings.TrimPrefix(ts.URL, "http://")
	large := `{"x":[[0,0]]}` + strings.Repeat(" ", maxBody-20)
	var stalled []net.Conn
	defer func() {
		for _, c := range stalled {
			c.Close()
		}
	}()
	for range 16 { // all but 10 bytes of the limit each: the budget full but for a little
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(large), large[:len(large)-10])
		stalled = append(stalled, c)
	}
	// Until all their bodies are read: less room left than a quarter of a
	// body at the limit (with one of them still at half its size, more
	// was left, and the client below took it, answered 200).
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		s.bodies.mu.Lock()
		free := s.bodies.free
		s.bodies.mu.Unlock()
		if free < maxBody/bytesPerValue/4 {
			break
		}
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(large))
	br := bufio.NewReader(c)
	c.SetDeadline(time.Now().Add(20 * time.Second))
	line, _ := br.ReadString('\n')
	if !strings.Contains(line, " 100 ") {
		t.Fatalf("no 100 Continue: %q", line)
	}
	br.ReadString('\n') // the blank line after it
	if _, err := io.WriteString(c, large); err != nil {
		t.Errorf("writing the body after 100 Continue: %v", err)
	}
	if line, err = br.ReadString('\n'); !strings.Contains(line, " 503 ") {
		t.Errorf("refused for room to grow: %q, %v", line, err)
	}
}
