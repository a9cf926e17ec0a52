package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mandelscope/export"
	"mandelscope/internal/version"
	"mandelscope/render/cpu"
)

// Issue 31, item 6: messages that send the user nowhere.

// lastLine is the last line of a command's stderr.
func lastLine(errs string) string {
	errs = strings.TrimSpace(errs)
	return errs[strings.LastIndex(errs, "\n")+1:]
}

// A recolour of a damaged raw file (one byte short, a chunk changed) says that the file is
// damaged, where, and to export the view again with a raw file; never "run the same command
// with --resume" (which fails the same way for ever) nor --renderer (which recolour lacks),
// with --resume neither. A resume from a raw file other than the one the recolour began with
// (the damaged one, repaired) is refused without naming --renderer either.
func TestRecolourDamagedRawSaysSo(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "v.exr")
	mustExport(t, "--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=400", "--size=320x180", "--raw="+raw)
	good := readFile(t, raw)
	short := filepath.Join(dir, "short.exr")
	os.WriteFile(short, good[:len(good)-1], 0o644)
	flipped := filepath.Join(dir, "flipped.exr")
	b := append([]byte(nil), good...)
	for i := len(b) / 2; i < len(b)/2+40; i++ {
		b[i] ^= 0x55
	}
	os.WriteFile(flipped, b, 0o644)
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{short, []string{short + " is damaged", "sample lines 176 to 179 of 180", "truncated", "(1 missing)", "mandelscope export --from=" + short + " --raw="}},
		{flipped, []string{flipped + " is damaged", "sample lines 80 to 95 of 180", "chunk 5", "mandelscope export --from=" + flipped + " --raw="}},
	} {
		out := filepath.Join(dir, filepath.Base(tc.in)+".png")
		for _, resume := range []bool{false, true} {
			args := []string{tc.in, "-o", out}
			if resume {
				args = append(args, "--resume")
			}
			code, errs := recolourCmd(args...)
			what := fmt.Sprintf("recolour %s (resume %v)", filepath.Base(tc.in), resume)
			oneLineWith(t, what, code, errs, 1, tc.want...)
			if l := lastLine(errs); strings.Contains(l, "--resume to continue") || strings.Contains(l, "--renderer") {
				t.Errorf("%s: %q sends the user round in circles", what, l)
			}
		}
	}
	// The short file made whole again: another raw file than the one the recolour began with.
	os.WriteFile(short, good, 0o644)
	code, errs := recolourCmd(short, "--resume", "-o", filepath.Join(dir, "short.exr.png"))
	oneLineWith(t, "resume from another raw file", code, errs, 1, "cannot resume", "the raw file it began with", "--force")
	if strings.Contains(lastLine(errs), "--renderer") {
		t.Errorf("resume from another raw file: %q names --renderer, which recolour lacks", lastLine(errs))
	}
	// Damage in the header (the offset table) is found on opening: exit 2, the same advice
	// but for --from, which cannot read it either.
	b = append([]byte(nil), good...)
	table := tableStart(t, good)
	for i := table; i < table+8; i++ {
		b[i] = 0xff
	}
	bad := filepath.Join(dir, "table.exr")
	os.WriteFile(bad, b, 0o644)
	code, errs = recolourCmd(bad, "-o", filepath.Join(dir, "t.png"))
	oneLineWith(t, "damaged offset table", code, errs, 2, bad+" is damaged", "chunk 0", "export the view again with --raw=")
}

// tableStart is the byte where an OpenEXR file's offset table starts: after the header (which
// ends with a zero byte), its first entry is the offset of the first chunk, which follows the
// table: the first 8-byte little-endian value v after a zero byte, at p, with v = p + 8n.
func tableStart(t *testing.T, b []byte) int {
	t.Helper()
	for p := 8; p+8 <= len(b); p++ {
		if b[p-1] != 0 {
			continue
		}
		v := int(b[p]) | int(b[p+1])<<8 | int(b[p+2])<<16 | int(b[p+3])<<24
		if b[p+4] != 0 || b[p+5] != 0 || b[p+6] != 0 || b[p+7] != 0 || v <= p || (v-p)%8 != 0 {
			continue
		}
		n := (v - p) / 8
		if n > 0 && n < 1000 {
			return p
		}
	}
	t.Fatal("no offset table found")
	return 0
}

// `export --resume` without the interrupted run's --raw names the flag to add, with the
// file; with another raw file, the one to give; with --raw where the run wrote none, to drop it.
func TestExportResumeNamesRawFlag(t *testing.T) {
	dir := t.TempDir()
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=400", "--size=320x180"}
	png, raw := filepath.Join(dir, "e.png"), filepath.Join(dir, "e.exr")
	interruptRaw(t, append(view, "--raw="+raw, "-o", png))
	code, _, errs := exportCmd(append(view, "--resume", "-o", png)...)
	oneLineWith(t, "resume without --raw", code, errs, 1, "also wrote the raw file "+raw, "resume with --raw="+raw)
	if strings.Contains(errs, "(none)") {
		t.Errorf("resume without --raw: %q", lastLine(errs))
	}
	code, _, errs = exportCmd(append(view, "--resume", "--raw="+filepath.Join(dir, "x.exr"), "-o", png)...)
	oneLineWith(t, "resume with another --raw", code, errs, 1, "wrote the raw file "+raw+", not ", "resume with --raw="+raw)
	mustExport(t, append(view, "--resume", "--raw="+raw, "-o", png)...)

	png2 := filepath.Join(dir, "n.png")
	interruptRaw(t, append(view, "-o", png2))
	code, _, errs = exportCmd(append(view, "--resume", "--raw="+filepath.Join(dir, "n.exr"), "-o", png2)...)
	oneLineWith(t, "resume with a --raw the run lacked", code, errs, 1, "wrote no raw file", "resume without --raw")
}

// interruptRaw runs `export args` stopped after its first strips, raw file included.
func interruptRaw(t *testing.T, args []string) {
	t.Helper()
	job, err := parseExport(args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := export.Options{Location: job.loc, Width: job.w, Height: job.h, Supersample: job.ss, Tile: job.tile, Version: version.Version, Raw: job.raw,
		Progress: func(p export.Progress) {
			if p.Strip >= 2 {
				cancel()
			}
		}}
	if _, err := export.Export(ctx, &cpu.Renderer{}, job.out, opt); !errors.Is(err, export.ErrInterrupted) {
		t.Fatalf("interrupted export: %v", err)
	}
}

// commandFlags are the flags a command defines, as its -h lists them.
func commandFlags(t *testing.T, cmd string) map[string]bool {
	t.Helper()
	var out, errb bytes.Buffer
	Run([]string{cmd, "-h"}, &out, &errb)
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(out.String()+errb.String(), -1) {
		flags[m[1]] = true
	}
	if !flags["force"] || !flags["resume"] {
		t.Fatalf("%s -h lists %v: the flags were not found", cmd, flags)
	}
	return flags
}

// Every piece of advice export and recolour add to an export error names only flags of the
// command it names: the command's own ("add --force"), or those of the command it tells to
// run ("mandelscope export --from=... --raw=...").
func TestAdviceNamesFlagsTheCommandHas(t *testing.T) {
	cmds := []string{"export", "recolour"}
	flags := map[string]map[string]bool{}
	for _, c := range cmds {
		flags[c] = commandFlags(t, c)
	}
	kinds := []error{export.ErrInterrupted, export.ErrNoSpace, export.ErrExists, export.ErrAppeared, export.ErrUnfinished,
		export.ErrBusy, export.ErrBadLock, export.ErrNotFolder, export.ErrIsFolder, export.ErrShards, export.ErrNothingToResume,
		export.ErrParamsDiffer, export.ErrRendererDiffers, export.ErrDamaged}
	var errs []error
	for _, k := range kinds {
		for _, kept := range []bool{false, true} {
			for _, was := range []string{"", "CPU (pure Go)", "OpenGL: some GPU", export.RawIdentityPrefix + "0123"} {
				for _, rawDiffers := range []bool{false, true} {
					errs = append(errs, &export.Error{Kind: k, Path: "o.png", Msg: "m", Kept: kept, Was: was, RawDiffers: rawDiffers})
				}
			}
		}
	}
	rd := &export.RawReadError{Path: "in.exr", Lines: 16, Height: 16, Err: errors.New("exr: chunk 0: bad")}
	errs = append(errs, rd, &export.Error{Kind: export.ErrInterrupted, Path: "o.png.part", Msg: "m", Kept: true, Err: rd})
	token := regexp.MustCompile(`mandelscope ([a-z]+)|--([a-z][a-z0-9-]*)`)
	for _, cmd := range cmds {
		for _, e := range errs {
			err := withAdvice(e, exportJob{cmd: cmd, out: "o.png"})
			var ae adviceError
			if !errors.As(err, &ae) {
				continue
			}
			// Flags right after "mandelscope X" are X's; the others are cmd's.
			owner, after := cmd, ""
			for _, m := range token.FindAllStringSubmatchIndex(ae.advice, -1) {
				s := ae.advice[m[0]:m[1]]
				if m[2] >= 0 {
					after = ae.advice[m[2]:m[3]]
					if flags[after] == nil {
						t.Errorf("%s, %v: advice %q names the command %q", cmd, e, ae.advice, after)
					}
					continue
				}
				owner = cmd
				if after != "" && !strings.Contains(ae.advice[:m[0]][strings.LastIndex(ae.advice[:m[0]], "mandelscope "+after):], ",") {
					owner = after
				} else {
					after = ""
				}
				name := strings.TrimPrefix(s, "--")
				if fl := flags[owner]; fl != nil && !fl[name] {
					t.Errorf("%s, %v (kind %v): advice %q names --%s, which %s lacks", cmd, e, kindOf(e), ae.advice, name, owner)
				}
			}
		}
	}
}

func kindOf(e error) error {
	var ee *export.Error
	if errors.As(e, &ee) {
		return ee.Kind
	}
	return nil
}
