//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"mandelscope/bookmarks"
	"mandelscope/gradients"
)

// TestNamedPipeFiles: a named pipe wherever a command reads or writes a file the user names or
// keeps (a gradient file, the gradients folder, a .kfr, a PNG for --from, the bookmarks file,
// a file to import or export to) gives one line naming it, at once: each of these commands
// waited forever for a writer. A command still blocked after 10 s fails the test (and the pipe
// is opened for writing so that it ends).
func TestNamedPipeFiles(t *testing.T) {
	tmp := t.TempDir()
	gdir := filepath.Join(tmp, "gradients")
	os.Mkdir(gdir, 0o755)
	fifo := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Skipf("cannot make a named pipe here: %v", err)
		}
		return p
	}
	gpipe, kfr, png, json, out := fifo("gradients/pipe.txt"), fifo("place.kfr"), fifo("view.png"), fifo("marks.json"), fifo("out.txt")
	okBookmarks := filepath.Join(tmp, "conf", "bookmarks.json")
	const pipe = " is not a regular file (a named pipe)"
	view := []string{"export", "--renderer=cpu", "--size=8x6", "-o", filepath.Join(tmp, "x.png")}
	for _, c := range []struct {
		env  map[string]string
		args []string
		fifo string
		code int
		out  bool // the line is on stdout (an unreadable gradient in the list)
		want string
	}{
		{args: []string{"gradients", "list"}, fifo: gpipe, out: true, want: "pipe\tunreadable\tgradient file " + gpipe + pipe},
		{env: map[string]string{gradients.EnvDir: gpipe}, args: []string{"gradients", "list"}, fifo: gpipe, code: 1, want: "gradients folder " + gpipe + " is not a folder (a named pipe)"},
		{args: []string{"gradients", "import", kfr}, fifo: kfr, code: 1, want: "gradient file " + kfr + pipe},
		{args: []string{"gradients", "export", "pipe", filepath.Join(tmp, "g.txt")}, fifo: gpipe, code: 1, want: "gradient file " + gpipe + pipe},
		{args: []string{"gradients", "export", "--force", "classic", out}, fifo: out, code: 1, want: "cannot write " + out + ": it" + pipe},
		{args: []string{"gradients", "export", "classic", out}, fifo: out, code: 1, want: out + " already exists (use --force to replace it)"},
		{args: slices.Concat(view, []string{"--palette=pipe"}), fifo: gpipe, code: 2, want: "--palette: gradient file " + gpipe + pipe},
		{args: slices.Concat(view, []string{"--gradient=" + kfr}), fifo: kfr, code: 2, want: "--gradient: gradient file " + kfr + pipe},
		{args: slices.Concat(view, []string{"--from=" + png}), fifo: png, code: 2, want: "--from: " + png + pipe},
		{env: map[string]string{bookmarks.EnvPath: json}, args: slices.Concat(view, []string{"--bookmark=x"}), fifo: json, code: 2, want: "--bookmark: cannot read bookmarks file " + json + ": it" + pipe},
		{args: []string{"bookmarks", "import", kfr}, fifo: kfr, code: 1, want: "cannot read " + kfr + ": it" + pipe},
		{args: []string{"bookmarks", "import", json}, fifo: json, code: 1, want: "cannot read " + json + ": it" + pipe},
		{env: map[string]string{bookmarks.EnvPath: json}, args: []string{"bookmarks", "list"}, fifo: json, code: 1, want: "cannot read bookmarks file " + json + ": it" + pipe},
		{env: map[string]string{bookmarks.EnvPath: json}, args: []string{"bookmarks", "add", "--center=0,0", "--zoom=1", "--thumbnail=false", "x"}, fifo: json, code: 1, want: "cannot read bookmarks file " + json + ": it" + pipe},
		{args: []string{"bookmarks", "export", "--force", out}, fifo: out, code: 1, want: "cannot write " + out + ": it" + pipe},
	} {
		t.Setenv(gradients.EnvDir, gdir)
		t.Setenv(bookmarks.EnvPath, okBookmarks)
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		type result struct {
			code        int
			out, errOut string
		}
		done := make(chan result, 1)
		go func() {
			var o, e bytes.Buffer
			code := Run(c.args, &o, &e)
			done <- result{code, o.String(), e.String()}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			if w, err := os.OpenFile(c.fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			t.Fatalf("%q: still blocked on the named pipe %s after 10 s", c.args, c.fifo)
		}
		text := r.errOut
		if c.out {
			text = r.out
		}
		if r.code != c.code || !strings.Contains(text, c.want) || strings.Count(r.errOut, "\n") > 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and a line with %q", c.args, r.code, r.out, r.errOut, c.code, c.want)
		}
	}
	for _, p := range []string{gpipe, kfr, png, json, out} {
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a named pipe: %v", p, err)
		}
	}
}
