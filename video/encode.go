package video

import (
	"bufio"
	"bytes"
	"context"
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

// EncoderFinish bounds the wait for ffmpeg to finish its file once its input has ended: an
// encoder that has not exited by then is stopped (its whole process group) and the video
// fails with a message saying so, rather than wait forever. A segment (a few seconds of
// video) takes well under a second on any machine; tests shorten it.
var EncoderFinish = 2 * time.Minute

// encoderStop is how long Wait waits for ffmpeg's output pipe after the process group was
// stopped (a child of the encoder that kept it open).
const encoderStop = time.Second

// running is the encoders this process runs, for KillEncoders.
var running struct {
	sync.Mutex
	cmds map[*exec.Cmd]bool
}

// KillEncoders stops every encoder this process runs, each with its whole process group,
// at once: for a process about to exit without waiting for them (a second Ctrl-C). The
// encoders run in process groups of their own, so no signal sent to this one reaches them.
func KillEncoders() {
	running.Lock()
	defer running.Unlock()
	for c := range running.cmds {
		killGroup(c)
	}
}

// startFFmpeg starts cmd (built by ffmpegCommand) and records it for KillEncoders.
func startFFmpeg(cmd *exec.Cmd) error {
	running.Lock()
	defer running.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	if running.cmds == nil {
		running.cmds = map[*exec.Cmd]bool{}
	}
	running.cmds[cmd] = true
	return nil
}

// waitFFmpeg waits for cmd (at most limit once its input has ended: then it is stopped and
// the error says so) and forgets it.
func waitFFmpeg(cmd *exec.Cmd, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		killGroup(cmd)
		<-done
		err = &hungError{limit}
	}
	running.Lock()
	delete(running.cmds, cmd)
	running.Unlock()
	return err
}

// hungError is an encoder that did not exit within the limit after its input ended.
type hungError struct{ limit time.Duration }

func (e *hungError) Error() string {
	return fmt.Sprintf("%s did not finish within %s of its last frame (it neither exited nor said why); it was stopped", FFmpeg, e.limit)
}

// ffmpegCommand is ffmpeg with args, in a process group of its own (a Ctrl-C at the terminal
// reaches this process alone, which stops it), stopped with that whole group when ctx is
// cancelled: Wait then returns within encoderStop even if a child of the encoder holds its
// output open.
func ffmpegCommand(ctx context.Context, ff string, args []string, stderr io.Writer) *exec.Cmd {
	cmd := exec.CommandContext(ctx, ff, args...)
	cmd.Stderr = stderr
	detach(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	cmd.WaitDelay = encoderStop
	return cmd
}

// Encoder pipes raw RGB frames to an ffmpeg process that encodes them into a file.
type Encoder struct {
	ctx    context.Context
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
// muxer format (Container), with the encoder enc of codec at quality crf. Cancelling ctx
// stops it (its whole process group).
func StartEncoder(ctx context.Context, path, format string, codec Codec, enc string, crf, w, h, fps int) (*Encoder, error) {
	return startEncoder(ctx, path, format, format == "mp4" || format == "mov", codec, enc, crf, w, h, fps)
}

// startEncoder is StartEncoder, with the index of an mp4 or mov file moved to its start
// (-movflags +faststart, for playing while it downloads) when faststart.
func startEncoder(ctx context.Context, path, format string, faststart bool, codec Codec, enc string, crf, w, h, fps int) (*Encoder, error) {
	ff, err := exec.LookPath(FFmpeg)
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", fmt.Sprintf("%dx%d", w, h), "-r", strconv.Itoa(fps), "-i", "-",
		"-c:v", enc, "-pix_fmt", "yuv420p", "-crf", strconv.Itoa(crf)}
	args = append(args, codec.extra(enc)...)
	if faststart {
		args = append(args, "-movflags", "+faststart")
	}
	args = append(args, "-f", format, path)
	e := &Encoder{ctx: ctx, w: w, h: h, row: make([]byte, 3*w)}
	e.cmd = ffmpegCommand(ctx, ff, args, &e.stderr)
	if e.in, err = e.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := startFFmpeg(e.cmd); err != nil {
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

// failed is the error for a write or flush that failed (ffmpeg stopped reading): ffmpeg's own
// last line when it said why, else what it did.
func (e *Encoder) failed(err error) error {
	e.in.Close()
	werr := waitFFmpeg(e.cmd, EncoderFinish)
	if e.ctx.Err() != nil {
		return e.ctx.Err() // stopped by the cancel
	}
	if msg := lastLine(e.stderr.String()); msg != "" {
		return fmt.Errorf("%s failed: %s", FFmpeg, msg)
	}
	var he *hungError
	if errors.As(werr, &he) {
		return werr
	}
	if werr != nil {
		return fmt.Errorf("%s failed: %v", FFmpeg, werr)
	}
	return fmt.Errorf("%s exited before it had read every frame, without saying why", FFmpeg)
}

// Close ends the input and waits for ffmpeg to finish the file, at most EncoderFinish.
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
	if err := waitFFmpeg(e.cmd, EncoderFinish); err != nil {
		var he *hungError
		switch msg := lastLine(e.stderr.String()); {
		case e.ctx.Err() != nil:
			e.err = e.ctx.Err() // stopped by the cancel
		case errors.As(err, &he):
			e.err = err
		case msg != "":
			e.err = fmt.Errorf("%s failed: %s", FFmpeg, msg)
		default:
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

// Abort stops ffmpeg (its whole process group) at once, leaving what it wrote for the
// caller to remove.
func (e *Encoder) Abort() {
	if e.cmd.ProcessState != nil {
		return
	}
	killGroup(e.cmd)
	e.in.Close()
	waitFFmpeg(e.cmd, encoderStop)
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
