// View > Load Colour Shader... and No Colour Shader: a colouring shader in Kalles Fraktaler's
// form (colour.Coloring.Shader), compiled by the OpenGL renderer before the view takes it.

package app

import (
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"mandelscope/colour"
	"mandelscope/internal/userfile"
)

// installColourShader adds the colour shader items to the View menu.
func installColourShader(w *Window) {
	w.AddMenuItem("View", fyne.NewMenuItemSeparator())
	w.AddMenuItem("View", fyne.NewMenuItem("Load Colour Shader...", w.showLoadColourShader))
	w.AddMenuItem("View", fyne.NewMenuItem("No Colour Shader", func() {
		w.colorChanged(false, func(c *colour.Coloring) { c.Shader = "" })
	}))
}

// showLoadColourShader asks for a GLSL file and loads it (loadColourShader).
func (w *Window) showLoadColourShader() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			w.ShowError(err)
			return
		}
		path := r.URI().Path()
		r.Close()
		w.ShowError(w.loadColourShader(path))
	}, w.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".glsl", ".frag", ".txt"}))
	w.showDialog(d)
}

// loadColourShader reads the shader file at path, compiles it with the window's OpenGL
// renderer and, when it compiles, colours the view with it (a colour change, Ctrl+Z takes it
// back). A file that is not a shader, a shader that does not compile (the compiler's message
// and line) and a window without OpenGL are refused, the view unchanged.
func (w *Window) loadColourShader(path string) error {
	b, err := userfile.ReadFile(path, colour.MaxShaderBytes)
	if err != nil {
		return err
	}
	text, err := colour.ReadShaderText(path, b)
	if err != nil {
		return err
	}
	p, ok := w.rend.get().(colour.ShaderPainter)
	if !ok {
		return fmt.Errorf("%w: the window draws with the CPU renderer", colour.ErrNoShaderPainter)
	}
	if err := p.CompileColourShader(filepath.Base(path), text); err != nil {
		return err
	}
	w.colorChanged(false, func(c *colour.Coloring) { c.Shader = text })
	w.setMessage("colour shader " + filepath.Base(path))
	return nil
}
