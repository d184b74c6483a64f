package vec

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// imports returns, for every non-test Go file of the module (any build
// tag), its path relative to the module root and the paths it imports.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[rel] = append(out[rel], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOneReadingOfCPUFeatures checks that the engine reads the CPU's
// features in one place (CPU, in cpu.go), whatever the build tags, as
// x/crypto's blake2b keeps its feature flags in one file; they were read
// in six files of two packages.
func TestOneReadingOfCPUFeatures(t *testing.T) {
	for file, ims := range imports(t) {
		if slices.Contains(ims, "golang.org/x/sys/cpu") && file != "internal/vec/cpu.go" {
			t.Errorf("%s reads the CPU's features itself; use vec.CPU", file)
		}
	}
}

// TestEngineDependenciesOneWay checks that the engine's packages depend
// on each other one way: par and vec are leaves, gemm builds on them, and
// the public dist does not reach into internal/nn (which it did for the
// vector exp while internal/model imports dist).
func TestEngineDependenciesOneWay(t *testing.T) {
	allowed := map[string][]string{ // package directory: the decoreg packages it may import
		"internal/par":  nil,
		"internal/vec":  nil,
		"internal/gemm": {"decoreg/internal/par", "decoreg/internal/vec", "decoreg/internal/gemm/internal/cblas"},
	}
	for file, ims := range imports(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		for _, im := range ims {
			if !strings.HasPrefix(im, "decoreg/") {
				continue
			}
			if ok, listed := allowed[dir]; listed && !slices.Contains(ok, im) {
				t.Errorf("%s imports %s", file, im)
			}
			if dir == "dist" && strings.HasPrefix(im, "decoreg/internal/") && im != "decoreg/internal/vec" {
				t.Errorf("%s (public dist) imports %s", file, im)
			}
		}
	}
}
