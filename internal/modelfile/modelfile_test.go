package modelfile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg/internal/memlimit"
)

func sample() ([]byte, []float32) {
	params := []float32{0, -1.5, float32(math.Pi), math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(-1))}
	return []byte(`{"head":"decoder"}`), params
}

func TestRoundTrip(t *testing.T) {
	h, p := sample()
	var buf bytes.Buffer
	if err := Encode(&buf, h, p); err != nil {
		t.Fatal(err)
	}
	// Independent check of the layout: magic, version, lengths, crc.
	b := buf.Bytes()
	if string(b[:8]) != "DECOREG\x00" || binary.LittleEndian.Uint32(b[8:]) != Version {
		t.Fatalf("bad prefix % x", b[:12])
	}
	if want := 8 + 4 + 4 + len(h) + 8 + 4*len(p) + 4; len(b) != want {
		t.Fatalf("length %d, want %d", len(b), want)
	}
	if got := binary.LittleEndian.Uint32(b[len(b)-4:]); got != crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)) {
		t.Fatal("crc mismatch")
	}
	h2, p2, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h, h2) || len(p2) != len(p) {
		t.Fatalf("header/len mismatch")
	}
	for i := range p {
		if math.Float32bits(p[i]) != math.Float32bits(p2[i]) {
			t.Fatalf("param %d: %v != %v", i, p2[i], p[i])
		}
	}
}

func TestCorrupt(t *testing.T) {
	h, p := sample()
	var buf bytes.Buffer
	Encode(&buf, h, p)
	good := buf.Bytes()
	for cut := 0; cut < len(good); cut++ {
		_, _, err := Decode(bytes.NewReader(good[:cut]))
		if err == nil {
			t.Fatalf("truncation at %d accepted", cut)
		}
		// Cut within the magic too ("DECOREG" was "not a model file").
		if want := cut > 0; want != errors.Is(err, ErrTruncated) {
			t.Fatalf("truncation at %d: %v", cut, err)
		}
	}
	for i := 0; i < len(good); i++ {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		if _, _, err := Decode(bytes.NewReader(bad)); err == nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
	}
	newer := bytes.Clone(good)
	binary.LittleEndian.PutUint32(newer[8:], Version+1)
	_, _, err := Decode(bytes.NewReader(newer))
	if !errors.Is(err, ErrVersion) {
		t.Fatalf("newer version: %v", err)
	}
	if _, _, err := Decode(bytes.NewReader([]byte("x,y\n1,2\n"))); !errors.Is(err, ErrNotModel) {
		t.Fatalf("csv: %v", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.drg")
	h, p := sample()
	if err := WriteFile(path, h, p); err != nil {
		t.Fatal(err)
	}
	if _, p2, err := ReadFile(path); err != nil || len(p2) != len(p) {
		t.Fatal(err)
	}
	// A write into a missing directory fails and leaves nothing behind.
	if err := WriteFile(filepath.Join(dir, "nope", "m.drg"), h, p); err == nil {
		t.Fatal("write into missing dir succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("dir has %d entries, want 1", len(ents))
	}
	if _, _, err := ReadFile(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file read")
	}
}

// TestReadFileForeign: a gzip-compressed model says so, and a directory is
// named once in its error.
func TestReadFileForeign(t *testing.T) {
	dir := t.TempDir()
	var model, gz bytes.Buffer
	if err := Encode(&model, []byte(`{}`), []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&gz)
	zw.Write(model.Bytes())
	zw.Close()
	path := filepath.Join(dir, "m.drg.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(path); !errors.Is(err, ErrNotModel) || !strings.Contains(err.Error(), "gzip-compressed") {
		t.Errorf("a gzip of a model: %v", err)
	}
	_, _, err := ReadFile(dir)
	if err == nil || strings.Count(err.Error(), dir) != 1 || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// zeros is an endless stream of zero bytes that counts what is read.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestStreamCountBeyondMemory: a stream (size unknown) declaring more
// parameters than the process's memory can hold is refused before they
// are read; 22 bytes declaring 2^34 parameters, then zeros without end,
// grew the process to gigabytes (review).
func TestStreamCountBeyondMemory(t *testing.T) {
	l, ok := memlimit.Available()
	if !ok {
		t.Skip("no memory limit known here")
	}
	var head bytes.Buffer
	head.WriteString(magic)
	binary.Write(&head, binary.LittleEndian, uint32(Version))
	binary.Write(&head, binary.LittleEndian, uint32(2))
	head.WriteString("{}")
	n := uint64(maxParams)
	if 4*float64(n) <= 0.9*l.Bytes {
		t.Skipf("this process may allocate %.3g GiB, more than the most parameters a file holds", l.Bytes/(1<<30))
	}
	binary.Write(&head, binary.LittleEndian, n)
	z := &zeros{}
	// (Limited, so that a decode that reads them ends: truncated.)
	_, _, err := Decode(io.MultiReader(&head, io.LimitReader(z, 64<<20)))
	if !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), "GiB") {
		t.Errorf("a stream declaring %d parameters: %v, want ErrNoRoom", n, err)
	}
	if z.n > 1<<20 {
		t.Errorf("read %d bytes of parameters before refusing them", z.n)
	}
}

// TestDamagedSizes: a damaged header length or parameter count is corrupt
// (ErrChecksum), said as a damaged size, not a checksum mismatch, which
// was not compared; a file cut after its header says how long it must be
// at least (helper-149: "it is 877 bytes, with a header of 877 declared").
func TestDamagedSizes(t *testing.T) {
	h, p := sample()
	var buf bytes.Buffer
	Encode(&buf, h, p)
	good := buf.Bytes()
	long := bytes.Clone(good)
	binary.LittleEndian.PutUint32(long[12:], MaxHeader+1)
	count := bytes.Clone(good)
	binary.LittleEndian.PutUint64(count[16+len(h):], 1<<62)
	for name, b := range map[string][]byte{"header length": long, "parameter count": count, "data after the end": append(bytes.Clone(good), 0)} {
		_, _, err := decode(bytes.NewReader(b), int64(len(b)))
		if !errors.Is(err, ErrChecksum) || strings.Contains(err.Error(), "checksum mismatch") || !strings.HasPrefix(err.Error(), "model file is corrupt: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	cut := good[:16+len(h)]
	_, _, err := decode(bytes.NewReader(cut), int64(len(cut)))
	if want := fmt.Sprintf("model file is truncated: it is %d bytes, and its start declares a header of %d, so it needs at least %d (or the header length is damaged)", len(cut), len(h), len(h)+28); err == nil || err.Error() != want {
		t.Errorf("cut after the header: %v, want %s", err, want)
	}
}
