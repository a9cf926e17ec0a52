package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	if data, err := ReadFile(p, 5); err != nil || string(data) != "hello" {
		t.Errorf("ReadFile: %q %v", data, err)
	}
	_, err := ReadFile(p, 4)
	if !errors.Is(err, ErrTooLarge) || err.Error() != p+" is larger than 4 bytes" || Reason(err) != "it is larger than 4 bytes" {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 10); !errors.Is(err, fs.ErrNotExist) || Reason(err) != "no such file or directory" {
		t.Errorf("missing: %v (%q)", err, Reason(err))
	}
}

func TestOpenRefusesFolder(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	if !errors.Is(err, ErrNotRegular) || err.Error() != dir+" is not a regular file (a folder)" {
		t.Errorf("Open(folder): %v", err)
	}
	if _, err := ReadDir(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing): %v", err)
	}
	os.WriteFile(filepath.Join(dir, "b"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o644)
	if des, err := ReadDir(dir); err != nil || len(des) != 2 || des[0].Name() != "a" || des[1].Name() != "b" {
		t.Errorf("ReadDir: %v %v", des, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "a")); !errors.Is(err, ErrNotRegular) || !strings.HasSuffix(err.Error(), "a is not a folder (a regular file)") {
		t.Errorf("ReadDir(file): %v", err)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.txt")
	if err := WriteAtomic(p, []byte("one"), 0, false); err != nil {
		t.Fatal(err)
	}
	err := WriteAtomic(p, []byte("two"), 0, false)
	if !errors.Is(err, fs.ErrExist) || err.Error() != "it already exists" {
		t.Errorf("over an existing file: %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "one" {
		t.Errorf("replaced without replace: %q", data)
	}
	if err := WriteAtomic(p, []byte("three"), 0o600, true); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "three" {
		t.Errorf("not replaced: %q", data)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 && os.PathSeparator == '/' {
		t.Errorf("mode %v, want the 0600 asked for", st.Mode().Perm())
	}
	// Replacing with perm 0 keeps the replaced file's mode.
	if err := WriteAtomic(p, []byte("four"), 0, true); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 && os.PathSeparator == '/' {
		t.Errorf("mode %v, want the replaced file's 0600 kept", st.Mode().Perm())
	}
	// A missing folder is named; the temporary file never is.
	err = WriteAtomic(filepath.Join(dir, "nodir", "x.txt"), []byte("x"), 0, false)
	if err == nil || err.Error() != "folder "+filepath.Join(dir, "nodir")+" does not exist" {
		t.Errorf("missing folder: %v", err)
	}
	// Over a folder, even with replace: refused, nothing written.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if err := WriteAtomic(sub, []byte("x"), 0, true); !errors.Is(err, ErrNotRegular) || err.Error() != "it is not a regular file (a folder)" {
		t.Errorf("over a folder: %v", err)
	}
	if des, _ := os.ReadDir(dir); len(des) != 2 {
		t.Errorf("left behind: %v", des)
	}
}
