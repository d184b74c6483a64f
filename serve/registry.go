package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"decoreg"
	"decoreg/data"
)

// ModelInfo describes a served model (GET /v1/models).
type ModelInfo struct {
	Name         string    `json:"name"`                   // its file's name without the extension, as in /v1/models/{name}/predict
	Head         string    `json:"head"`                   // decoder, pointwise, riemann or mdn
	Tokenization string    `json:"tokenization,omitempty"` // decoder heads: the vocab spec
	Features     []Feature `json:"features"`               // the inputs a row gives, in the order of an "x" array
	// EncodedFeatures are the network's inputs of a model with a schema
	// (trained by 'decoreg train' or decoreg.FitFrame): "NAME" for a
	// numeric column, "NAME=LEVEL" per level of a categorical one,
	// "NAME:missing" for a missing indicator.
	EncodedFeatures []string `json:"encoded_features,omitempty"`
	Target          string   `json:"target,omitempty"`  // the target column's name, where the model has one
	Created         string   `json:"created,omitempty"` // when it was trained (RFC 3339)
	Params          int      `json:"params"`            // all members' for an ensemble
	// Members is an ensemble's number of members (1: a single model), and
	// MemberTokenizations the decoder members' vocab specs when they
	// differ (an ensemble of --tune trials).
	Members             int        `json:"members"`
	MemberTokenizations []string   `json:"member_tokenizations,omitempty"`
	File                string     `json:"file"`        // the model file's path, as given to --model or found in --models
	Loaded              string     `json:"loaded"`      // when the server loaded it (RFC 3339)
	YRange              [2]float64 `json:"y_range"`     // the training targets' range
	Temperature         float64    `json:"temperature"` // calibration temperature (1: none)
	// DepthTemperatures are a decoder's temperatures per token depth
	// (calibrate_by "depth"; temperature is then 1).
	DepthTemperatures []float64 `json:"depth_temperatures,omitempty"`
	// CalibrateBy is the calibration's objective ("nll", "pit",
	// "isotonic": the temperature and a map of the CDF, or "depth");
	// absent for uncalibrated models and files written before the pit
	// objective.
	CalibrateBy string `json:"calibrate_by,omitempty"`
	// ReloadError says why the model's file, changed since it was loaded,
	// does not load (--models: the version loaded before is served); absent
	// otherwise.
	ReloadError string `json:"reload_error,omitempty"`
}

// Feature is one input column of a model.
type Feature struct {
	Name string `json:"name"` // the column's name; x0, x1, ... for a model without names
	// Type is "number" or, for a model with a schema, "category": a text
	// column, given as a JSON string (or a number, read as its text).
	Type string `json:"type"`
	// Levels are a category's levels seen in training; others are
	// accepted and encoded as no level (the answer warns).
	Levels []string `json:"levels,omitempty"`
	// Missing says that the model learnt from missing values of the
	// column (it has a missing indicator); null is accepted for every
	// column of a model with a schema.
	Missing bool `json:"missing,omitempty"`
}

// entry is one loaded model with its batcher.
type entry struct {
	info  ModelInfo
	model *decoreg.Model
	spec  modelSpec
	b     *batcher
	stamp fileStamp
}

// fileStamp tells whether a model file changed: a file replaced
// atomically (renamed over) is a new inode; one rewritten in place changes
// size or modification time; a chmod changes its mode (a file that could
// not be read is tried again).
type fileStamp struct {
	fi os.FileInfo
}

func (a fileStamp) same(b fileStamp) bool {
	return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi) && a.fi.Mode() == b.fi.Mode() &&
		a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// ModelExts are the file name endings --models DIR serves; the model's
// name is the file name without it. It is a copy for reading: the package
// does not read it, so changing it changes nothing.
var ModelExts = modelExts()

func modelExts() []string { return []string{".model", ".drg"} }

// modelName returns the served name of a model file, or "" for a file the
// directory watcher ignores (hidden files, such as the temporary files of
// an atomic write, and other endings).
func modelName(file string) string {
	base := filepath.Base(file)
	if strings.HasPrefix(base, ".") {
		return ""
	}
	for _, e := range modelExts() {
		if n, ok := strings.CutSuffix(base, e); ok && n != "" {
			return validName(n)
		}
	}
	return ""
}

// validName is a model name as served: a file name's bytes that are not
// UTF-8 become U+FFFD (JSON answers and Prometheus labels need valid
// UTF-8; /metrics failed as a whole on such a label).
func validName(n string) string { return strings.ToValidUTF8(n, "\uFFFD") }

// registry holds the served models by name.
type registry struct {
	opts *Options
	obs  func(requests, rows int)
	log  func(format string, a ...any)

	mu     sync.RWMutex
	models map[string]*entry
	failed map[string]fileStamp // files that failed to load, until they change
	// refused holds why the file of a served model, changed, does not
	// load, until it loads or goes.
	refused map[string]string

	dupLogged map[string]bool // files warned about once (ignored for their name, or no longer a regular file; scan runs on one goroutine)
	reloads   func(ok bool)
	scanned   bool // a scan has run (scan runs on one goroutine)
}

// loadSettle is how long after its last change (or before it, for a clock
// a little ahead) a file that does not load is left to its writer, on
// scans after the first: a model copied into the
// directory in place (not renamed into it) was refused, logged and
// counted as a failed load at every scan until the copy ended.
const loadSettle = 2 * time.Second

func (r *registry) get(name string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.models[name]
}

func (r *registry) list() []ModelInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]ModelInfo, 0, len(r.models))
	for _, e := range r.models {
		info := e.info
		if msg, ok := r.refused[info.File]; ok {
			info.ReloadError = msg
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b ModelInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (r *registry) all() []*entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*entry, 0, len(r.models))
	for _, e := range r.models {
		out = append(out, e)
	}
	return out
}

// load reads the model file path as name.
func (r *registry) load(name, path string) (*entry, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	m, err := decoreg.Load(path)
	if err != nil {
		return nil, err
	}
	cfg := m.Config()
	feats, target := m.Names()
	if len(feats) != m.Features() {
		feats = make([]string, m.Features())
		for i := range feats {
			feats[i] = fmt.Sprintf("x%d", i)
		}
	}
	info := ModelInfo{
		Name: name, Head: string(cfg.Head), Target: target, Created: m.Info().Created,
		File: path, Loaded: time.Now().UTC().Format(time.RFC3339),
		Temperature: m.Temperature(), DepthTemperatures: m.DepthTemperatures(), Members: m.EnsembleSize(),
	}
	if m.Calibrated() {
		info.CalibrateBy = m.Info().CalibrateBy
	}
	toks := map[string]bool{}
	var specs []string
	for _, mk := range m.Members() {
		info.Params += mk.Info().Params
		if c := mk.Config(); c.Head == decoreg.HeadDecoder {
			specs = append(specs, c.Vocab)
			toks[c.Vocab] = true
		}
	}
	if len(toks) > 1 {
		info.MemberTokenizations = specs
	}
	info.YRange[0], info.YRange[1] = m.YRange()
	if cfg.Head == decoreg.HeadDecoder {
		info.Tokenization = cfg.Vocab
	}
	spec := modelSpec{features: feats, head: cfg.Head, recal: m.Recalibration() != nil}
	if sc := m.Schema(); sc != nil {
		spec.schema = sc
		info.EncodedFeatures = feats
		for _, c := range sc.Columns {
			f := Feature{Name: c.Name, Type: "number", Levels: c.Levels, Missing: c.Missing}
			if c.Kind == data.Categorical {
				f.Type = "category"
			}
			info.Features = append(info.Features, f)
		}
	} else {
		for _, f := range feats {
			info.Features = append(info.Features, Feature{Name: f, Type: "number"})
		}
	}
	return &entry{
		info: info, model: m, spec: spec,
		b: newBatcher(m, r.opts, r.obs), stamp: fileStamp{fi},
	}, nil
}

// setRefused records why the served model's file at path does not load
// (reload_error), or, with "", that it is the served version again.
func (r *registry) setRefused(path, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if why == "" {
		delete(r.refused, path)
		return
	}
	if r.refused == nil {
		r.refused = map[string]string{}
	}
	r.refused[path] = why
}

// put serves e under its name, retiring the model it replaces.
func (r *registry) put(e *entry) {
	r.mu.Lock()
	old := r.models[e.info.Name]
	r.models[e.info.Name] = e
	r.mu.Unlock()
	if old != nil {
		old.b.close()
	}
}

// scan brings the models of dir up to date: new and changed files are
// loaded (a file that fails to load keeps the model it would replace, and
// is retried once it changes again), removed ones are dropped. It returns
// the number of models served from dir.
func (r *registry) scan(dir string) (int, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}    // names served from dir
	present := map[string]bool{} // model files in dir
	for _, de := range des {
		name := modelName(de.Name())
		if name == "" {
			continue
		}
		path := filepath.Join(dir, de.Name())
		if seen[name] {
			present[path] = true
			if !r.dupLogged[path] {
				r.dupLogged[path] = true
				r.log("%q: a model named %q is already served from this directory; ignored", path, name)
			}
			continue
		}
		r.mu.RLock()
		cur, failed := r.models[name], r.failed[path]
		r.mu.RUnlock()
		// servesThis: the name's model came from this file; a replacement
		// of it that does not load keeps that model (and the name).
		servesThis := cur != nil && cur.info.File == path
		fi, err := os.Stat(path) // follows links
		if err != nil || !fi.Mode().IsRegular() {
			// Said once while it stays (a FIFO, a device, a link to
			// nothing was skipped without a word, where a bad regular
			// file is logged); a served model's file keeps its model.
			present[path] = true
			seen[name] = seen[name] || servesThis
			if !r.dupLogged[path] {
				r.dupLogged[path] = true
				if servesThis {
					r.log("model %q: %q is no longer a regular file (a directory, a link to nothing, ...); still serving the previous version", name, path)
					r.setRefused(path, "the file is no longer a regular file (a directory, a link to nothing, ...)")
				} else {
					r.log("model %q: %q not served: not a regular file (a directory, a FIFO, a device or a link to nothing)", name, path)
				}
			}
			continue
		}
		present[path] = true
		// A regular file again: its next turn to something else is news
		// (the flag of the turn before stayed when it then failed to load).
		delete(r.dupLogged, path)
		st := fileStamp{fi}
		if servesThis && cur.stamp.same(st) {
			seen[name] = true
			r.setRefused(path, "") // back to the served version (a link switched back, a backup moved back)
			continue
		}
		if failed.same(st) {
			if servesThis { // refused before, unchanged: it claims the name only if it serves it
				seen[name] = true
			}
			continue
		}
		e, err := r.load(name, path)
		if age := time.Since(fi.ModTime()); err != nil && r.scanned && age > -loadSettle && age < loadSettle {
			// Perhaps still being written: retried at the next scan,
			// changed or not, and refused once it has settled.
			if servesThis {
				seen[name] = true
			}
			continue
		}
		if err != nil {
			r.mu.Lock()
			r.failed[path] = st
			r.mu.Unlock()
			if servesThis {
				r.setRefused(path, oneLine(err.Error()))
			}
			if servesThis {
				seen[name] = true
				r.log("model %q: %q changed but does not load, still serving the previous version: %v", name, path, err)
			} else {
				// Another file of the name (later in the directory) may still load.
				r.log("model %q: %q not served: %v", name, path, err)
			}
			r.reloads(false)
			continue
		}
		seen[name] = true
		delete(r.dupLogged, path)
		r.mu.Lock()
		delete(r.failed, path)
		delete(r.refused, path)
		r.mu.Unlock()
		r.put(e)
		if cur != nil {
			r.log("model %q: reloaded from %q", name, path)
		} else {
			r.log("model %q: loaded from %q", name, path)
		}
		r.reloads(true)
	}
	r.scanned = true
	r.mu.Lock()
	for path := range r.failed { // forget refusals of files that are gone
		if !present[path] {
			delete(r.failed, path)
			delete(r.refused, path)
		}
	}
	for path := range r.dupLogged {
		if !present[path] {
			delete(r.dupLogged, path)
		}
	}
	var gone []*entry
	for name, e := range r.models {
		if !seen[name] {
			gone = append(gone, e)
			delete(r.models, name)
		}
	}
	n := len(r.models)
	r.mu.Unlock()
	for _, e := range gone {
		r.log("model %q: %q is gone, no longer served", e.info.Name, e.info.File)
		e.b.close()
	}
	return n, nil
}

var errNoModels = errors.New("no model loaded")
