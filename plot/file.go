package plot

import (
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"io"
	"path/filepath"
	"strings"
)

// WriteFile renders f to path as SVG or PNG, chosen by the extension, and
// writes it atomically (temporary file in the same directory, then rename).
func WriteFile(path string, f Figure) error {
	var render func(io.Writer) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		render = f.WriteSVG
	case ".png":
		render = f.WritePNG
	default:
		return fmt.Errorf("%s: unknown image format %q, expected .svg or .png", path, filepath.Ext(path))
	}
	return atomicfile.WriteBuffered(path, render)
}
