package bookmarks

import (
	"strings"
	"testing"

	"mandelscope/fractal"
)

// TestBookmarkKeepsShader: a bookmark's colouring shader is written as its text ("shader",
// format version 7, only when a bookmark has one) and read back exactly; a hostile one is
// refused naming the bookmark.
func TestBookmarkKeepsShader(t *testing.T) {
	s := &Store{}
	l := fractal.Home()
	const sh = "// rings\nvec3 colour() {\n\treturn vec3(fract(getNF()));\n}\n"
	l.Color.Shader = sh
	if err := s.Add(Bookmark{Name: "ringed", Location: l}); err != nil {
		t.Fatal(err)
	}
	text, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"version": 7`) || !strings.Contains(string(text), `"shader": "// rings\n`) {
		t.Fatalf("written as:\n%s", text)
	}
	back, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := back.Get("ringed")
	if b.Location.Color.Shader != sh {
		t.Errorf("read back %q", b.Location.Color.Shader)
	}
	bad := strings.Replace(string(text), `// rings`, `// \u00e9t\u00e9`, 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "ringed") || !strings.Contains(err.Error(), "not GLSL text") {
		t.Errorf("a shader with non-ASCII text: %v", err)
	}
}
