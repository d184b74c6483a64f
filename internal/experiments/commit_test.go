package experiments

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutCommit: a binary without a version stamp records the HEAD
// of the checkout it runs in only if that is decoreg's, with "+dirty"
// for changed or untracked Go sources, not for results being written.
func TestCheckoutCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := func(module string) string {
		dir := t.TempDir()
		git(dir, "init", "-q")
		write(filepath.Join(dir, "go.mod"), "module "+module+"\n\ngo 1.26\n")
		write(filepath.Join(dir, "a.go"), "package a\n")
		git(dir, "add", ".")
		git(dir, "commit", "-q", "-m", "x")
		return dir
	}

	t.Chdir(t.TempDir()) // no checkout
	if c := checkoutCommit(); c != "" {
		t.Errorf("outside a checkout: %q", c)
	}
	other := repo("example.com/other")
	t.Chdir(other)
	if c := checkoutCommit(); c != "" {
		t.Errorf("another module's checkout: %q", c)
	}
	ours := repo("decoreg")
	head := git(ours, "rev-parse", "HEAD")
	sub := filepath.Join(ours, "experiments", "results", "x")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	write(filepath.Join(sub, "results.jsonl"), "{}\n") // a journal being written
	if c := checkoutCommit(); c != head {
		t.Errorf("decoreg's clean checkout: %q, want %q", c, head)
	}
	write(filepath.Join(ours, "a.go"), "package a // changed\n")
	if c := checkoutCommit(); c != head+"+dirty" {
		t.Errorf("a changed source: %q, want %q", c, head+"+dirty")
	}
	git(ours, "checkout", "-q", "a.go")
	write(filepath.Join(ours, "b.go"), "package a\n")
	if c := checkoutCommit(); c != head+"+dirty" {
		t.Errorf("an untracked source: %q, want %q", c, head+"+dirty")
	}
}
