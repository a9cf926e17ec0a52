package video

// Sound: a video's soundtrack (Options.Audio, any file ffmpeg reads with a sound stream) is
// muxed in as the segments are joined, encoded for the container (AAC in MP4, MOV and
// Matroska, Opus in WebM), padded with silence or cut to the video's exact length. It decides
// neither keyframes nor segments: a resume with another soundtrack joins again, computing and
// encoding nothing else.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"mandelscope/internal/text"
)

// audioCodec is the sound encoding of a container: its name, the ffmpeg encoders that make it
// (the first this ffmpeg has is used) and their arguments.
type audioCodec struct {
	name     string
	encoders []string
	args     []string
}

var (
	aac  = audioCodec{"AAC", []string{"aac"}, []string{"-b:a", "192k"}}
	opus = audioCodec{"Opus", []string{"libopus", "opus"}, []string{"-b:a", "128k"}}
)

// audioFor is the sound encoding of ffmpeg's muxer format (Container's).
func audioFor(format string) audioCodec {
	if format == "webm" {
		return opus
	}
	return aac
}

// audioOnce holds the audio encoders of the ffmpeg at path, listed once (the window checks
// its form at every keystroke).
var audioOnce struct {
	sync.Mutex
	path string
	list map[string]bool
}

// audioEncoders lists this ffmpeg's audio encoders.
func audioEncoders(ff string) (map[string]bool, error) {
	audioOnce.Lock()
	defer audioOnce.Unlock()
	if audioOnce.path == ff {
		return audioOnce.list, nil
	}
	out, err := exec.Command(ff, "-hide_banner", "-encoders").Output()
	if err != nil {
		return nil, fmt.Errorf("%s -encoders: %v", FFmpeg, err)
	}
	list := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && len(f[0]) == 6 && f[0][0] == 'A' {
			list[f[1]] = true
		}
	}
	audioOnce.path, audioOnce.list = ff, list
	return list, nil
}

// findAudioEncoder is the ffmpeg encoder of ac, and the arguments it takes.
func findAudioEncoder(ff string, ac audioCodec) (string, []string, error) {
	list, err := audioEncoders(ff)
	if err != nil {
		return "", nil, err
	}
	for _, e := range ac.encoders {
		if list[e] {
			args := append([]string{"-c:a", e}, ac.args...)
			if e == "opus" { // ffmpeg's own Opus encoder is marked experimental
				args = append(args, "-strict", "-2")
			}
			return e, args, nil
		}
	}
	return "", nil, fmt.Errorf("this ffmpeg has no %s encoder (%s) for the sound", ac.name, strings.Join(ac.encoders, " or "))
}

// checkAudio reports what is wrong with opt's soundtrack, before any work: no video file to
// hold it, a file that is missing or unreadable, one in which ffmpeg finds no sound, or no
// encoder for the container's sound. It returns the soundtrack's absolute path (so that
// ffmpeg reads a name like "pipe:1" as the file it is).
func checkAudio(opt Options) (string, error) {
	if opt.Audio == "" {
		return "", nil
	}
	name := text.Clip(opt.Audio, 200)
	if opt.Output == "" {
		return "", fmt.Errorf("audio %s: PNG frames carry no sound; give a video file (.mp4, .mkv, .webm or .mov) to hold it", name)
	}
	abs, err := filepath.Abs(opt.Audio)
	if err != nil {
		return "", fmt.Errorf("audio %s: %v", name, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("audio %s: no such file", name)
	case err != nil:
		return "", fmt.Errorf("audio %s: %v", name, err)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("audio %s is not a file", name)
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", fmt.Errorf("audio %s cannot be read: %v", name, err)
	}
	f.Close()
	if opt.Shards > 0 {
		return abs, nil // a shard muxes nothing; the assembly reads the sound (and needs ffmpeg)
	}
	ff, err := exec.LookPath(FFmpeg)
	if err != nil {
		return "", ErrNoFFmpeg
	}
	format, err := Container(opt.Output, opt.Codec)
	if err != nil {
		return "", err
	}
	if _, _, err := findAudioEncoder(ff, audioFor(format)); err != nil {
		return "", err
	}
	// ffmpeg reads the first second of the first sound stream: a file it cannot read, or one
	// without sound, fails here.
	var stderr strings.Builder
	cmd := exec.Command(ff, "-hide_banner", "-loglevel", "error", "-nostdin", "-i", abs, "-map", "0:a:0", "-t", "1", "-f", "null", "-")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := lastLine(stderr.String())
		if strings.Contains(msg, "matches no streams") || strings.Contains(msg, "does not contain any stream") {
			msg = "it holds no sound"
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("audio %s: %s cannot read its sound: %s", name, FFmpeg, text.Clip(msg, 120))
	}
	return abs, nil
}
