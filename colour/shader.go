package colour

import (
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"strings"
)

// A colouring shader (Coloring.Shader) is a GLSL file in Kalles Fraktaler's form: it defines
// `vec3 colour()` and reads a pixel's raw data through Kalles Fraktaler's accessors (getN,
// getNF, getT, getDE, getInterior, getGlitch, their neighbour forms, getCoord, ...). Its
// text travels with the location (the text form, PNG metadata, raw files, bookmarks), so that
// a picture made with one is made again the same. It runs on OpenGL only: a ShaderPainter
// (package render's GL) colours samples with it.

// MaxShaderBytes bounds a colouring shader's text.
const MaxShaderBytes = 32 << 10

// ShaderMargin is how far a colouring shader's neighbour offsets reach with the data of the
// pixels beyond them: a picture coloured in pieces (strips, tiles) gives each piece this many
// rows and columns of its neighbours' samples, so that the pieces join as the whole would be
// coloured. Offsets beyond it read the nearest sample held.
const ShaderMargin = 2

// ShaderPicture is what a colouring shader's uniforms say of the picture it colours.
type ShaderPicture struct {
	Width, Height int // the whole picture, in samples (ImageSize)
	Iterations    int
	ZoomLog2      float64
	// Coloring gives the palette (KFP_Palette), the density and the offset (KFP_IterDiv,
	// KFP_ColorOffset).
	Coloring Coloring
}

// ShaderPainter colours samples with a colouring shader: package render's GL.
type ShaderPainter interface {
	// CompileColourShader compiles the shader text (name names it in messages), refusing one
	// that does not compile with the compiler's message and the file's line.
	CompileColourShader(name, text string) error
	// PaintColourShader colours src into dst (dst's top-left pixel receives src.Rect.Min),
	// origin the picture's pixel of src.Rect.Min.
	PaintColourShader(ctx context.Context, pic ShaderPicture, name, text string, src *Data, origin image.Point, dst *image.RGBA) error
}

// ErrNoShaderPainter is the error of a colouring shader where there is no OpenGL to run it.
var ErrNoShaderPainter = fmt.Errorf("a colour shader needs OpenGL, and there is none here (no display?)")

// ValidateShader checks a colouring shader's text: at most MaxShaderBytes, ASCII (GLSL's
// character set: printable characters, tabs and line ends), not blank.
func ValidateShader(text string) error {
	if len(text) > MaxShaderBytes {
		return fmt.Errorf("colour shader of %d bytes is too long (at most %d)", len(text), MaxShaderBytes)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("colour shader is empty")
	}
	line := 1
	for i := 0; i < len(text); i++ {
		b := text[i]
		switch {
		case b == '\n':
			line++
		case b == '\t' || b == '\r' || (b >= 0x20 && b < 0x7f):
		default:
			return fmt.Errorf("colour shader line %d: byte 0x%02x is not GLSL text (printable ASCII)", line, b)
		}
	}
	return nil
}

// ShaderText is a colouring shader's text as one word of the location's text form: base64
// (URL alphabet, no padding).
func ShaderText(text string) string { return base64.RawURLEncoding.EncodeToString([]byte(text)) }

// ParseShaderText reads ShaderText's form back, validated (ValidateShader).
func ParseShaderText(s string) (string, error) {
	if len(s) > base64.RawURLEncoding.EncodedLen(MaxShaderBytes) {
		return "", fmt.Errorf("colour shader of %d bytes is too long (at most %d)", base64.RawURLEncoding.DecodedLen(len(s)), MaxShaderBytes)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("colour shader: not base64 text (%v)", err)
	}
	if err := ValidateShader(string(b)); err != nil {
		return "", err
	}
	return string(b), nil
}

// HasShader reports whether c colours with a colouring shader (Shader).
func (c Coloring) HasShader() bool { return c.Shader != "" }

// ShaderName is the name messages give c's shader: its first line, in quotes, when that is a
// comment, else "" (the text travels without its file's name).
func (c Coloring) ShaderName() string {
	first, _, _ := strings.Cut(strings.TrimSpace(c.Shader), "\n")
	if rest, ok := strings.CutPrefix(strings.TrimSpace(first), "//"); ok && strings.TrimSpace(rest) != "" {
		return `"` + clipName(strings.TrimSpace(rest)) + `"`
	}
	return ""
}

func clipName(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// ReadShaderText checks a colouring shader file's contents (ValidateShader), named path in
// its error.
func ReadShaderText(path string, b []byte) (string, error) {
	if err := ValidateShader(string(b)); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return string(b), nil
}
