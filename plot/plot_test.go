package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestReadLog(t *testing.T) {
	in := `{"step": 100, "loss": 0.5, "lr": 1e-4, "mode": "train", "ok": true}

{"time": 3.5}
{"step": 200, "loss": 0.25, "valid": {"1p": 0.3, "deep": {"x": 1}, "list": [1, [2, {"a": 3}]]}, "n": null}
{"step": 300, "loss": 0.125, "extra": 7}
{"step": 400, "loss": `
	l, err := ReadLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Series{
		{"loss", []float64{100, 200, 300}, []float64{0.5, 0.25, 0.125}},
		{"lr", []float64{100}, []float64{1e-4}},
		{"valid.1p", []float64{200}, []float64{0.3}},
		{"valid.deep.x", []float64{200}, []float64{1}},
		{"extra", []float64{300}, []float64{7}},
	}
	var got []Series
	for _, s := range l.Series {
		got = append(got, *s)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("series\n%+v\nwant\n%+v", got, want)
	}
	if l.Lines != 3 {
		t.Errorf("Lines = %d, want 3", l.Lines)
	}
	if l.Get("loss") == nil || l.Get("nope") != nil {
		t.Error("Get")
	}
}

func TestReadLogErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bad middle line", "{\"step\": 1}\n{\"step\": 2,,}\n{\"step\": 3}\n", "line 2: "},
		{"not an object", "{\"step\": 1}\n[1, 2]\n", "line 2: expected a JSON object"},
		{"two values", "{\"step\": 1} {\"step\": 2}\n", "line 1: more than one JSON value"},
		{"trailing garbage", "{\"step\": 1} x\n", "line 1: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLog(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	_, err := ReadLogFile(filepath.Join(t.TempDir(), "missing.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(path, []byte("{\n"), 0o644)
	if _, err := ReadLogFile(path); err == nil || !strings.Contains(err.Error(), path+": line 1: ") {
		t.Errorf("error %v does not name file and line", err)
	}
}

func TestCurvesSelection(t *testing.T) {
	l, err := ReadLog(strings.NewReader(`{"step": 1, "loss": 1, "neg_loss": 2, "lr": 3, "time": 4}
{"step": 2, "valid": {"pni": 0.1, "up": 0.2, "1p": 0.3, "other": 0.4, "2in": {"mrr": 0.5, "hits1": 0.6}}, "valid_mrr": 0.7, "test_mrr": 0.8}
`))
	if err != nil {
		t.Fatal(err)
	}
	f := Curves(l, "run")
	names := func(p Panel) []string {
		var n []string
		for _, s := range p.Series {
			n = append(n, s.Name)
		}
		return n
	}
	if got, want := names(f.Panels[0]), []string{"loss", "neg_loss"}; !reflect.DeepEqual(got, want) {
		t.Errorf("loss panel %v, want %v", got, want)
	}
	// Summaries first, then paper order (1p, up, 2in, pni), then the rest.
	want := []string{"valid_mrr", "test_mrr", "valid.1p", "valid.up", "valid.2in.mrr", "valid.pni", "valid.other"}
	if got := names(f.Panels[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("validation panel %v, want %v", got, want)
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   []float64
		step   float64
	}{
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 0.2},
		{0.13, 0.47, 6, []float64{0.1, 0.2, 0.3, 0.4, 0.5}, 0.1}, // 0.34/6 ≈ 0.057 rounds up to 0.1
		{0.13, 0.47, 10, []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5}, 0.05},
		{100, 15000, 8, []float64{0, 2000, 4000, 6000, 8000, 10000, 12000, 14000, 16000}, 2000},
		{-3, 3, 6, []float64{-3, -2, -1, 0, 1, 2, 3}, 1},
	}
	for _, tc := range tests {
		got, step := ticks(tc.lo, tc.hi, tc.n)
		if step != tc.step || len(got) != len(tc.want) {
			t.Errorf("ticks(%v, %v) = %v step %v, want %v step %v", tc.lo, tc.hi, got, step, tc.want, tc.step)
			continue
		}
		for i := range got {
			if d := got[i] - tc.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("ticks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
				break
			}
		}
	}
	fmts := []struct {
		t, step float64
		compact bool
		want    string
	}{
		{0.15, 0.05, false, "0.15"},
		{0.2, 0.05, false, "0.20"},
		{1.5, 0.5, false, "1.5"},
		{2000, 2000, true, "2k"},
		{0, 2000, true, "0"},
		{1500000, 500000, true, "1.5M"},
		{2500, 500, true, "2500"},
		{12, 2, false, "12"},
	}
	for _, tc := range fmts {
		if got := formatTick(tc.t, tc.step, tc.compact); got != tc.want {
			t.Errorf("formatTick(%v, %v) = %q, want %q", tc.t, tc.step, got, tc.want)
		}
	}
}

func TestDecimateAndSmooth(t *testing.T) {
	pts := []point{{0.1, 5}, {0.2, 1}, {0.3, 9}, {0.4, 4}, {0.9, 3}, {1.5, 2}}
	want := []point{{0.1, 5}, {0.2, 1}, {0.3, 9}, {0.9, 3}, {1.5, 2}}
	if got := decimate(pts); !reflect.DeepEqual(got, want) {
		t.Errorf("decimate = %v, want %v", got, want)
	}
	sm := smooth([]point{{0, 0}, {1, 3}, {2, 6}, {3, 0}}, 1)
	if want := []point{{0, 1.5}, {1, 3}, {2, 3}, {3, 3}}; !reflect.DeepEqual(sm, want) {
		t.Errorf("smooth = %v, want %v", sm, want)
	}
}

func goldenFigure(t *testing.T) Figure {
	l, err := ReadLogFile(filepath.Join("testdata", "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return Curves(l, "run1")
}

func TestGoldenSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenFigure(t).WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "curves.golden.svg")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("SVG differs from %s (run go test -update after checking the picture)", golden)
	}
}

func TestSVGIsXML(t *testing.T) {
	figs := map[string]Figure{
		"golden": goldenFigure(t),
		"empty":  Curves(&Log{}, `odd <name> & "quotes"`),
	}
	for name, f := range figs {
		var buf bytes.Buffer
		if err := f.WriteSVG(&buf); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&buf)
		var elems, texts int
		var root string
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				if root == "" {
					root = se.Name.Space + " " + se.Name.Local
				}
				elems++
				if se.Name.Local == "text" {
					texts++
				}
			}
		}
		if root != "http://www.w3.org/2000/svg svg" || elems < 5 || texts < 3 {
			t.Errorf("%s: root %q, %d elements, %d texts", name, root, elems, texts)
		}
	}
}

func TestPNG(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenFigure(t).WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 900 || b.Dy() != titleBand+2*panelHeight {
		t.Errorf("size %v", b)
	}
	// The loss curve starts near the top left of the first panel: some
	// pixel there has the first palette colour.
	found := false
	for y := titleBand + marginTop; y < titleBand+panelHeight/2 && !found; y++ {
		for x := marginLeft; x < marginLeft+20; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 == 31 && g>>8 == 119 && b>>8 == 180 {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("no loss curve pixels at the start of the first panel")
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	f := goldenFigure(t)
	for _, name := range []string{"a.svg", "b.PNG"} {
		if err := WriteFile(filepath.Join(dir, name), f); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(filepath.Join(dir, "c.pdf"), f); err == nil || !strings.Contains(err.Error(), "expected .svg or .png") {
		t.Errorf("pdf: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files, want 2 (no temporaries)", len(entries))
	}
}

func FuzzReadLog(f *testing.F) {
	// Small seeds: the fuzzer minimises every new input it finds
	// interesting, and long ones made it stall for seconds at a time.
	seed, _ := os.ReadFile(filepath.Join("testdata", "log.jsonl"))
	lines := bytes.SplitAfter(seed, []byte("\n"))
	f.Add(bytes.Join(lines[:min(len(lines), 2)], nil))
	f.Add([]byte(`{"step": 1, "a": {"b": [1, {"c": 2}]}}` + "\n"))
	f.Add(lines[min(len(lines)-1, 30)]) // a validation record
	f.Add([]byte("{\"step\": 1e400}\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ReadLog(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, s := range l.Series {
			if len(s.X) != len(s.Y) {
				t.Fatalf("series %s: %d x, %d y", s.Name, len(s.X), len(s.Y))
			}
		}
		// Whatever parses must render.
		if err := Curves(l, "fuzz").WriteSVG(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

func TestFont(t *testing.T) {
	f := font()
	const want = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,-_()/%+=:@?!'\"[]<>*&#"
	for _, ch := range want {
		g, ok := f[ch]
		if !ok {
			t.Errorf("no glyph for %q", ch)
			continue
		}
		if g == (glyph{}) {
			t.Errorf("glyph %q is blank", ch)
		}
	}
	if len(f) != len(want) {
		t.Errorf("%d glyphs, want %d", len(f), len(want))
	}
	// "1": a stem in the middle column with a flag and a foot.
	if g := f['1']; g != (glyph{0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0}) {
		t.Errorf("glyph 1 = %05b", g)
	}
	// Only descenders use the last row.
	for ch, g := range f {
		if g[glyphH-1] != 0 && !strings.ContainsRune("gjpqy", ch) {
			t.Errorf("glyph %q reaches below the descender line", ch)
		}
	}
}

func TestPNGText(t *testing.T) {
	f := Figure{Title: "TITLE", Panels: []Panel{{Title: "empty"}}}
	var buf bytes.Buffer
	if err := f.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The title is centred on the 24 px baseline at scale 2: 5 glyphs, 58 px.
	var black, left, right = 0, 900, 0
	for y := 0; y < titleBand; y++ {
		for x := 0; x < 900; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r == 0 {
				black++
				left, right = min(left, x), max(right, x)
			}
		}
	}
	if black == 0 || left != 450-29 || right > 450+30 {
		t.Errorf("title ink: %d pixels from x=%d to %d", black, left, right)
	}
}

func TestCompare(t *testing.T) {
	a, err := ReadLog(strings.NewReader(`{"step":1,"loss":2}
{"step":2,"loss":1.5,"valid_mrr":0.1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadLog(strings.NewReader(`{"step":1,"loss":3}
{"step":3,"valid_mrr":0.2}`))
	if err != nil {
		t.Fatal(err)
	}
	f := Compare([]*Log{a, b}, []string{"gammae", "betae"}, "step")
	if len(f.Panels) != 2 || len(f.Panels[0].Series) != 2 || len(f.Panels[1].Series) != 2 {
		t.Fatalf("panels %+v", f.Panels)
	}
	if f.Panels[1].Series[1].Name != "betae" || f.Panels[1].Series[1].Y[0] != 0.2 {
		t.Errorf("validation series of betae: %+v", f.Panels[1].Series[1])
	}
	var svg bytes.Buffer
	if err := f.WriteSVG(&svg); err != nil || !strings.Contains(svg.String(), "betae") {
		t.Errorf("SVG lacks the run names (err %v)", err)
	}
}

// TestAlong: series move from the step to the CPU seconds of the training
// records, interpolated between them; points outside are dropped, the
// axis field itself is gone, and a log without it is an error.
func TestAlong(t *testing.T) {
	l, err := ReadLog(strings.NewReader(`{"step":1,"loss":2,"cpu":10}
{"step":3,"loss":1,"cpu":30}
{"step":2,"valid_mrr":0.1}
{"step":3,"valid_mrr":0.2}
{"step":4,"valid_mrr":0.3}`))
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Along("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if a.Get("cpu") != nil {
		t.Error("the axis is still a series")
	}
	for _, tc := range []struct {
		name string
		x, y []float64
	}{
		{"loss", []float64{10, 30}, []float64{2, 1}},
		{"valid_mrr", []float64{20, 30}, []float64{0.1, 0.2}},
	} {
		s := a.Get(tc.name)
		if s == nil || !slices.Equal(s.X, tc.x) || !slices.Equal(s.Y, tc.y) {
			t.Errorf("%s along cpu: %+v, want x %v y %v", tc.name, s, tc.x, tc.y)
		}
	}
	if _, err := l.Along("time"); err == nil || !strings.Contains(err.Error(), `no "time" field`) {
		t.Errorf("a log without time: %v", err)
	}
}
