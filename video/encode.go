package video

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FFmpeg is the ffmpeg program run to encode (looked up on PATH); tests change it.
var FFmpeg = "ffmpeg"

// Codec is a video codec the encoder offers: its name on the command line, the ffmpeg
// encoders that provide it (the first that ffmpeg has is used), its constant-quality range
// and default, and the extra arguments it takes.
type Codec struct {
	Name     string
	Encoders []string
	MaxCRF   int
	CRF      int
	extra    func(enc string) []string
}

// Codecs are the codecs --codec names, the default first. All encode yuv420p (4:2:0
// chroma), which plays everywhere and needs an even width and height.
var Codecs = []Codec{
	{Name: "h264", Encoders: []string{"libx264"}, MaxCRF: 51, CRF: 18,
		extra: func(string) []string { return []string{"-preset", "medium"} }},
	{Name: "h265", Encoders: []string{"libx265"}, MaxCRF: 51, CRF: 22,
		extra: func(string) []string {
			return []string{"-preset", "medium", "-tag:v", "hvc1", "-x265-params", "log-level=error"}
		}},
	{Name: "vp9", Encoders: []string{"libvpx-vp9"}, MaxCRF: 63, CRF: 31,
		extra: func(string) []string { return []string{"-b:v", "0", "-row-mt", "1"} }},
	{Name: "av1", Encoders: []string{"libsvtav1", "libaom-av1"}, MaxCRF: 63, CRF: 35,
		extra: func(enc string) []string {
			if enc == "libaom-av1" {
				return []string{"-b:v", "0", "-cpu-used", "6", "-row-mt", "1"}
			}
			return []string{"-preset", "8"}
		}},
}

// CodecNames is the codecs' names joined with "|".
func CodecNames() string {
	var ns []string
	for _, c := range Codecs {
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, "|")
}

// CodecByName returns the codec called name.
func CodecByName(name string) (Codec, bool) {
	for _, c := range Codecs {
		if c.Name == name {
			return c, true
		}
	}
	return Codec{}, false
}

// containers maps an output's extension to ffmpeg's muxer, and says which codecs it takes.
var containers = map[string]struct {
	format string
	codecs []string
}{
	".mp4":  {"mp4", []string{"h264", "h265", "vp9", "av1"}},
	".mov":  {"mov", []string{"h264", "h265"}},
	".mkv":  {"matroska", []string{"h264", "h265", "vp9", "av1"}},
	".webm": {"webm", []string{"vp9", "av1"}},
}

// Container returns ffmpeg's muxer for the output path's extension, or an error naming the
// extensions known and whether codec fits it.
func Container(path, codec string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	c, ok := containers[ext]
	if !ok {
		return "", fmt.Errorf("%q must end in .mp4, .mkv, .webm or .mov", filepath.Base(path))
	}
	for _, n := range c.codecs {
		if n == codec {
			return c.format, nil
		}
	}
	return "", fmt.Errorf("a %s file cannot hold %s video (it takes %s)", ext, codec, strings.Join(c.codecs, ", "))
}

// ErrNoFFmpeg is the error when ffmpeg is not installed.
var ErrNoFFmpeg = errors.New("ffmpeg not found: install Debian's package ffmpeg (apt-get install ffmpeg), or write PNG frames only with --frames=DIR")

var encodersOnce struct {
	sync.Mutex
	path string
	list map[string]bool
}

// minSide is the least width and height an encoder takes (SVT-AV1 refuses less than 64).
var minSide = map[string]int{"libsvtav1": 64}

// FindEncoder returns the ffmpeg encoder for codec at w x h: ErrNoFFmpeg without ffmpeg, an
// error naming the codecs this ffmpeg has when it lacks codec's encoders (for that size).
func FindEncoder(codec Codec, w, h int) (string, error) {
	path, err := exec.LookPath(FFmpeg)
	if err != nil {
		return "", ErrNoFFmpeg
	}
	encodersOnce.Lock()
	defer encodersOnce.Unlock()
	if encodersOnce.path != path {
		out, err := exec.Command(path, "-hide_banner", "-encoders").Output()
		if err != nil {
			return "", fmt.Errorf("%s -encoders: %v", FFmpeg, err)
		}
		list := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && len(f[0]) == 6 && f[0][0] == 'V' {
				list[f[1]] = true
			}
		}
		encodersOnce.path, encodersOnce.list = path, list
	}
	for _, e := range codec.Encoders {
		if encodersOnce.list[e] && min(w, h) >= minSide[e] {
			return e, nil
		}
	}
	var have []string
	for _, c := range Codecs {
		for _, e := range c.Encoders {
			if encodersOnce.list[e] {
				have = append(have, c.Name)
				break
			}
		}
	}
	return "", fmt.Errorf("this ffmpeg has no %s encoder (%s) for %dx%d; it offers: %s", codec.Name, strings.Join(codec.Encoders, " or "), w, h, strings.Join(have, ", "))
}

// Encoder pipes raw RGB frames to an ffmpeg process that encodes them into a file.
type Encoder struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	bw     *bufio.Writer
	stderr bytes.Buffer
	row    []byte
	w, h   int
	err    error // sticky
	// Wait is the time spent waiting for ffmpeg: writes that blocked on the pipe, and the
	// end of the encoding after the last frame.
	Wait time.Duration
}

// StartEncoder starts ffmpeg writing a w x h video at fps frames a second to path in the
// muxer format (Container), with the encoder enc of codec at quality crf.
func StartEncoder(path, format string, codec Codec, enc string, crf, w, h, fps int) (*Encoder, error) {
	ff, err := exec.LookPath(FFmpeg)
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", fmt.Sprintf("%dx%d", w, h), "-r", strconv.Itoa(fps), "-i", "-",
		"-c:v", enc, "-pix_fmt", "yuv420p", "-crf", strconv.Itoa(crf)}
	args = append(args, codec.extra(enc)...)
	if format == "mp4" || format == "mov" {
		args = append(args, "-movflags", "+faststart")
	}
	args = append(args, "-f", format, path)
	e := &Encoder{w: w, h: h, row: make([]byte, 3*w)}
	e.cmd = exec.Command(ff, args...)
	e.cmd.Stderr = &e.stderr
	detach(e.cmd)
	if e.in, err = e.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", FFmpeg, err)
	}
	e.bw = bufio.NewWriterSize(e.in, 1<<20)
	return e, nil
}

// WriteFrame sends one frame (w x h pixels from img.Rect.Min).
func (e *Encoder) WriteFrame(img *image.RGBA) error {
	return e.WriteRows(img.SubImage(image.Rect(img.Rect.Min.X, img.Rect.Min.Y, img.Rect.Min.X+e.w, img.Rect.Min.Y+e.h)).(*image.RGBA))
}

// WriteRows sends the next rows of the frame being sent: every row of strip (w pixels wide);
// a frame is sent as its h rows, in one strip or several.
func (e *Encoder) WriteRows(strip *image.RGBA) error {
	if e.err != nil {
		return e.err
	}
	t := time.Now()
	for y := strip.Rect.Min.Y; y < strip.Rect.Max.Y; y++ {
		o := strip.PixOffset(strip.Rect.Min.X, y)
		src := strip.Pix[o : o+4*e.w]
		for x := range e.w {
			e.row[3*x], e.row[3*x+1], e.row[3*x+2] = src[4*x], src[4*x+1], src[4*x+2]
		}
		if _, err := e.bw.Write(e.row); err != nil {
			e.err = e.failed(err)
			return e.err
		}
	}
	e.Wait += time.Since(t)
	return nil
}

// failed is the error for a write or wait that failed: ffmpeg's own last line when it said
// why.
func (e *Encoder) failed(err error) error {
	e.in.Close()
	werr := e.cmd.Wait()
	if msg := lastLine(e.stderr.String()); msg != "" {
		return fmt.Errorf("%s failed: %s", FFmpeg, msg)
	}
	if werr != nil {
		return fmt.Errorf("%s failed: %v", FFmpeg, werr)
	}
	return fmt.Errorf("%s: %v", FFmpeg, err)
}

// Close ends the input and waits for ffmpeg to finish the file.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	t := time.Now()
	defer func() { e.Wait += time.Since(t) }()
	if err := e.bw.Flush(); err != nil {
		e.err = e.failed(err)
		return e.err
	}
	e.in.Close()
	if err := e.cmd.Wait(); err != nil {
		if msg := lastLine(e.stderr.String()); msg != "" {
			e.err = fmt.Errorf("%s failed: %s", FFmpeg, msg)
		} else {
			e.err = fmt.Errorf("%s failed: %v", FFmpeg, err)
		}
		return e.err
	}
	e.err = errors.New("encoder closed")
	return nil
}

// CPUTime is the processor time ffmpeg used (after Close).
func (e *Encoder) CPUTime() time.Duration {
	if e.cmd.ProcessState == nil {
		return 0
	}
	return e.cmd.ProcessState.UserTime() + e.cmd.ProcessState.SystemTime()
}

// Abort stops ffmpeg at once, leaving what it wrote for the caller to remove.
func (e *Encoder) Abort() {
	if e.cmd.ProcessState != nil {
		return
	}
	e.cmd.Process.Kill()
	e.in.Close()
	e.cmd.Wait()
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
