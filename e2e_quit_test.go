package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWindowQuitSavesView runs the real window on the current X display and ends it the ways a
// person does: SIGTERM (logout, `timeout`), SIGHUP, and Ctrl+Q (xdotool). Each must end the
// program with status 0 within 20 s and leave the view in Fyne's preferences file, where the
// next start finds it; before, SIGTERM saved nothing (and, during a GL draw, crashed or hung in
// glfwTerminate) and Ctrl+Q did nothing. Skipped without a display or xdotool (failing with
// MANDELSCOPE_REQUIRE_GL=1), and in -short mode.
func TestWindowQuitSavesView(t *testing.T) {
	bin := windowTest(t, "xdotool")
	// Each window prints a line a frame it shows: the quit comes once it has shown one, as a
	// person's does (on a loaded machine the first frame can come seconds after the window
	// maps, and a key pressed before the window is up may go nowhere).
	t.Setenv("MANDELSCOPE_TRACE_FRAMES", "1")
	for i, how := range []string{"SIGTERM", "SIGHUP", "Ctrl+Q"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			zoom := strconv.Itoa(300 + i)
			cmd, logs, exited := startWindow(t, bin, dir, "--center=-0.7436,0.1318", "--zoom="+zoom, "--iterations=700")
			wid := waitWindow(t, cmd.Process.Pid, exited)
			// A frame shown: the window is running, its GL renderer drawing.
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(logs.String(), "frame ") && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			// The window has taken SIGINT and SIGTERM over from Fyne's driver (app.Options'
			// SignalsTaken): a signal sent while it swaps the handlers would find none.
			for !strings.Contains(logs.String(), "signals: ") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			switch how {
			case "SIGTERM":
				_ = cmd.Process.Signal(syscall.SIGTERM)
			case "SIGHUP":
				_ = cmd.Process.Signal(syscall.SIGHUP)
			case "Ctrl+Q":
				xdo(t, "windowfocus", "--sync", wid)
				xdo(t, "key", "--window", wid, "ctrl+q")
			}
			select {
			case err := <-exited:
				exited <- err
				if err != nil {
					t.Fatalf("after %s the window exited with %v", how, err)
				}
				if strings.Contains(logs.String(), "did not finish quitting") {
					t.Logf("after %s Fyne's run loop did not return; the program ended itself", how)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("the window still ran 20 s after %s", how)
			}
			data, err := os.ReadFile(filepath.Join(dir, "fyne", "io.mandelscope.app", "preferences.json"))
			if err != nil {
				t.Fatalf("no preferences saved: %v", err)
			}
			var prefs map[string]any
			if err := json.Unmarshal(data, &prefs); err != nil {
				t.Fatalf("preferences %q: %v", data, err)
			}
			if v, _ := prefs["window.view"].(string); !strings.Contains(v, "re=-0.7436 im=0.1318 zoom="+zoom+" ") {
				t.Errorf("after %s the saved view is %q, want the view at zoom %s", how, v, zoom)
			}
			// The whole state, written at once: the size and the panel too.
			if w, h := prefs["window.width"], prefs["window.height"]; w != 1280.0 || h != 800.0 {
				t.Errorf("after %s the saved size is %v x %v, want 1280 x 800", how, w, h)
			}
			if _, ok := prefs["window.bookmarks_open"]; !ok {
				t.Errorf("after %s the bookmarks panel's state was not saved", how)
			}
		})
	}
}

// waitWindow waits (25 s at most) for the visible window titled Mandelscope of process pid,
// and returns its id.
func waitWindow(t *testing.T, pid int, exited chan error) string {
	t.Helper()
	deadline := time.Now().Add(25 * time.Second)
	for {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "^Mandelscope$").Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			return f[len(f)-1]
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the window exited early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no visible window titled Mandelscope after 25 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
