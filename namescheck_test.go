package decoreg

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"decoreg/internal/modelfile"
)

// TestH13SaveChecksNames: Save and WriteTo refuse column names that Load
// would refuse or that the file would not keep (a wrong count, a name given
// twice, the target among the features, invalid UTF-8), and a header over
// the model file's limit; nothing is written.
func TestH13SaveChecksNames(t *testing.T) {
	m := fit(t, small(HeadMDN, ""), false) // one feature
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
		m.SetNames(c.feats, c.target)
		path := filepath.Join(t.TempDir(), "m.model")
		if err := m.Save(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetNames(%q, %q): Save: %v, want %q", c.feats, c.target, err, c.want)
		}
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err == nil || b.Len() != 0 {
			t.Errorf("SetNames(%q, %q): WriteTo wrote %d bytes, err %v", c.feats, c.target, b.Len(), err)
		}
	}
	x, y := toyData(400, 1)
	m2, err := FitFlat(context.Background(), x, 200, 2, y[:200], Config{Head: HeadMDN, EncWidth: 8, Components: 2, MaxEpochs: 1, Seed: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m2.SetNames([]string{"a", "a"}, "y")
	if err := m2.Save(filepath.Join(t.TempDir(), "dup.model")); err == nil || !strings.Contains(err.Error(), "same name") {
		t.Errorf("duplicate feature names: Save: %v", err)
	}
	m2.SetNames([]string{"a", "b"}, "y")
	if err := m2.Save(filepath.Join(t.TempDir(), "ok.model")); err != nil {
		t.Errorf("valid names: %v", err)
	}
	m2.SetNames([]string{"a", strings.Repeat("n", modelfile.MaxHeader)}, "y")
	var b bytes.Buffer
	if _, err := m2.WriteTo(&b); !errors.Is(err, modelfile.ErrTooLarge) || b.Len() != 0 {
		t.Errorf("a 64 MiB name: wrote %d bytes, err %v; want ErrTooLarge", b.Len(), err)
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
