package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"decoreg"
)

// do sends a request with the given headers (Host among them) and returns
// its status, body and headers.
func do(t *testing.T, method, url, body string, headers map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestCrossOriginRefused: a page of another site may not post to the
// server (its browser sent a text/plain POST without asking first, which
// the server predicted; review); same-origin pages, programs without the
// browsers' headers, and reads are let through. Every answer says
// nosniff.
func TestCrossOriginRefused(t *testing.T) {
	_, ts := newTestServer(t, fitTiny(t, decoreg.HeadRiemann, 1), Options{})
	u := ts.URL + "/v1/models/m/predict"
	const body = `{"x":[[0,0]]}`
	for _, c := range []struct {
		headers map[string]string
		code    int
	}{
		{map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}, http.StatusForbidden},
		{map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{map[string]string{"Origin": ts.URL}, http.StatusOK},
		{nil, http.StatusOK},
	} {
		code, b, h := do(t, http.MethodPost, u, body, c.headers)
		if code != c.code || code == http.StatusForbidden && !strings.Contains(b, `"error":"cross-origin request refused`) || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%v: %d %s %v", c.headers, code, b, h)
		}
	}
	// Counted (they are refused before their route's counters).
	if _, b, _ := do(t, http.MethodGet, ts.URL+"/metrics", "", nil); !strings.Contains(b, `decoreg_http_refused_total{reason="cross-origin"} 2`) {
		t.Errorf("metrics lack the refusals:\n%s", b)
	}
	if code, b, _ := do(t, http.MethodGet, ts.URL+"/v1/models", "", map[string]string{"Sec-Fetch-Site": "cross-site"}); code != http.StatusOK {
		t.Errorf("a cross-site GET: %d %s", code, b)
	}
}

// TestLoopbackHosts: on a loopback address, a Host that is not localhost,
// a loopback address or an allowed name is refused (a page whose name
// resolved to 127.0.0.1, DNS rebinding, could read the models and their
// predictions; review); Options.AllowedHosts adds names, "*" any.
func TestLoopbackHosts(t *testing.T) {
	m := fitTiny(t, decoreg.HeadRiemann, 1)
	for _, c := range []struct {
		allowed []string
		host    string
		code    int
	}{
		{nil, "evil.example", http.StatusForbidden},
		{nil, "evil.example:8080", http.StatusForbidden},
		{nil, "localhost:8080", http.StatusOK},
		{nil, "app.localhost", http.StatusOK},
		{nil, "127.0.0.2", http.StatusOK},
		{nil, "[::1]:80", http.StatusOK},
		{[]string{"models.example.org"}, "Models.Example.org:443", http.StatusOK},
		{[]string{"models.example.org"}, "evil.example", http.StatusForbidden},
		{[]string{"*"}, "evil.example", http.StatusOK},
		{[]string{"*.example.org"}, "www.Example.org", http.StatusOK},
		{[]string{"*.example.org"}, "example.org", http.StatusForbidden},
		{[]string{"*.example.org"}, "evilexample.org", http.StatusForbidden},
	} {
		s, _ := newTestServer(t, m, Options{AllowedHosts: c.allowed})
		code, b, _ := do(t, http.MethodGet, "http://"+listenServe(t, s)+"/v1/models", "", map[string]string{"Host": c.host})
		if code != c.code || code == http.StatusForbidden && !strings.Contains(b, "DNS rebinding") {
			t.Errorf("allowed %q, Host %q: %d %s", c.allowed, c.host, code, b)
		}
	}
}
