package serve

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"decoreg"
	"decoreg/data"
)

// browser returns the path of a Chromium or Chrome, or "".
func browser() string {
	if p := os.Getenv("DECOREG_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestPageInBrowser drives the page in headless Chromium: it picks the
// model, pastes a row, predicts, and checks that the summary shows the
// server's numbers for that row and that the density was drawn. It skips
// when no browser is installed, unless DECOREG_REQUIRE_BROWSER is set (CI
// installs Debian's chromium and sets it). With
// DECOREG_SCREENSHOT=FILE.png it saves a screenshot of the page.
func TestPageInBrowser(t *testing.T) {
	ctx := browserContext(t)
	m := fitTiny(t, decoreg.HeadDecoder, 3)
	_, ts := newTestServer(t, m, Options{})

	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)),
		chromedp.SetValue(chromedp.ID("paste"), "1.5, -0.75"),
		chromedp.Click(chromedp.ID("fill")),
		chromedp.Click(chromedp.ID("predict")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="drawn"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	attr := func(sel, name string) string {
		t.Helper()
		r, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
		if err != nil {
			t.Fatal(err)
		}
		return r.Value
	}
	state, mean, median, q0, points := attr("body", "data-state"), attr("#s-mean", "data-value"),
		attr("#s-median", "data-value"), attr("#s-q0", "data-value"), attr("#plot", "data-points")
	errText, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("error")))
	if err != nil {
		t.Fatal(err)
	}
	// How many pixels of the plot are coloured like the density's fill or
	// line (blue dominant): the curve was drawn.
	inked, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => {
		const c = document.getElementById("plot");
		const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i+3] > 0 && d[i+2] > d[i] + 40) n++;
		return n;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Predict(context.Background(), [][]float64{{1.5, -0.75}}, decoreg.PredictOptions{Outputs: decoreg.OutMean | decoreg.OutMedian | decoreg.OutQuantiles, Levels: []float64{0.05}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, got string
		want      float64
	}{{"mean", mean, want.Mean[0]}, {"median", median, want.Median[0]}, {"5% quantile", q0, want.Quantiles[0][0]}} {
		v, err := strconv.ParseFloat(c.got, 64)
		if err != nil || v != c.want {
			t.Errorf("the page shows %s %q, the model's is %v", c.name, c.got, c.want)
		}
	}
	if state != "drawn" || points != "400" || strings.TrimSpace(errText) != "" {
		t.Errorf("state %q, %q density points, error %q", state, points, errText)
	}
	if inked < 2000 {
		t.Errorf("only %d pixels of the plot are the density's colour", inked)
	}

	// A bad value is refused in the page, without a request.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-0"), "abc"),
		chromedp.Click(chromedp.ID("predict")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="error"]`)),
	)
	if err == nil {
		errText, err = chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("error")))
	}
	if err != nil || !strings.Contains(errText, `feature a: "abc" is not a number`) {
		t.Errorf("a bad value: %v, error text %q", err, errText)
	}

	if path := os.Getenv("DECOREG_SCREENSHOT"); path != "" {
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("f-0"), "1.5"),
			chromedp.Click(chromedp.ID("predict")),
			chromedp.WaitVisible(chromedp.CSS(`body[data-state="drawn"]`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// browserContext starts headless Chromium for t (skipping t when none is
// installed, unless DECOREG_REQUIRE_BROWSER is set) and returns its
// context, which ends with t or after 60 s.
func browserContext(t *testing.T) context.Context {
	exe := browser()
	if exe == "" && os.Getenv("DECOREG_REQUIRE_BROWSER") != "" {
		t.Fatal("DECOREG_REQUIRE_BROWSER is set but no Chromium is installed")
	}
	if exe == "" {
		t.Skip("no Chromium installed (apt-get install chromium, or set DECOREG_CHROMIUM)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 760),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

// TestPageSchemaModel drives the page for a model with text columns: a
// pasted row with a category and a null is sent as a string and a null,
// and the page shows the model's mean for it.
func TestPageSchemaModel(t *testing.T) {
	exe := browser()
	if exe == "" && os.Getenv("DECOREG_REQUIRE_BROWSER") != "" {
		t.Fatal("DECOREG_REQUIRE_BROWSER is set but no Chromium is installed")
	}
	if exe == "" {
		t.Skip("no Chromium installed (apt-get install chromium, or set DECOREG_CHROMIUM)")
	}
	m := mixedModel(t, data.FrameOptions{})
	_, ts := newTestServer(t, m, Options{})
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)),
		chromedp.SetValue(chromedp.ID("paste"), `{"area":80,"rooms":3,"city":"Paris","heating":"gas","garden":"yes","year":null}`),
		chromedp.Click(chromedp.ID("fill")),
		chromedp.Click(chromedp.ID("predict")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="drawn"]`)),
	)
	if err != nil {
		errText, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("error")))
		t.Fatalf("%v (page error %q)", err, errText)
	}
	r, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#s-mean"), "data-value"))
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string, kind data.Kind, s string, v float64) data.Column {
		c := data.Column{Name: name, Kind: kind, Field: -1, Str: []string{s}, Missing: []bool{s == ""}}
		if kind == data.Numeric {
			c.Num = []float64{v}
		}
		return c
	}
	g := &data.Frame{Rows: 1, Columns: []data.Column{col("area", data.Numeric, "80", 80), col("rooms", data.Numeric, "3", 3),
		col("city", data.Categorical, "Paris", 0), col("heating", data.Categorical, "gas", 0), col("garden", data.Categorical, "yes", 0),
		col("year", data.Numeric, "", 0)}}
	want, err := m.PredictFrame(context.Background(), g, decoreg.PredictOptions{Outputs: decoreg.OutMean})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := strconv.ParseFloat(r.Value, 64); err != nil || v != want.Mean[0] {
		t.Errorf("the page shows mean %q, the model's is %v", r.Value, want.Mean[0])
	}
	// A city not seen in training is encoded as "other" with a warning,
	// which the page shows (it read only the predictions).
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("paste"), `{"area":80,"rooms":3,"city":"Atlantis","heating":"gas","garden":"yes","year":1990}`),
		chromedp.Click(chromedp.ID("fill")),
		chromedp.Click(chromedp.ID("predict")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="drawn"]`)),
	)
	w, werr := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("warnings")))
	if err != nil || werr != nil || !strings.Contains(w, "warning: ") || !strings.Contains(w, "Atlantis") {
		t.Errorf("the page's warnings: %q (%v, %v)", w, err, werr)
	}
	// A link to a model that is not served says so (it showed an empty
	// form, "ready").
	err = chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/?model=nonexist&row=1"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="error"]`)),
	)
	e, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("error")))
	if err != nil || !strings.Contains(e, `no model "nonexist" is served (the models: m)`) {
		t.Errorf("a link to a model not served: %v, error %q", err, e)
	}
}

// TestPageProtoNames: features named __proto__ and toString are keys like
// any other in the page: a JSON row pasted fills them from its own keys
// (an inherited toString filled the field with a function's text), and
// the row sent holds __proto__ (on {} the assignment set the object's
// prototype, and the server answered that the feature was missing).
func TestPageProtoNames(t *testing.T) {
	ctx := browserContext(t)
	m := fitTiny(t, decoreg.HeadRiemann, 3)
	if err := m.SetNames([]string{"__proto__", "toString"}, "y"); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, m, Options{})
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)),
		chromedp.SetValue(chromedp.ID("paste"), `{"__proto__": 0.5}`),
		chromedp.Click(chromedp.ID("fill")),
	)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("f-0").value, document.getElementById("f-1").value]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 2 || vals[0] != "0.5" || strings.Contains(vals[1], "function") {
		t.Errorf("filled %q from {\"__proto__\": 0.5}", vals)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("f-1"), "-0.75"),
		chromedp.Click(chromedp.ID("predict")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="drawn"], body[data-state="error"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	errText, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("error")))
	if err != nil || strings.TrimSpace(errText) != "" {
		t.Errorf("predict: %v, error %q", err, errText)
	}
}
