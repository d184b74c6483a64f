package decoreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"decoreg/data"
	"decoreg/dist"
	"decoreg/internal/modelfile"
	"decoreg/vocab"
)

// fileHeader is the JSON header of a model file.
type fileHeader struct {
	Format string    `json:"format"` // "decoreg-model"
	Config Config    `json:"config"`
	XMean  []float64 `json:"x_mean"`
	XStd   []float64 `json:"x_std"`
	// XQuantiles are the quantile transform's knots per feature
	// (Config.InputTransform "quantile"); x_mean and x_std are then the
	// features' mean and sd, for messages only.
	XQuantiles [][]float64 `json:"x_quantiles,omitempty"`
	// XBins are the ple input transform's bin edges per feature
	// (Config.InputTransform "ple"; null for a feature kept as one column), and XBinMean and
	// XBinStd the centre and scale of each column of the encoding.
	XBins    [][]float64 `json:"x_bins,omitempty"`
	XBinMean []float64   `json:"x_bin_mean,omitempty"`
	XBinStd  []float64   `json:"x_bin_std,omitempty"`
	YMin     float64     `json:"y_min"`
	YMax     float64     `json:"y_max"`
	Names    []string    `json:"features,omitempty"`
	Target   string      `json:"target,omitempty"`
	Info     TrainInfo   `json:"train"`
	Params   int         `json:"params"`
	// Temperature is the calibration temperature of 'train --calibrate';
	// absent (0) means none, as 1.
	Temperature float64 `json:"temperature,omitempty"`
	// DepthTemperatures are a decoder's temperatures per token depth
	// ('train --calibrate-by depth'), in place of Temperature: one per
	// token of the longest tokenization among the members; absent means
	// none. An ensemble's are in the first member's header only.
	DepthTemperatures []float64 `json:"depth_temperatures,omitempty"`
	// Recalibration is the map of the CDF of 'train --calibrate-by
	// isotonic' (dist.Recalibration's knots), applied after the
	// temperature; absent means none. An ensemble's is the mixture's, in
	// the first member's header only.
	Recalibration *recalKnots `json:"recalibration,omitempty"`
	// Members are an ensemble's members after the first, whose header this
	// is (see NewEnsemble); their parameters follow the first member's in
	// the file, in this order. A member's own temperature is absent: the
	// ensemble's applies to all.
	Members memberHeaders `json:"members,omitempty"`
	// Schema is the column transform of a model fitted on a data.Frame
	// (FitFrame, 'decoreg train'): the original columns, their kinds,
	// levels, medians and missing indicators. Absent for models fitted on
	// numbers and for files written before it existed, which behave as
	// before.
	Schema *data.Schema `json:"schema,omitempty"`
	// EndsCut is the rule by which an unnormalized decoder's extreme
	// cells end at its fixed target range's ends (vocab.BoundCut;
	// endsCutRule), as in every model fitted since the field exists, so
	// that a later rule leaves the files of this one as they were trained;
	// absent (0), files from before keep the cells across the ends whole.
	// Absent too where the model has no fixed range's bound. (Per member:
	// each member's header has its own.)
	EndsCut int `json:"ends_cut,omitempty"`
}

// recalKnots are a dist.Recalibration's knots in a file: R(v[k]) = r[k].
type recalKnots struct {
	V []float64 `json:"v"`
	R []float64 `json:"r"`
}

// Save writes the model to path (see package modelfile for the format):
// weights, architecture, tokenization, scaling statistics and training
// metadata. A regular file is written atomically (complete or not at all;
// a read-only one is refused), a symbolic link is written through to its
// target, a device or FIFO directly.
func (m *Model) Save(path string) error {
	hb, err := m.encodeHeader()
	if err != nil {
		return err
	}
	return modelfile.WriteFile(path, hb, m.params())
}

// params returns the parameters the model's file holds: a single model's
// own, an ensemble's members' one after another.
func (m *Model) params() []float32 {
	if len(m.others) == 0 {
		return m.net.ParamsView()
	}
	var out []float32
	for _, mk := range m.Members() {
		out = append(out, mk.net.ParamsView()...)
	}
	return out
}

// WriteTo writes the model file's bytes (what Save writes) to w.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	hb, err := m.encodeHeader()
	if err != nil {
		return 0, err
	}
	return modelfile.WriteTo(w, hb, m.params())
}

// encodeHeader returns the JSON header of the model's file.
func (m *Model) encodeHeader() ([]byte, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if err := m.checkNames(m.features, m.target); err != nil {
		return nil, err
	}
	h := m.header()
	if m.scaled() {
		h.Temperature, h.DepthTemperatures = m.temp, m.depthT
	}
	if k := m.maxTokens(); m.depthT != nil && len(m.depthT) != k {
		return nil, fmt.Errorf("decoreg: %d temperatures per token depth for tokenizations of up to %d tokens", len(m.depthT), k)
	}
	if m.recal != nil {
		v, r := m.recal.Knots()
		h.Recalibration = &recalKnots{V: v, R: r}
	}
	h.Schema = m.schema
	for _, o := range m.others {
		h.Members = append(h.Members, o.header())
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("decoreg: encoding model header: %w", err)
	}
	return hb, nil
}

// header is the file header of m alone (without temperature or members).
func (m *Model) header() fileHeader {
	h := fileHeader{Format: "decoreg-model", Config: m.cfg, XMean: m.xMean, XStd: m.xStd, XQuantiles: m.xKnots, XBins: m.xBins, XBinMean: m.xbMean, XBinStd: m.xbStd,
		YMin: m.units.YMin, YMax: m.units.YMax, Names: m.features, Target: m.target, Info: m.info, Params: m.net.NumParams(), EndsCut: m.endsCut}
	if h.Config.Encoder == EncoderMLP {
		// Files of MLP encoders stay as they were before PLR (Load reads a
		// missing encoder as "mlp"), readable by earlier versions too.
		h.Config.Encoder = ""
	}
	return h
}

// Load reads a model written by Save. A file that is not a model, is
// truncated or corrupt, or was written by a newer decoreg gives an error
// naming the file; one whose checksum holds but whose contents cannot make
// a working model (hand-edited, foreign) gives one that also wraps
// ErrBadModel.
func Load(path string) (*Model, error) {
	hb, params, err := modelfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := load(path, hb, params)
	if err != nil && !errors.Is(err, ErrBadModel) {
		err = badModel{path, err}
	}
	return m, err
}

// badModel is an error of load that is not a *ModelError: its message
// (prefixed with the file's name where it lacks it), also wrapping
// ErrBadModel and modelfile.ErrNotModel, as a *ModelError does.
type badModel struct {
	path string
	err  error
}

func (e badModel) Error() string {
	msg := e.err.Error()
	if !strings.Contains(msg, e.path) {
		msg = e.path + ": " + msg
	}
	return msg
}

func (e badModel) Unwrap() []error { return []error{ErrBadModel, modelfile.ErrNotModel, e.err} }

// memberHeaders are an ensemble's members' headers. Reading them counts
// the list first and refuses more than MaxEnsemble-1 before decoding one:
// a member "{}" is 3 bytes of the file and a few kilobytes decoded, so a
// header of millions of them took gigabytes before their count was
// checked.
type memberHeaders []fileHeader

func (mh *memberHeaders) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return json.Unmarshal(b, (*[]fileHeader)(mh)) // null, or the error of what is not a list
	}
	for n := 0; dec.More(); n++ {
		if n == MaxEnsemble-1 {
			return fmt.Errorf("more than %d ensemble members, at most %d", MaxEnsemble, MaxEnsemble)
		}
		var member json.RawMessage
		if err := dec.Decode(&member); err != nil {
			return err
		}
		// A member holds no members: refused before decoding, as members
		// of members multiplied the count (63 of 63 of 63 "{}" took 515 MB).
		var probe struct {
			Members json.RawMessage `json:"members"`
		}
		if json.Unmarshal(member, &probe) == nil {
			if m := bytes.TrimSpace(probe.Members); len(m) > 0 && !bytes.Equal(m, []byte("null")) && !emptyList(m) {
				return fmt.Errorf("ensemble member %d holds members of its own", n+2)
			}
		}
	}
	return json.Unmarshal(b, (*[]fileHeader)(mh))
}

// emptyList reports whether the JSON value b is an empty list ("[ ]").
func emptyList(b []byte) bool {
	return len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' && len(bytes.TrimSpace(b[1:len(b)-1])) == 0
}

// load makes the model of a file's header hb and parameters, read from
// path with its checksum checked.
func load(path string, hb []byte, params []float32) (*Model, error) {
	var h fileHeader
	if e := checkHeaderLists(hb, len(params)); e != nil {
		return nil, &ModelError{Path: path, Field: e.Field, Err: fmt.Errorf("a list of more than %d %s, past what a model of %d parameters holds (checked before decoding it)", e.Limit, e.What, len(params))}
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, fmt.Errorf("%s: %w (bad header: %v)", path, modelfile.ErrNotModel, err)
	}
	if h.Format != "decoreg-model" {
		return nil, fmt.Errorf("%s: %w (bad header: format %q)", path, modelfile.ErrNotModel, h.Format)
	}
	// (memberHeaders refused more than MaxEnsemble members.)
	heads := []*fileHeader{&h}
	for k := range h.Members {
		mh := &h.Members[k]
		if mh.Format != "decoreg-model" || len(mh.Members) > 0 || mh.Temperature != 0 || mh.DepthTemperatures != nil || mh.Recalibration != nil {
			return nil, fmt.Errorf("%s: %w (bad header of ensemble member %d)", path, modelfile.ErrNotModel, k+2)
		}
		heads = append(heads, mh)
	}
	if h.Recalibration != nil && h.DepthTemperatures != nil {
		return nil, &ModelError{Path: path, Field: "depth_temperatures", Err: errors.New("present beside a map of the CDF (recalibration)")}
	}
	var recal *dist.Recalibration
	if h.Recalibration != nil {
		var err error
		if recal, err = dist.NewRecalibration(h.Recalibration.V, h.Recalibration.R); err != nil {
			return nil, fmt.Errorf("%s: %w (bad header: %v)", path, modelfile.ErrNotModel, err)
		}
		if h.Config.Head == HeadPointwise {
			return nil, fmt.Errorf("%s: %w (bad header: a map of the CDF for a pointwise model)", path, modelfile.ErrNotModel)
		}
		// As FitTemperature: the isotonic map needs a tree tokenization's
		// exact CDF, for every member.
		for k, hk := range heads {
			if hk.Config.Head != HeadDecoder {
				continue
			}
			if tok, err := vocab.Parse(hk.Config.Vocab); err == nil {
				if _, tree := tok.(vocab.Tree); !tree {
					return nil, &ModelError{Path: path, Field: "recalibration", Err: fmt.Errorf("a map of the CDF for member %d's tokenization %s, which is not a tree (the isotonic objective needs one)", k+1, hk.Config.Vocab)}
				}
			}
		}
	}
	if len(heads) == 1 {
		m, err := loadMember(path, &h, params)
		if err != nil {
			return nil, err
		}
		if err := m.setDepthT(path, h.DepthTemperatures); err != nil {
			return nil, err
		}
		m.recal = recal
		if err := checkCentre(path, m); err != nil {
			return nil, err
		}
		return m, nil
	}
	members := make([]*Model, len(heads))
	rest := params
	for k, hk := range heads {
		if hk.Params < 0 || hk.Params > len(rest) || (k == len(heads)-1 && hk.Params != len(rest)) {
			return nil, fmt.Errorf("%s: %w: the header gives %d parameters to member %d, the file has %d left", path, modelfile.ErrNotModel, hk.Params, k+1, len(rest))
		}
		mk, err := loadMember(path, hk, rest[:hk.Params])
		if err != nil {
			return nil, fmt.Errorf("ensemble member %d: %w", k+1, err)
		}
		rest = rest[hk.Params:]
		members[k] = mk
	}
	info := members[0].info
	m, err := NewEnsemble(members...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, modelfile.ErrNotModel, err)
	}
	if err := m.setDepthT(path, h.DepthTemperatures); err != nil {
		return nil, err
	}
	m.info, m.recal = info, recal
	if err := checkCentre(path, m); err != nil {
		return nil, err
	}
	return m, nil
}

// checkCentre refuses a model whose prediction at the training rows'
// centre (the features' means) is not finite, or whose encoders' outputs
// at a few rows around it (every feature one sd up or down, and 8 fixed
// patterns of signs at 1.5 sds) are not: weights that overflow the
// network's float32 arithmetic (hand-edited; finite, so the checks of the
// parameters pass) would refuse rows like the training data, and a server
// reloading the file would put it in the place of a working model. (At
// the centre the first layer's weights multiply zeros: first-layer weights
// of 3e38 passed. Around it only the encoders are checked: the prediction
// in y units of a pointwise head trained on targets at float64's largest
// number overflows a little beyond the centre, a model train writes.)
func checkCentre(path string, m *Model) error {
	bad := func(err error) error {
		return &ModelError{Path: path, Field: "params", Err: fmt.Errorf("the prediction near the training rows' centre fails: %v", err)}
	}
	if _, err := m.dists(context.Background(), slices.Clone(m.xMean), 1, dist.TokenOptions{}); err != nil {
		return bad(err)
	}
	const rows = 10
	d := len(m.xMean)
	x := make([]float64, rows*d)
	state := uint64(0x9e3779b97f4a7c15) // the sign patterns: a fixed xorshift
	for i := range rows {
		for j, mu := range m.xMean {
			z := 1.0
			switch {
			case i == 1:
				z = -1
			case i > 1:
				state ^= state << 13
				state ^= state >> 7
				state ^= state << 17
				z = 1.5
				if state&1 == 0 {
					z = -1.5
				}
			}
			v := mu + z*m.xStd[j]
			if math.IsInf(v, 0) {
				v = mu // a feature near float64's limits stays at the centre
			}
			x[i*d+j] = v
		}
	}
	for k, mk := range m.Members() {
		rs, err := mk.memberRows(context.Background(), x, rows, dist.TokenOptions{})
		if err != nil {
			return bad(err)
		}
		for i, r := range rs {
			for _, v := range r.Phi {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					return bad(fmt.Errorf("member %d's encoder gives %v, %s sds from the centre (row %d of the check)", k+1, v, pick(i < 2, "1", "1.5"), i+1))
				}
			}
		}
	}
	return nil
}

// setDepthT sets the temperatures per token depth of m, loaded from path,
// after checking them: a decoder's, without a temperature, one per token
// of its members' longest tokenization, each in [MinTemperature,
// MaxTemperature].
func (m *Model) setDepthT(path string, ts []float64) error {
	if ts == nil {
		return nil
	}
	bad := func(format string, args ...any) error {
		return &ModelError{Path: path, Field: "depth_temperatures", Err: fmt.Errorf(format, args...)}
	}
	if m.cfg.Head != HeadDecoder {
		return bad("present for a %s model: only a decoder has them", m.cfg.Head)
	}
	if m.temp != 0 {
		return bad("present beside a temperature (%v)", m.temp)
	}
	if k := m.maxTokens(); len(ts) != k {
		return bad("%d values, want one per token (%d)", len(ts), k)
	}
	for k, t := range ts {
		if !(t >= MinTemperature && t <= MaxTemperature) {
			return bad("[%d] %v, want a number in [%v, %v]", k, t, MinTemperature, MaxTemperature)
		}
	}
	m.depthT = ts
	return nil
}

// loadMember makes the single model of header h with parameters params.
func loadMember(path string, h *fileHeader, params []float32) (*Model, error) {
	cfg := DefaultConfig(h.Config)
	tok, err := cfg.validate()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkModel(path, h, cfg, tok, params); err != nil {
		return nil, err
	}
	// A loaded model predicts on every core (results do not depend on the
	// thread count); its Config keeps the setting it was trained with.
	run := cfg
	run.Threads = 0
	var ple *pleStats
	if h.XBins != nil {
		ple = &pleStats{bins: h.XBins, mean: h.XBinMean, std: h.XBinStd}
	}
	m, err := newModel(run, tok, h.XMean, h.XStd, ple, h.YMin, h.YMax, 0, h.EndsCut)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.cfg = cfg
	m.info, m.features, m.target = h.Info, h.Names, h.Target
	m.temp = h.Temperature
	m.xKnots = h.XQuantiles
	m.schema = h.Schema
	if m.net.NumParams() != len(params) || h.Params != len(params) {
		return nil, fmt.Errorf("%s: %w: the architecture has %d parameters, the file %d", path, modelfile.ErrNotModel, m.net.NumParams(), len(params))
	}
	copy(m.net.Params(), params)
	m.net.Freeze() // a loaded model only predicts: its layers' weights packed once
	return m, nil
}
