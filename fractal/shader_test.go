package fractal

import (
	"strings"
	"testing"
)

// TestLocationTextKeepsShader: a colouring shader travels in the text form as one word and
// comes back exactly; text that is not a shader is refused in a line saying why.
func TestLocationTextKeepsShader(t *testing.T) {
	l := Home()
	l.Color.Shader = "// bands\nvec3 colour()\n{\n\treturn vec3(fract(getNF() * 3.0), 0.5, 0.0);\n}\n"
	s := l.String()
	if strings.Contains(s, "\n") || !strings.Contains(s, " shader=") {
		t.Fatalf("text form %q", s)
	}
	back, err := ParseLocationText(s, Home())
	if err != nil {
		t.Fatal(err)
	}
	if back.Color.Shader != l.Color.Shader || back != l {
		t.Errorf("read back %q", back.Color.Shader)
	}
	for _, c := range []struct{ word, want string }{
		{"shader=@@@", "not base64"},
		{"shader=" + "wqk", "not GLSL text"}, // "\xc2\xa9"
		{"shader=", "empty"},
	} {
		if _, err := ParseLocationText("re=0 im=0 zoom=1 "+c.word, Home()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.word, err, c.want)
		}
	}
}
