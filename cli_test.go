package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binOut  []byte
)

// buildBinary builds mandelscope once per test run and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mandelscope-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mandelscope")
		binOut, binErr = exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binOut)
	}
	return binPath
}

// TestCLIQuietUnderCLocale runs the real binary under the C locale (as on servers and CI):
// a good command prints nothing on stderr, a bad one exactly one line.
func TestCLIQuietUnderCLocale(t *testing.T) {
	bin := buildBinary(t)
	for _, env := range []string{"LANG=C.UTF-8", "LC_ALL=C", "LANG=POSIX"} {
		cmd := exec.Command(bin, "version")
		cmd.Env = append(cleanLocaleEnv(), env)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() != 0 || !strings.HasPrefix(out.String(), "mandelscope ") {
			t.Errorf("%s version: %v, stdout %q, stderr %q", env, err, out.String(), errb.String())
		}
		cmd = exec.Command(bin, "probe", "--zoom=NaN", "0,0")
		cmd.Env = append(cleanLocaleEnv(), env)
		errb.Reset()
		cmd.Stderr = &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%s probe --zoom=NaN: %v, want exit code 2", env, err)
		}
		if lines := strings.Split(strings.TrimSpace(errb.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "--zoom") {
			t.Errorf("%s probe --zoom=NaN: stderr %q, want one line naming --zoom", env, errb.String())
		}
	}
}

func cleanLocaleEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANGUAGE=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TestHelpFromMain: the real binary's --help, alone or after the window's flags, prints the
// commands and the window's flags on stdout and exits 0 without opening the window; a
// command's --help is that command's.
func TestHelpFromMain(t *testing.T) {
	bin := buildBinary(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"--zoom=2", "--renderer=cpu", "--help"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "DISPLAY=") // a window would fail without a display
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() != 0 {
			t.Errorf("%q: %v, stderr %q", args, err, errb.String())
		}
		for _, want := range []string{"usage: mandelscope [flags]", "\n  recolour ", "\nThe window's flags:\n", "\n  -renderer "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: stdout lacks %q:\n%s", args, want, out.String())
			}
		}
	}
	out, err := exec.Command(bin, "recolour", "--help").Output()
	if err != nil || !strings.HasPrefix(string(out), "usage: mandelscope recolour IN.exr") {
		t.Errorf("recolour --help: %v\n%s", err, out)
	}
}
