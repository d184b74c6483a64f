package decoreg

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"decoreg/internal/modelfile"
)

// TestH13SaveChecksNames: SetNames refuses column names that Load would
// refuse or that the file would not keep (a wrong count, a name given
// twice, the target among the features, invalid UTF-8) and leaves the
// model's names as they were, so Save writes those; Save and WriteTo
// refuse a header over the model file's limit, writing nothing.
func TestH13SaveChecksNames(t *testing.T) {
	m := fit(t, small(HeadMDN, ""), false) // one feature
	if err := m.SetNames([]string{"x0"}, "t"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		feats  []string
		target string
		want   string
	}{
		{[]string{"a", "b"}, "y", "2 feature names for the model's 1"},
		{[]string{"a"}, "a", "also feature 0"},
		{[]string{"\xc3("}, "y", "not valid UTF-8"},
		{[]string{"a"}, "\xff", "not valid UTF-8"},
	} {
		if err := m.SetNames(c.feats, c.target); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetNames(%q, %q): %v, want %q", c.feats, c.target, err, c.want)
		}
		if f, tg := m.Names(); !slices.Equal(f, []string{"x0"}) || tg != "t" {
			t.Errorf("SetNames(%q, %q) refused changed the names to %q, %q", c.feats, c.target, f, tg)
		}
		path := filepath.Join(t.TempDir(), "m.model")
		if err := m.Save(path); err != nil {
			t.Errorf("SetNames(%q, %q) refused: Save: %v", c.feats, c.target, err)
		}
	}
	x, y := toyData(400, 1)
	m2, err := FitFlat(context.Background(), x, 200, 2, y[:200], Config{Head: HeadMDN, EncWidth: 8, Components: 2, MaxEpochs: 1, Seed: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.SetNames([]string{"a", "a"}, "y"); err == nil || !strings.Contains(err.Error(), "same name") {
		t.Errorf("duplicate feature names: SetNames: %v", err)
	}
	if err := m2.SetNames([]string{"a", "b"}, "y"); err != nil {
		t.Errorf("valid names: %v", err)
	}
	if err := m2.Save(filepath.Join(t.TempDir(), "ok.model")); err != nil {
		t.Errorf("valid names: %v", err)
	}
	if err := m2.SetNames(nil, "y"); err != nil {
		t.Errorf("a target alone: %v", err)
	}
	if err := m2.SetNames([]string{"a", strings.Repeat("n", modelfile.MaxHeader)}, "y"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := m2.WriteTo(&b); !errors.Is(err, modelfile.ErrTooLarge) || b.Len() != 0 {
		t.Errorf("a 64 MiB name: wrote %d bytes, err %v; want ErrTooLarge", b.Len(), err)
	}
	// A model not fitted has no features to name: SetNames and Save
	// refuse it as not fitted.
	var u Model
	if err := u.SetNames([]string{"a", "a"}, "a"); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted model: %v", err)
	}
	if err := u.Save(filepath.Join(t.TempDir(), "u.model")); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted model: Save: %v", err)
	}
}

// TestH13EncodeRefusesHugeHeader: Encode refuses a header that Decode
// would call corrupt.
func TestH13EncodeRefusesHugeHeader(t *testing.T) {
	var b bytes.Buffer
	if err := modelfile.Encode(&b, make([]byte, modelfile.MaxHeader+1), nil); !errors.Is(err, modelfile.ErrTooLarge) || b.Len() != 0 {
		t.Errorf("Encode: %v, %d bytes written", err, b.Len())
	}
}
