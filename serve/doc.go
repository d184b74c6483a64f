// Package serve serves decoreg models over HTTP: JSON predictions of the
// whole predictive distribution, Prometheus metrics, and a page to explore
// p(y|x). It is what 'decoreg serve' runs; a Go program embeds it with
//
//	s, err := serve.New(serve.Options{Model: "house.drg"})
//	if err != nil { ... }
//	defer s.Close()
//	http.Handle("/", s.Handler()) // or s.Serve(ctx, listener, grace)
//
// The endpoints, all answering JSON but the page and the metrics:
//
//	GET  /v1/models                  the models served ([]ModelInfo under "models"):
//	                                 head, features (names, types, levels), target range, calibration
//	POST /v1/models/{name}/predict   a Request; answers a Response, one Prediction per row
//	GET  /healthz                    200 while the process runs
//	GET  /readyz                     200 while a model is served and the server is not stopping, else 503
//	GET  /metrics                    Prometheus metrics: requests, latencies, batches, reloads
//	GET  /                           a page that draws p(y|x) for inputs typed into it
//
// A model is named by its file name without the extension. A Request gives
// its inputs as "rows" (objects keyed by feature name) or "x" (arrays in
// the model's feature order), and asks for outputs by name (Outputs:
// mean, median, mode, quantiles, logpdf, cdf, samples, density; without
// "outputs", DefaultOutputs, what 'decoreg predict' writes). A model with
// a schema (trained on a table with text columns or missing cells) takes
// its original columns: strings for categories, null for a missing value;
// its Response lists, in Warnings, levels not seen in training, missing
// cells where training had none, and cells far beyond a column's training
// range (data.Far), where the model extrapolates.
//
// Errors are {"error": "..."} naming the field, row or feature: 400 for a
// bad request, 404 for an unknown model or endpoint, 405 for another
// method, 408 for a body still arriving 30 s after the request began, 413
// for a body over Options.MaxBodyBytes, 503 past the request's
// deadline, when the queue is full, or while stopping. Limits bounds what
// one request may ask for. Requests that arrive together for one model
// share a pass through the network (Options.NoBatching turns that off);
// the answers do not depend on the batching. With Options.Models a
// directory's model files are served and reloaded when replaced.
//
// Serve listens until its context is cancelled, then stops accepting,
// finishes the requests under way for up to its grace period, and cancels
// the rest (a *GraceError says how many). Requests sent by another site's
// page are refused (403, as the browser's Sec-Fetch-Site or Origin header
// says), and so, where Serve listens on a loopback address, are those whose
// Host is not one of its names (DNS rebinding; Options.AllowedHosts).
package serve
