package bookmarks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"mandelscope/internal/userfile"
)

// lockTarget resolves the bookmarks file named (see resolveLinks) and locks it, returning its
// real path and the function that releases the lock. The lock sits beside the real file, not
// beside the name: two names for one file (a symbolic link and its target, or two links)
// must take the same lock, or two writers each read the file, add their change and rename
// their own result over the other's. A link changed between resolving and locking is
// resolved again.
func lockTarget(named string) (string, func(), error) {
	for range 10 {
		path, err := resolveLinks(named)
		if err != nil {
			return "", nil, err
		}
		unlock, err := lockFile(path + ".lock")
		if err != nil {
			return "", nil, fmt.Errorf("cannot lock bookmarks file %s: %v", named, plainErr(err))
		}
		again, err := resolveLinks(named)
		if err == nil && again == path {
			return path, unlock, nil
		}
		unlock()
	}
	return "", nil, fmt.Errorf("cannot lock bookmarks file %s: the links to it keep changing", named)
}

// resolveLinks returns the file that path names after following symbolic links, in the
// folder path and in the file name, as a chain of any length up to 40 links; a relative link
// is read from the folder the link is in. The last link may dangle: the file it points to is
// then created by the write, when its folder exists. A dangling link into a folder that does
// not exist (an unmounted drive, a removed dotfiles folder) is an error rather than a reason
// to make folders there, and so is a loop.
func resolveLinks(path string) (string, error) {
	orig := path
	for range 40 {
		dir, base := splitPath(path)
		rdir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			if path != orig && errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("bookmarks file %s is a link to %s, whose folder does not exist; nothing was changed", orig, filepath.Clean(path))
			}
			return "", fmt.Errorf("cannot follow the link %s: %v", orig, plainErr(err))
		}
		path = filepath.Join(rdir, base)
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			return path, nil
		}
		if err != nil {
			return "", fmt.Errorf("cannot follow the link %s: %v", orig, plainErr(err))
		}
		t, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("cannot follow the link %s: %v", orig, plainErr(err))
		}
		if !filepath.IsAbs(t) {
			// Not filepath.Join: it would take "sub/.." away as text, where the system
			// goes into sub (perhaps a link itself) and then to its parent.
			t = rdir + string(filepath.Separator) + t
		}
		path = t
	}
	return "", fmt.Errorf("cannot follow the link %s: too many levels of links", orig)
}

// splitPath splits path after its last separator, without cleaning it as filepath.Split's
// callers would ("a/sub/../x" is folder "a/sub/.." and name "x").
func splitPath(path string) (dir, base string) {
	i := len(path) - 1
	for i >= len(filepath.VolumeName(path)) && !os.IsPathSeparator(path[i]) {
		i--
	}
	dir, base = path[:i+1], path[i+1:]
	switch {
	case dir == "":
		dir = "."
	case len(dir) > len(filepath.VolumeName(path))+1:
		dir = strings.TrimRightFunc(dir, func(r rune) bool { return r < 128 && os.IsPathSeparator(uint8(r)) })
		if vol := len(filepath.VolumeName(path)); len(dir) <= vol {
			dir = path[:vol+1] // "//x": the root
		}
	}
	return dir, base
}

// removeStaleTemps removes the temporary files that userfile.WriteAtomic makes beside the
// bookmarks file at path and its backup (".NAME.123.tmp", ".NAME.bak.123.tmp") that a writer
// killed before its rename left behind. It is called with the file's lock held, and every
// writer of the file holds that lock while its temporary file exists, so none of them is a
// live writer's. Only regular files of exactly that naming are removed.
func removeStaleTemps(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	re := regexp.MustCompile(`^\.` + regexp.QuoteMeta(base) + `(\.bak)?\.[0-9]+\.tmp$`)
	entries, err := userfile.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !re.MatchString(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
