package e2e

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gammae/gammae/serve"
	"github.com/gammae/gammae/serve/servetest"
)

// chromium returns the browser to drive, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("GAMMAE_E2E") != "1" {
		t.Skip("browser test: set GAMMAE_E2E=1 (needs chromium) to run")
	}
	path := os.Getenv("GAMMAE_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("browser test: chromium not found at %s (apt-get install -y chromium)", path)
	}
	return path
}

// startServer serves the fake engine on a free loopback port and returns its
// base URL. The server is shut down, and must stop cleanly, when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := serve.New(&servetest.Engine{}, serve.Options{})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server shutdown: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("server did not shut down")
		}
	})
	return "http://" + ln.Addr().String()
}

func shot(t *testing.T, b *browser, name string) {
	dir := os.Getenv("GAMMAE_E2E_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name+".png")
	b.screenshot(p)
	t.Logf("screenshot: %s", p)
}

// row is one line of the answers table as the page shows it.
type row struct {
	Rank     string `json:"rank"`
	Name     string `json:"name"`
	Badge    string `json:"badge"`
	Observed string `json:"observed"`
}

const rowsJS = `Array.from(document.querySelectorAll("#answers tbody tr")).map(tr => ({
	rank: tr.cells[0].textContent,
	name: tr.querySelector(".ent-name") ? tr.querySelector(".ent-name").textContent : tr.cells[1].textContent,
	badge: tr.querySelector(".badge") ? tr.querySelector(".badge").textContent : "",
	observed: tr.dataset.observed}))`

func TestPage(t *testing.T) {
	path := chromium(t)
	base := startServer(t)
	b := startBrowser(t, path)

	b.navigate(base + "/")
	b.waitFor("examples from /v1/info", `document.querySelectorAll("#examples .chip").length >= 3`)

	t.Run("type with autocompletion", func(t *testing.T) {
		defer b.use(t)()
		b.eval(`document.getElementById("q").focus()`, nil)
		b.typeText("borders(fr")
		b.waitFor("suggestions", `!document.getElementById("suggest").hidden && document.querySelector("#suggest li")`)
		var names []string
		b.eval(`Array.from(document.querySelectorAll("#suggest li")).map(li => li.dataset.name)`, &names)
		if !slices.Equal(names, []string{"france", "french"}) {
			t.Fatalf("suggestions for \"fr\" = %v, want [france french]", names)
		}
		shot(t, b, "autocomplete")
		b.press("Enter") // takes the first suggestion
		b.typeText(")")
		var text string
		b.eval(`document.getElementById("q").value`, &text)
		if text != "borders(france)" {
			t.Fatalf("query after completion = %q, want %q", text, "borders(france)")
		}
		b.press("Enter") // runs the query
		b.waitFor("results", `document.body.dataset.state === "done"`)

		var rows []row
		b.eval(rowsJS, &rows)
		if len(rows) != 10 {
			t.Fatalf("table has %d rows, want 10 (k default): %+v", len(rows), rows)
		}
		// France's six neighbours in the toy graph are observed and ranked first.
		want := map[string]bool{"germany": true, "spain": true, "italy": true, "belgium": true, "switzerland": true, "luxembourg": true}
		for i, r := range rows {
			if r.Rank != strconv.Itoa(i+1) {
				t.Errorf("row %d rank = %q", i, r.Rank)
			}
			obs := i < len(want)
			if obs != (r.Observed == "true") || (obs && !want[r.Name]) {
				t.Errorf("row %d = %+v; want observed=%v for the first %d rows, which are France's neighbours", i, r, obs, len(want))
			}
			if wantBadge := map[bool]string{true: "observed", false: "predicted"}[obs]; r.Badge != wantBadge {
				t.Errorf("row %d badge = %q, want %q", i, r.Badge, wantBadge)
			}
		}
		var structure string
		b.eval(`document.getElementById("r-structure").textContent`, &structure)
		if structure != "ep" {
			t.Errorf("structure shown = %q, want ep", structure)
		}
		var estimated string
		b.eval(`document.getElementById("r-estimated").textContent`, &estimated)
		if estimated != "6" {
			t.Errorf("estimated answers shown = %q, want 6", estimated)
		}
		// The query tree: nested nodes, closed; opening the inner one shows
		// its answers with their badges.
		var tree struct {
			Nodes, Nested, Open, Visible int
			First                        string
		}
		treeJS := `({Nodes: document.querySelectorAll("#r-tree li.node").length,
			Nested: document.querySelectorAll("#r-tree li.node li.node li.node").length,
			Open: document.querySelectorAll("#r-tree details[open]").length,
			Visible: Array.from(document.querySelectorAll("#r-tree .node-answers li")).filter(li => li.checkVisibility()).length,
			First: (document.querySelector("#r-tree li.node li.node .node-answers .badge") || {}).textContent || ""})`
		b.eval(treeJS, &tree)
		if tree.Nodes != 3 || tree.Nested != 1 || tree.Open != 0 || tree.Visible != 0 {
			t.Errorf("tree before opening: %+v, want 3 nested nodes, none open", tree)
		}
		var vars string
		b.eval(`Array.from(document.querySelectorAll("#r-vars .node-text")).map(s => s.textContent).join("|")`, &vars)
		if !strings.HasPrefix(vars, "x = ") {
			t.Errorf("variables shown: %q, want x", vars)
		}
		b.click("#r-tree li.node li.node > details > summary")
		b.waitFor("opened node", `document.querySelectorAll("#r-tree details[open]").length === 1`)
		b.eval(treeJS, &tree)
		if tree.Visible != 10 || tree.First != "observed" {
			t.Errorf("tree after opening the inner node: %+v, want its 10 answers shown, the first observed", tree)
		}
		shot(t, b, "results")
	})

	t.Run("completion inside quotes", func(t *testing.T) {
		defer b.use(t)()
		b.eval(`(() => { const q = document.getElementById("q"); q.value = ""; q.focus(); })()`, nil)
		b.typeText(`borders("ger`)
		b.waitFor("suggestions", `!document.getElementById("suggest").hidden && document.querySelector("#suggest li")`)
		b.press("ArrowDown") // germany, german: take the second
		b.press("Tab")
		var text string
		b.eval(`document.getElementById("q").value`, &text)
		if text != "borders(german" {
			t.Fatalf("query after completion = %q, want the quoted prefix replaced: %q", text, "borders(german")
		}
	})

	t.Run("error position", func(t *testing.T) {
		defer b.use(t)()
		b.eval(`(() => { const q = document.getElementById("q"); q.value = ""; q.focus(); })()`, nil)
		b.typeText("borders(fra)")
		b.press("Escape") // close the suggestion list
		b.press("Enter")
		b.waitFor("error", `document.body.dataset.state === "error"`)
		var got struct {
			Status, Message, Mark string
			Start                 int
		}
		b.eval(`({Status: document.getElementById("error-status").textContent,
			Message: document.getElementById("error-message").textContent,
			Mark: document.querySelector("#error-snippet mark").textContent,
			Start: document.getElementById("q").selectionStart})`, &got)
		if got.Status != "400" || got.Mark != "f" || got.Start != 8 {
			t.Errorf("error shown = %+v; want status 400, mark on the \"f\" of fra, cursor at 8", got)
		}
		shot(t, b, "error")
	})

	t.Run("click example", func(t *testing.T) {
		defer b.use(t)()
		b.click("#examples .chip:nth-child(3)")
		b.waitFor("example result", `document.body.dataset.state === "done" && document.getElementById("r-structure").textContent === "2i(ep,ep)"`)
		var rows []row
		b.eval(rowsJS, &rows)
		var obs []string
		for _, r := range rows {
			if r.Observed == "true" {
				obs = append(obs, r.Name)
			}
		}
		slices.Sort(obs)
		if !slices.Equal(obs, []string{"belgium", "luxembourg", "switzerland"}) {
			t.Errorf("observed answers of France ∩ Germany neighbours = %v", obs)
		}
	})

	t.Run("query from URL", func(t *testing.T) {
		defer b.use(t)()
		b.navigate(base + "/?k=3&q=" + url.QueryEscape("speaks(borders(spain))"))
		b.waitFor("result of URL query", `document.body.dataset.state === "done"`)
		var rows []row
		b.eval(rowsJS, &rows)
		if len(rows) != 3 || rows[0].Observed != "true" || rows[1].Observed != "true" {
			t.Errorf("rows = %+v; want 3, the first two observed (French, Portuguese)", rows)
		}
		b.do("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}}, nil)
		shot(t, b, "dark")
	})
}
