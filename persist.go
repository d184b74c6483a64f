package decoreg

import (
	"encoding/json"
	"fmt"

	imodel "decoreg/internal/model"
	"decoreg/internal/modelfile"
)

// fileHeader is the JSON header of a model file.
type fileHeader struct {
	Format string      `json:"format"` // "decoreg-model"
	Config SavedConfig `json:"config"`
	XMean  []float64   `json:"x_mean"`
	XStd   []float64   `json:"x_std"`
	YMin   float64     `json:"y_min"`
	YMax   float64     `json:"y_max"`
	Names  []string    `json:"features,omitempty"`
	Target string      `json:"target,omitempty"`
	Info   TrainInfo   `json:"train"`
	Params int         `json:"params"`
}

// SavedConfig is a Config without its Progress callback, as model files
// and benchmark results record it: plain data, comparable with ==, and
// JSON with snake_case keys.
type SavedConfig struct {
	Head         Head    `json:"head"`
	Vocab        string  `json:"vocab,omitempty"`
	RawTarget    bool    `json:"raw_target,omitempty"`
	UnmaskedLoss bool    `json:"unmasked_loss,omitempty"`
	EncLayers    int     `json:"enc_layers"`
	EncWidth     int     `json:"enc_width"`
	DecLayers    int     `json:"dec_layers,omitempty"`
	DecWidth     int     `json:"dec_width,omitempty"`
	DecHeads     int     `json:"dec_heads,omitempty"`
	Bins         int     `json:"bins,omitempty"`
	Components   int     `json:"components,omitempty"`
	Sigmoid      bool    `json:"sigmoid,omitempty"`
	LR           float64 `json:"lr"`
	WeightDecay  float64 `json:"weight_decay"`
	AdamW        bool    `json:"adamw,omitempty"`
	BatchSize    int     `json:"batch_size"`
	MaxEpochs    int     `json:"max_epochs"`
	Patience     int     `json:"patience"`
	ValFrac      float64 `json:"val_frac"`
	Seed         uint64  `json:"seed"`
	Threads      int     `json:"threads"`
}

// Saved returns c's settings without its callback.
func (c Config) Saved() SavedConfig {
	return SavedConfig{c.Head, c.Vocab, c.RawTarget, c.UnmaskedLoss, c.EncLayers, c.EncWidth,
		c.DecLayers, c.DecWidth, c.DecHeads, c.Bins, c.Components, c.Sigmoid, c.LR, c.WeightDecay,
		c.AdamW, c.BatchSize, c.MaxEpochs, c.Patience, c.ValFrac, c.Seed, c.Threads}
}

// Config returns the settings as a Config (without a Progress callback).
func (s SavedConfig) Config() Config {
	return Config{Head: s.Head, Vocab: s.Vocab, RawTarget: s.RawTarget, UnmaskedLoss: s.UnmaskedLoss,
		EncLayers: s.EncLayers, EncWidth: s.EncWidth, DecLayers: s.DecLayers, DecWidth: s.DecWidth,
		DecHeads: s.DecHeads, Bins: s.Bins, Components: s.Components, Sigmoid: s.Sigmoid, LR: s.LR,
		WeightDecay: s.WeightDecay, AdamW: s.AdamW, BatchSize: s.BatchSize, MaxEpochs: s.MaxEpochs,
		Patience: s.Patience, ValFrac: s.ValFrac, Seed: s.Seed, Threads: s.Threads}
}

// Save writes the model to path atomically (see package modelfile for the
// format): weights, architecture, tokenization, scaling statistics and
// training metadata.
func (m *Model) Save(path string) error {
	if m == nil || m.net == nil {
		return ErrNotFitted
	}
	h := fileHeader{Format: "decoreg-model", Config: m.cfg.Saved(), XMean: m.xMean, XStd: m.xStd,
		YMin: m.yMin, YMax: m.yMax, Names: m.features, Target: m.target, Info: m.info, Params: m.net.NumParams()}
	hb, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("decoreg: encoding model header: %w", err)
	}
	return modelfile.WriteFile(path, hb, m.net.Params())
}

// Load reads a model written by Save. A file that is not a model, is
// truncated or corrupt, or was written by a newer decoreg gives an error
// naming the file.
func Load(path string) (*Model, error) {
	hb, params, err := modelfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h fileHeader
	if err := json.Unmarshal(hb, &h); err != nil || h.Format != "decoreg-model" {
		return nil, fmt.Errorf("%s: %w (bad header)", path, modelfile.ErrNotModel)
	}
	cfg := DefaultConfig(h.Config.Config())
	tok, err := cfg.validate()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := &Model{cfg: cfg, tok: tok, info: h.Info, xMean: h.XMean, xStd: h.XStd, yMin: h.YMin, yMax: h.YMax,
		features: h.Names, target: h.Target}
	if len(m.xMean) == 0 || len(m.xStd) != len(m.xMean) || !(m.yMax > m.yMin) {
		return nil, fmt.Errorf("%s: %w (bad scaling statistics)", path, modelfile.ErrNotModel)
	}
	m.tok = m.boundedVocab()
	net, err := imodel.New(m.netConfig(len(m.xMean)), 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if net.NumParams() != len(params) || h.Params != len(params) {
		return nil, fmt.Errorf("%s: %w: the architecture has %d parameters, the file %d", path, modelfile.ErrNotModel, net.NumParams(), len(params))
	}
	copy(net.Params(), params)
	m.net = net
	return m, nil
}
