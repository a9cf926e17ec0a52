package video

// Segments: the frames are encoded a few seconds at a time, each segment by its own ffmpeg
// into the work folder's private encoding folder and then, complete, moved into the work
// folder as seg-NNNNNN-PARAMS-CONTENT.mp4 (NNNNNN its index, PARAMS the digest of everything
// that decides its frames and their encoding, CONTENT the digest of its bytes). The video is
// their concatenation, by ffmpeg's concat demuxer without encoding again (-c copy). A video
// stopped, by a cancel or a kill -9, loses at most the segment being encoded: a resume finds
// the segments of the same parameters whose bytes hold, and composes and encodes only the
// others, each frame for frame what an uninterrupted run would encode.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mandelscope/colour"
	"mandelscope/internal/userfile"
)

// SegmentSeconds is the length of a segment, in seconds of video. Each segment's encoder
// is waited for at its end, while it encodes the frames of its look-ahead (about 40 for
// x264's medium preset) with no frame composed meanwhile: longer segments wait less often;
// shorter ones lose less to a kill. A segment is finished before the next begins, so that a
// kill loses only the one being encoded.
const SegmentSeconds = 4

// encodingDir is the work folder's private folder where ffmpeg writes (made anew by each
// run, so that no link planted there can take what ffmpeg writes elsewhere: ffmpeg opens its
// output following links).
const encodingDir = "encoding"

// segPrefix and segExt frame a segment's file name.
const (
	segPrefix = "seg-"
	segExt    = ".mp4"
)

// segParams is what decides a segment's bytes besides its frames' index.
type segParams struct {
	Format      int             `json:"format"`
	Keyframes   string          `json:"keyframes"` // the keyframes' manifest digest
	Colour      colour.Coloring `json:"colour"`    // density resolved
	Width       int             `json:"width"`
	Height      int             `json:"height"`
	FPS         int             `json:"fps"`
	Frames      int             `json:"frames"`
	Waypoints   string          `json:"waypoints,omitempty"` // the timeline (FormatWaypoints); absent for a constant-speed zoom
	Cycle       float64         `json:"cycle,omitempty"`     // Options.PaletteCycle; absent for none
	PerSegment  int             `json:"perSegment"`
	Supersample int             `json:"supersample"`
	KeyScale    int             `json:"keyScale"`
	Codec       string          `json:"codec"`
	Encoder     string          `json:"encoder"`
	CRF         int             `json:"crf"`
	FFmpeg      string          `json:"ffmpeg"`
}

// segmenter encodes a video's segments into its work folder and joins them into the video.
type segmenter struct {
	ctx       context.Context
	work, dir string // the work folder, and its encoding folder
	ff        string // ffmpeg's path
	codec     Codec
	enc       string
	crf       int
	w, h, fps int
	params    string         // the digest of segParams, in hex (16 digits)
	per, n    int            // frames a segment, segments
	frames    int            // frames in all
	done      map[int]string // sound segments: index -> file name in the work folder
	cur       *Encoder
	curIdx    int
	notice    func(string)
	Wait      time.Duration // waiting for the encoders
	CPU       time.Duration // their processor time
}

// segmentFrames is the frames of a segment at fps frames a second (opt.segFrames in tests).
func segmentFrames(opt Options) int {
	if opt.segFrames > 0 {
		return opt.segFrames
	}
	return SegmentSeconds * opt.FPS
}

// newSegmenter makes the encoding folder anew and finds the sound segments the work folder
// holds for these parameters; the others (of other parameters, damaged, or not plain files)
// are removed.
func newSegmenter(ctx context.Context, work string, p segParams, codec Codec, enc string, notice func(string)) (*segmenter, error) {
	ff, err := exec.LookPath(FFmpeg)
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	p.Format, p.FFmpeg = 1, ff
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	s := &segmenter{ctx: ctx, work: work, dir: filepath.Join(work, encodingDir), ff: ff, codec: codec, enc: enc, crf: p.CRF,
		w: p.Width, h: p.Height, fps: p.FPS, params: hex.EncodeToString(sum[:8]), per: p.PerSegment,
		frames: p.Frames, done: map[int]string{}, curIdx: -1, notice: notice}
	s.n = (p.Frames + s.per - 1) / s.per
	// RemoveAll removes a link at the name, never what it points to; Mkdir then fails if
	// anything appears meanwhile.
	if err := os.RemoveAll(s.dir); err != nil {
		return nil, err
	}
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(work)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		i, params, content, ok := parseSegName(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(work, e.Name())
		if params == s.params && i < s.n && s.done[i] == "" {
			why := ""
			if !e.Type().IsRegular() {
				why = "it is not a regular file (" + userfile.Kind(e.Type()) + ")"
			} else if h, err := fileDigest(path); err != nil {
				why = userfile.Reason(err)
			} else if h != content {
				why = "its bytes do not hold (the digest in its name differs)"
			}
			if why == "" {
				s.done[i] = e.Name()
				continue
			}
			if s.notice != nil {
				s.notice(fmt.Sprintf("%s: %s; encoding segment %d again", e.Name(), why, i))
			}
		}
		// Not this video's, or not sound: removed (a link itself, never what it points to;
		// a folder under such a name is left).
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) && !e.IsDir() {
			return nil, err
		}
	}
	return s, nil
}

// segName is segment i's file name.
func segName(i int, params, content string) string {
	return fmt.Sprintf("%s%06d-%s-%s%s", segPrefix, i, params, content, segExt)
}

// parseSegName reads a segment's file name.
func parseSegName(name string) (i int, params, content string, ok bool) {
	if !strings.HasPrefix(name, segPrefix) || !strings.HasSuffix(name, segExt) {
		return 0, "", "", false
	}
	f := strings.Split(strings.TrimSuffix(strings.TrimPrefix(name, segPrefix), segExt), "-")
	if len(f) != 3 || len(f[0]) != 6 || len(f[1]) != 16 || len(f[2]) != 16 {
		return 0, "", "", false
	}
	for _, c := range f[0] {
		if c < '0' || c > '9' {
			return 0, "", "", false
		}
		i = 10*i + int(c-'0')
	}
	return i, f[1], f[2], true
}

// fileDigest is the first 8 bytes of the SHA-256 of the regular file at path, in hex.
func fileDigest(path string) (string, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// of is the segment frame k is in; has says whether segment i is already encoded.
func (s *segmenter) of(k int) int    { return k / s.per }
func (s *segmenter) has(i int) bool  { return s.done[i] != "" }
func (s *segmenter) last(k int) bool { return k == s.frames-1 || (k+1)%s.per == 0 }
func (s *segmenter) tmpPath() string {
	return filepath.Join(s.dir, fmt.Sprintf("seg-%06d%s", s.curIdx, segExt))
}
func (s *segmenter) encodedCount() int { return len(s.done) }

// begin starts encoding segment i.
func (s *segmenter) begin(i int) error {
	s.curIdx = i
	// No +faststart: a segment is read whole by the join, which writes the video's index
	// first itself, and moving a segment's index would only lengthen the wait at its end.
	e, err := startEncoder(s.ctx, s.tmpPath(), "mp4", false, s.codec, s.enc, s.crf, s.w, s.h, s.fps)
	if err != nil {
		return err
	}
	s.cur = e
	return nil
}

// WriteRows sends rows of the frame being composed to the segment's encoder.
func (s *segmenter) WriteRows(strip *image.RGBA) error { return s.cur.WriteRows(strip) }

// end finishes the segment being encoded and moves it into the work folder.
func (s *segmenter) end() error {
	e := s.cur
	s.cur = nil
	err := e.Close()
	s.Wait += e.Wait
	s.CPU += e.CPUTime()
	if err != nil {
		return fmt.Errorf("segment %d: %w", s.curIdx, err)
	}
	tmp := s.tmpPath()
	if st, err := os.Lstat(tmp); err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return fmt.Errorf("%s exited without writing segment %d of the video (frames %d to %d)", FFmpeg, s.curIdx, s.curIdx*s.per, min(s.frames, (s.curIdx+1)*s.per)-1)
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	h, err := fileDigest(tmp)
	if err != nil {
		return err
	}
	name := segName(s.curIdx, s.params, h)
	// A rename replaces a link at the name, never what it points to.
	if err := os.Rename(tmp, filepath.Join(s.work, name)); err != nil {
		return err
	}
	userfile.SyncDir(s.work)
	s.done[s.curIdx] = name
	return nil
}

// abort stops the segment being encoded, if any; the encoding folder is removed.
func (s *segmenter) abort() {
	if s.cur != nil {
		s.cur.Abort()
		s.cur = nil
	}
	os.RemoveAll(s.dir)
}

// join concatenates the segments into a video in format (the output's muxer), with the sound
// of the file audio when given (checkAudio's path: audio.go), and returns its path in the
// encoding folder.
func (s *segmenter) join(format, ext, audio string) (string, error) {
	var list strings.Builder
	for i := range s.n {
		if !s.has(i) {
			return "", fmt.Errorf("segment %d was not encoded", i)
		}
		// The encoding folder is in the work folder; the names are plain ASCII.
		fmt.Fprintf(&list, "file '../%s'\n", s.done[i])
	}
	lp := filepath.Join(s.dir, "segments.txt")
	f, err := userfile.CreateNew(lp, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(list.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	out := filepath.Join(s.dir, "video"+ext)
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "concat", "-safe", "0", "-i", lp}
	if audio == "" {
		args = append(args, "-c", "copy")
	} else {
		_, aargs, err := findAudioEncoder(s.ff, audioFor(format))
		if err != nil {
			return "", err
		}
		// The sound padded with silence (apad, without end) and cut at the video's length,
		// its frames' count over the frame rate, exactly.
		length := strconv.FormatFloat(float64(s.frames)/float64(s.fps), 'f', -1, 64)
		args = append(args, "-i", audio, "-map", "0:v:0", "-map", "1:a:0", "-c:v", "copy")
		args = append(args, aargs...)
		args = append(args, "-af", "apad", "-t", length)
	}
	if s.codec.Name == "h265" && (format == "mp4" || format == "mov") {
		args = append(args, "-tag:v", "hvc1")
	}
	if format == "mp4" || format == "mov" {
		args = append(args, "-movflags", "+faststart")
	}
	args = append(args, "-f", format, out)
	var stderr strings.Builder
	cmd := ffmpegCommand(s.ctx, s.ff, args, &stderr)
	t := time.Now()
	if err := startFFmpeg(cmd); err != nil {
		return "", fmt.Errorf("starting %s: %v", FFmpeg, err)
	}
	// Joining copies the segments' bytes: its time grows with the video, and it reads no
	// input of ours, so only a cancel stops it.
	err = waitFFmpeg(cmd, 1<<62)
	s.Wait += time.Since(t)
	if err != nil {
		if s.ctx.Err() != nil {
			return "", s.ctx.Err()
		}
		if msg := lastLine(stderr.String()); msg != "" {
			return "", fmt.Errorf("%s joining the segments failed: %s", FFmpeg, msg)
		}
		return "", fmt.Errorf("%s joining the segments failed: %v", FFmpeg, err)
	}
	if st, err := os.Lstat(out); err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return "", fmt.Errorf("%s exited without writing the joined video", FFmpeg)
	}
	if cmd.ProcessState != nil {
		s.CPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return out, syncFile(out)
}

// syncFile flushes the file at path to disk.
func syncFile(path string) error {
	f, err := userfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
