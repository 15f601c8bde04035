package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// Names other database users chose: quotes, semicolons, command
// substitutions, backticks, spaces, capitals, key words, non-ASCII, ESC
// sequences (a screen clear, an OSC 52 clipboard write) and U+202E. Each is
// at most 63 bytes, PostgreSQL's limit.
const (
	hSchema  = "Sch\"ema $(touch /tmp/lagscope-pwned) `id` é"
	hOrders  = "Orders"                   // a decoy public.orders exists: a case fold hits it
	hWindow  = "window"                   // a reserved key word
	hInj     = "x'; DROP TABLE users; --" // a decoy public.users exists
	hEsc     = "esc\x1b[2J\u202Eevil"
	hColPos  = "position"
	hColUser = "User"
	hTrigger = "trg'; DROP TABLE users; --\x1b]52;c;aGk=\x07"
	hPub     = "pub \"x'; DROP TABLE users; --"
	hSub     = "x ENABLE; DROP TABLE users; --"
	hSlot    = "hostile_slot"
	hMissing = "gone`whoami`$(id)\u202E" // published, missing on the subscriber
	pwned    = "/tmp/lagscope-pwned"
)

var hIndexes = []string{"ix; DROP TABLE users; --", "Ix Two", "ix`id`\u202E"}

// TestIntegrationHostileNames builds, on one lab pair, the states that make
// check and diagnose print their fixes - a disabled subscription, an apply
// error, a row filter on a column outside the identity, REPLICA IDENTITY FULL
// without a usable index, a missing column, extra indexes, a trigger that
// fires for replicated rows - every object named by someone hostile. Every
// SQL statement printed (read from the JSON, found verbatim on a line of its
// own in the text, Markdown and HTML renderings) is run by the server it names
// and must work; every shell command must parse as one command with literal
// arguments; no text output holds a control rune; afterwards the decoys are
// untouched and the findings whose fixes ran are gone.
func TestIntegrationHostileNames(t *testing.T) {
	bin := buildLagscope(t)
	dir := labtest.Servers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	p, err := lab.NewPair(ctx, lab.PairOptions{Bin: dir.Bin, Purpose: "hostile names", PubCPUs: []int{0}, SubCPUs: []int{1},
		Rows: 100, Layout: lab.Flat, Streaming: "on",
		SubSettings: map[string]string{"wal_retrieve_retry_interval": "'500ms'"}})
	if err != nil {
		t.Fatalf("lab pair: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	os.Remove(pwned)
	pubDSN, subDSN := p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database)
	h := &hostile{t: t, ctx: ctx, major: dir.Version.Major, pubDSN: pubDSN, subDSN: subDSN,
		pub: connect(t, ctx, pubDSN), sub: connect(t, ctx, subDSN)}
	h.build()

	args := []string{"--publisher", pubDSN, "--subscriber", subDSN}
	checkJSON := h.lagscope(bin, 1, append([]string{"check", "--json"}, args...)...)
	checkStmts := statements(t, checkJSON)
	h.renderings("check", checkJSON, checkStmts, func(format, file string) []byte {
		return h.lagscope(bin, 1, "check", "--input", file, "--format", format)
	})
	samples := filepath.Join(t.TempDir(), "samples.json")
	diagJSON := h.lagscope(bin, 1, append([]string{"diagnose", "--json", "--duration", "3s", "--subscription", hSub,
		"--save-samples", samples}, args...)...)
	diagStmts := statements(t, diagJSON)
	h.renderings("diagnose", diagJSON, diagStmts, func(format, file string) []byte {
		return h.lagscope(bin, -1, "report", "--input", file, "--format", format)
	})
	if !containsText(diagStmts, sqlText("ALTER SUBSCRIPTION %I ENABLE;", hSub)) {
		t.Errorf("diagnose printed no ENABLE for the disabled subscription; its statements: %v", texts(diagStmts))
	}

	t.Log("running every printed statement on the server it names, each once, alternatives last")
	var alternatives []stmt
	ran := map[string]bool{}
	for _, st := range append(diagStmts, checkStmts...) {
		switch {
		case ran[st.On+st.Text]:
		case st.Instead != "":
			alternatives = append(alternatives, st)
		default:
			h.run(st)
		}
		ran[st.On+st.Text] = true
	}
	h.eventually("the hostile subscription enabled and streaming", func() bool {
		var n int
		err := h.sub.QueryRow(ctx, "SELECT count(*) FROM pg_stat_subscription WHERE subname = $1 AND pid IS NOT NULL", hSub).Scan(&n)
		return err == nil && n > 0
	})
	h.decoysIntact()
	var n int
	if err := h.sub.QueryRow(ctx, "SELECT count(*) FROM pg_subscription_rel r JOIN pg_class c ON c.oid = r.srrelid WHERE c.relname = $1", hMissing).Scan(&n); err != nil || n != 1 {
		t.Errorf("after the printed dump and refresh, the missing table is subscribed %d times (%v)", n, err)
	}
	// The walsenders take a moment to become active: until they do, the
	// slots are inactive and inactive-slot prints ENABLE again.
	var after []stmt
	h.eventually("check to print no ENABLE once every ENABLE ran", func() bool {
		after = statements(t, h.lagscope(bin, -1, append([]string{"check", "--json"}, args...)...))
		for _, st := range after {
			if strings.Contains(st.Text, "ENABLE;") && strings.Contains(st.Text, "SUBSCRIPTION") {
				return false
			}
		}
		return true
	})

	if h.major >= 15 {
		t.Log("an apply error on the hostile subscription")
		h.exec(h.sub, sqlText("INSERT INTO %I VALUES (1, 0, 'x', 'local')", quote.Name{Schema: hSchema, Name: hOrders}))
		h.exec(h.pub, sqlText("INSERT INTO %I VALUES (1, 0, 'x', 'remote')", quote.Name{Schema: hSchema, Name: hOrders}))
		var errs []stmt
		h.eventually("the apply error counted", func() bool {
			var n int64
			err := h.sub.QueryRow(ctx, "SELECT apply_error_count FROM pg_stat_subscription_stats WHERE subname = $1", hSub).Scan(&n)
			return err == nil && n > 0
		})
		errs = statements(t, h.lagscope(bin, -1, append([]string{"check", "--json"}, args...)...))
		h.exec(h.sub, sqlText("DELETE FROM %I WHERE id = 1", quote.Name{Schema: hSchema, Name: hOrders}))
		var reset bool
		for _, st := range errs {
			if strings.Contains(st.Text, "pg_stat_reset_subscription_stats") {
				reset = true
				h.run(st)
			}
		}
		if !reset {
			t.Fatalf("check printed no counter reset for the apply error: %v", texts(errs))
		}
		var n int64
		if err := h.sub.QueryRow(ctx, "SELECT apply_error_count FROM pg_stat_subscription_stats WHERE subname = $1", hSub).Scan(&n); err != nil || n != 0 {
			t.Errorf("the printed reset left apply_error_count at %d (%v)", n, err)
		}
	}
	h.decoysIntact()

	t.Log("the alternatives the fixes offered, run last: each must do what it says, to its object only")
	for _, st := range alternatives {
		h.run(st)
	}
	h.decoysIntact()
}

// hostile is the test's pair and its sessions as the lab's superuser.
type hostile struct {
	t              *testing.T
	ctx            context.Context
	major          int
	pubDSN, subDSN string
	pub, sub       *pgx.Conn
}

// missingDDL creates the table the subscriber lacks.
func missingDDL() string {
	return sqlText("CREATE TABLE %I (id int PRIMARY KEY, note text)", quote.Name{Schema: hSchema, Name: hMissing})
}

// build creates the hostile objects and the states around them.
func (h *hostile) build() {
	in := func(name string) quote.Name { return quote.Name{Schema: hSchema, Name: name} }
	orders, window, inj, esc := in(hOrders), in(hWindow), in(hInj), in(hEsc)
	for _, c := range []*pgx.Conn{h.pub, h.sub} {
		h.exec(c, "CREATE TABLE public.users (id int PRIMARY KEY)", "INSERT INTO public.users VALUES (1)",
			"CREATE TABLE public.orders (id int PRIMARY KEY)",
			sqlText("CREATE SCHEMA %I", hSchema),
			sqlText("CREATE TABLE %I (id int PRIMARY KEY, %I int, note text, %I text)", window, hColPos, "q\"uote"),
			sqlText("CREATE TABLE %I (id int PRIMARY KEY, %I int, note text)", inj, hColPos),
			sqlText("CREATE TABLE %I (id int PRIMARY KEY, %I int, note text)", esc, hColPos))
	}
	h.exec(h.pub, sqlText("CREATE TABLE %I (id int PRIMARY KEY, %I int, note text, %I text)", orders, hColPos, hColUser))
	h.exec(h.sub, sqlText("CREATE TABLE %I (id int PRIMARY KEY, %I int, note text)", orders, hColPos))
	h.exec(h.pub, sqlText("ALTER TABLE %I REPLICA IDENTITY FULL", window))
	for _, ix := range hIndexes {
		h.exec(h.sub, sqlText("CREATE INDEX %I ON %I (%I, note)", ix, orders, hColPos))
	}
	h.exec(h.sub, "CREATE FUNCTION public.touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
		sqlText("CREATE TRIGGER %I BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION public.touch()", hTrigger, esc),
		sqlText("ALTER TABLE %I ENABLE ALWAYS TRIGGER %I", esc, hTrigger))
	// Three members, one filtered on a column outside its identity.
	h.exec(h.pub, sqlText("CREATE PUBLICATION %I FOR TABLE %I, %I, %I WHERE (%I > 0), %I", hPub, orders, window, inj, hColPos, esc))
	var conninfo string
	if err := h.sub.QueryRow(h.ctx, "SELECT subconninfo FROM pg_subscription LIMIT 1").Scan(&conninfo); err != nil {
		h.t.Fatalf("the lab subscription's conninfo: %v", err)
	}
	h.exec(h.sub, sqlText("CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION %I WITH (copy_data = false, enabled = false, slot_name = %L)",
		hSub, conninfo, hPub, hSlot))
	h.exec(h.pub, missingDDL(), sqlText("ALTER PUBLICATION %I ADD TABLE %I", hPub, in(hMissing)))
}

// decoysIntact fails the test when an injected statement ran.
func (h *hostile) decoysIntact() {
	h.t.Helper()
	for _, c := range []*pgx.Conn{h.pub, h.sub} {
		var n int
		if err := c.QueryRow(h.ctx, "SELECT count(*) FROM public.users").Scan(&n); err != nil || n != 1 {
			h.t.Errorf("the decoy table public.users: %d rows, %v", n, err)
		}
		if err := c.QueryRow(h.ctx, "SELECT count(*) FROM pg_attribute WHERE attrelid = 'public.orders'::regclass AND attnum > 0").Scan(&n); err != nil || n != 1 {
			h.t.Errorf("the decoy table public.orders has %d columns (%v): a fix reached it", n, err)
		}
	}
	if _, err := os.Stat(pwned); !errors.Is(err, os.ErrNotExist) {
		h.t.Errorf("%s exists: a printed command ran a substitution", pwned)
	}
}

// renderings renders the JSON report in text, markdown and HTML through
// render, and checks each: every statement is on a line of its own, and no
// rune a terminal acts on is left.
func (h *hostile) renderings(cmd string, js []byte, sts []stmt, render func(format, file string) []byte) {
	h.t.Helper()
	file := filepath.Join(h.t.TempDir(), cmd+".json")
	if err := os.WriteFile(file, js, 0o600); err != nil {
		h.t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		out := render(format, file)
		lines := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		for _, st := range sts {
			want := st.Text
			if st.Instead != "" { // printed commented out
				want = map[string]string{"sql": "-- ", "shell": "# "}[st.Kind] + want
			}
			if format == "html" {
				want = template.HTMLEscapeString(want)
			}
			if !lines[want] && !(format == "html" && bytes.Contains(out, []byte(want))) {
				h.t.Errorf("%s --format %s: the statement %q is not on a line of its own", cmd, format, st.Text)
			}
		}
		for i, l := range strings.Split(string(out), "\n") {
			if format == "html" {
				l = strings.ReplaceAll(l, "\t", " ") // the SVG charts' indentation
			}
			if !quote.Printable(l) {
				h.t.Errorf("%s --format %s line %d holds an unprintable rune: %q", cmd, format, i+1, l)
			}
		}
	}
}

// stmt is one printed statement, as the JSON reports carry it.
type stmt struct {
	Kind     string `json:"kind"`
	On       string `json:"on"`
	Text     string `json:"text"`
	Instead  string `json:"instead"`
	Withheld string `json:"withheld"`
}

// statements finds every statement in a JSON report: any object with a kind
// of sql or shell.
func statements(t *testing.T, js []byte) []stmt {
	t.Helper()
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatalf("report JSON: %v", err)
	}
	var out []stmt
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if k, _ := x["kind"].(string); k == "sql" || k == "shell" {
				b, _ := json.Marshal(x)
				var s stmt
				_ = json.Unmarshal(b, &s)
				if s.Withheld != "" {
					t.Errorf("a statement was withheld: %s", s.Withheld)
				}
				out = append(out, s)
				return
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// run runs one printed statement: SQL on the server it names (a statement
// that would end a backend or drop a slot only prepared: the server parses
// and resolves it), a shell command through bash's parser as one command of
// literal words (and pg_dump for real where its version matches).
func (h *hostile) run(st stmt) {
	h.t.Helper()
	switch st.Kind {
	case "shell":
		words := shellWords(h.t, st.Text)
		if len(words) < 2 || words[0] != "pg_dump" {
			h.t.Errorf("shell command %q: want a pg_dump of literal words, bash read %q", st.Text, words)
			return
		}
		if h.major != 15 { // Debian's pg_dump 15 dumps no newer server: the table made by hand
			h.exec(h.sub, missingDDL())
			return
		}
		dump, err := exec.CommandContext(h.ctx, "pg_dump", append(words[1:], "--dbname="+h.pubDSN)...).Output()
		if err != nil || !bytes.Contains(dump, []byte("CREATE TABLE")) {
			h.t.Errorf("%s: %v\n%s", st.Text, err, dump)
			return
		}
		load := exec.CommandContext(h.ctx, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", h.subDSN)
		load.Stdin = bytes.NewReader(dump)
		if out, err := load.CombinedOutput(); err != nil {
			h.t.Errorf("loading the dump of %s into the subscriber: %v\n%s", st.Text, err, out)
		}
		h.t.Logf("ran: %s", st.Text)
		return
	case "sql":
	default:
		h.t.Errorf("statement of kind %q: %q", st.Kind, st.Text)
		return
	}
	var c *pgx.Conn
	switch st.On {
	case "publisher":
		c = h.pub
	case "subscriber":
		c = h.sub
	default:
		h.t.Errorf("statement %q names no server to run on (on=%q)", st.Text, st.On)
		return
	}
	text := st.Text
	if strings.Contains(text, "pg_terminate_backend") || strings.Contains(text, "pg_drop_replication_slot") {
		text = "PREPARE lagscope_check AS " + strings.TrimSuffix(text, ";")
		defer c.Exec(h.ctx, "DEALLOCATE lagscope_check", pgx.QueryExecModeSimpleProtocol)
	}
	if _, err := c.Exec(h.ctx, text, pgx.QueryExecModeSimpleProtocol); err != nil {
		h.t.Errorf("on the %s: %s: %v", st.On, st.Text, err)
	} else {
		h.t.Logf("ran on the %s: %s", st.On, st.Text)
	}
}

// shellWords returns the words bash reads from a command line, without
// running it.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("bash", "-c", "f() { for a; do printf '%s\\0' \"$a\"; done; }; f "+line).Output()
	if err != nil {
		t.Errorf("bash could not read %q: %v", line, err)
		return nil
	}
	w := strings.Split(string(out), "\x00")
	return w[:len(w)-1]
}

// lagscope runs the binary and returns its stdout; want is the exit code it
// must end with (-1: 0 or 1).
func (h *hostile) lagscope(bin string, want int, args ...string) []byte {
	h.t.Helper()
	cmd := exec.CommandContext(h.ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("lagscope %s: %v", args[0], err)
	}
	if want >= 0 && code != want || want < 0 && code > 1 {
		h.t.Fatalf("lagscope %s exited %d (want %d): %s", strings.Join(args[:2], " "), code, want, stderr.String())
	}
	if !quote.Printable(strings.ReplaceAll(stderr.String(), "\n", "")) {
		h.t.Errorf("lagscope %s wrote an unprintable rune to stderr: %q", args[0], stderr.String())
	}
	return out
}

func (h *hostile) exec(c *pgx.Conn, stmts ...string) {
	h.t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(h.ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			h.t.Fatalf("%s: %v", s, err)
		}
	}
}

func (h *hostile) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func connect(t *testing.T, ctx context.Context, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// sqlText is the test's own DDL, built by the quoting layer it checks
// elsewhere against the server (a name it could not print fails at once).
func sqlText(template string, args ...any) string {
	st := quote.SQL(template, args...)
	if st.Withheld != "" {
		panic("test statement " + template + ": " + st.Withheld)
	}
	return st.Text
}

func containsText(sts []stmt, text string) bool {
	for _, s := range sts {
		if s.Text == text {
			return true
		}
	}
	return false
}

func texts(sts []stmt) []string {
	out := make([]string, len(sts))
	for i, s := range sts {
		out[i] = s.On + ": " + s.Text
	}
	return out
}
