package video

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// The work folder's lock, WORK.lock, is held by every run that writes the folder: a run that
// makes the whole video (or assembles it from shards) holds it alone, and shards hold it
// together (a shared lock), each also taking its own shard's lock. A run that cannot have it
// is refused at once with a line naming the run that holds it: a whole-video run beside
// shards of the same output, or beside another whole-video run, would write the same
// keyframe files (key-0021.msk.tmp) and rename them from under each other.

// workLockPath names the work folder's lock file.
func workLockPath(work string) string { return work + ".lock" }

// lockWork takes the work folder's lock, shared for a shard, and returns the function that
// releases it. The lock file is removed by the last holder as it lets go, so a lock taken on
// a file removed meanwhile is dropped and taken again on the file at the path. whole names
// the video for messages.
func lockWork(work string, shared bool, video string) (func(), error) {
	lp := workLockPath(work)
	for range 100 {
		if err := checkLockFile(lp); err != nil {
			return nil, err
		}
		lk := flock.New(lp)
		try := lk.TryLock
		if shared {
			try = lk.TryRLock
		}
		ok, err := try()
		if err != nil {
			return nil, fmt.Errorf("locking %s: %v", lp, err)
		}
		if !ok {
			lk.Close()
			return nil, &Error{ErrBusy, busyMessage(work, video)}
		}
		held, err1 := lk.Stat()
		now, err2 := os.Lstat(lp)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			lk.Close()
			continue
		}
		if !shared {
			// Who holds it, for the message of a run refused: written after the lock is
			// taken, so a refused run reads the holder's own line.
			if f, err := os.OpenFile(lp, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
				fmt.Fprintf(f, "pid %d\n", os.Getpid())
				f.Close()
			}
			return func() {
				os.Remove(lp)
				lk.Unlock()
			}, nil
		}
		return func() {
			lk.Unlock()
			// The last shard to let go removes the file: it is the last if it can take the
			// lock alone now.
			last := flock.New(lp)
			if ok, err := last.TryLock(); err == nil && ok {
				held, err1 := last.Stat()
				now, err2 := os.Lstat(lp)
				if err1 == nil && err2 == nil && os.SameFile(held, now) {
					os.Remove(lp)
				}
				last.Unlock()
			}
			last.Close()
		}, nil
	}
	return nil, &Error{ErrBusy, fmt.Sprintf("cannot lock %s: it keeps being replaced", lp)}
}

// workBusy is the ErrBusy error lockWork would give for a run that makes the whole video
// when another run holds work's lock, else nil. It creates nothing.
func workBusy(work, video string) error {
	lp := workLockPath(work)
	if st, err := os.Lstat(lp); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	lk := flock.New(lp)
	defer lk.Close()
	if ok, err := lk.TryLock(); err != nil || ok {
		return nil
	}
	return &Error{ErrBusy, busyMessage(work, video)}
}

// busyMessage says which run holds the work folder's lock: a whole-video run (it holds it
// alone: a shared lock cannot be had) with its process id, or running shards, named by their
// shard locks that are held.
func busyMessage(work, video string) string {
	lp := workLockPath(work)
	probe := flock.New(lp)
	sharedFree, _ := probe.TryRLock()
	probe.Close()
	if !sharedFree {
		pid := ""
		if f, err := os.Open(lp); err == nil {
			b, _ := io.ReadAll(io.LimitReader(f, 64))
			f.Close()
			if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "pid ") {
				if n, err := strconv.Atoi(s[4:]); err == nil && n > 0 {
					pid = fmt.Sprintf(", pid %d", n)
				}
			}
		}
		return fmt.Sprintf("another mandelscope is making the whole video %s in %s (it holds %s%s)", video, work, lp, pid)
	}
	running := ""
	if shards := heldShards(work); len(shards) > 0 {
		running = strings.Join(shards, ", ") + "; "
	}
	return fmt.Sprintf("shards of %s are running in %s (%sthey hold %s)", video, work, running, lp)
}

// heldShards names the shards whose lock beside work is held ("shard 1 of 2").
func heldShards(work string) []string {
	re := regexp.MustCompile(`\.shard-([0-9]+)-of-([0-9]+)\.lock$`)
	matches, _ := filepath.Glob(globEscape(work) + ".shard-*-of-*.lock")
	sort.Strings(matches)
	var out []string
	for _, m := range matches {
		sm := re.FindStringSubmatch(m)
		if sm == nil || m != work+sm[0] {
			continue
		}
		lk := flock.New(m)
		if ok, err := lk.TryRLock(); err == nil && ok {
			lk.Unlock()
			lk.Close()
			continue
		}
		lk.Close()
		out = append(out, fmt.Sprintf("shard %s of %s", sm[1], sm[2]))
	}
	return out
}

// globEscape escapes the characters filepath.Glob reads as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) && (r != '\\' || filepath.Separator != '\\') {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
