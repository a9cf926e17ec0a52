//go:build !linux

package export

// renameNoReplace is not available here: the caller checks, then renames, under the target's
// lock (so no other export can race it).
func renameNoReplace(from, to string) (ok bool, err error) { return false, nil }
