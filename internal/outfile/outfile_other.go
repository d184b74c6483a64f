//go:build !unix

package outfile

import (
	"errors"
	"io/fs"
	"os"
)

// descriptorPath: descriptor paths are a Unix convention.
func descriptorPath(string) (int, bool) { return 0, false }

// keepOwner: a file's owner is kept on Unix only.
func keepOwner(*os.File, fs.FileInfo) {}

// writable reports whether the existing regular file may be replaced: it
// has a write permission bit (the read-only attribute is clear).
func writable(_ string, fi fs.FileInfo) bool { return fi.Mode().Perm()&0o222 != 0 }

// checkWritable accepts every existing special file.
func checkWritable(string) error { return nil }

func checkDescriptor(int) error {
	return errors.New("descriptor paths are not supported on this system")
}

func dupDescriptor(int, string) (*os.File, error) { return nil, checkDescriptor(0) }
