package exporter

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"go.yaml.in/yaml/v3"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/pg"
)

// Config is the exporter's pairs file (--config):
//
//	window: 30s            # optional defaults for every pair
//	step: 10s
//	pairs:
//	  - name: orders-eu
//	    publisher: host=db1 dbname=app user=lagscope
//	    subscriber: host=db2 dbname=app user=lagscope
//	    subscriber_password_env: DB2_PASSWORD   # optional
//	    subscription: orders_sub                # optional
//	  - name: orders-eu-replica                 # a physical standby
//	    primary: host=db1 dbname=postgres user=lagscope
//	    standby: host=db1r dbname=postgres user=lagscope
//	    standby_password_env: DB1R_PASSWORD     # optional
//
// A pair is logical (publisher, subscriber) or physical (primary and/or
// standby: the standby alone sees its receiver and replay, the primary
// alone every standby it feeds), never both.
//
// Passwords come from .pgpass, PGPASSWORD, or the variable a
// *_password_env field names, never from the file itself.
type Config struct {
	Window time.Duration `yaml:"window"`
	Step   time.Duration `yaml:"step"`
	// ProbeHz is the wait-event probe rate per server (0: 10 where this
	// host's /proc shows the server's processes, 20 where not).
	ProbeHz float64      `yaml:"probe_hz"`
	Pairs   []PairConfig `yaml:"pairs"`
}

// PairConfig is one publisher/subscriber pair (or a publisher alone), or
// one physical standby's path (a primary and/or a standby).
type PairConfig struct {
	Name                  string        `yaml:"name"`
	Publisher             string        `yaml:"publisher"`
	Subscriber            string        `yaml:"subscriber"`
	PublisherPasswordEnv  string        `yaml:"publisher_password_env"`
	SubscriberPasswordEnv string        `yaml:"subscriber_password_env"`
	Primary               string        `yaml:"primary"`
	Standby               string        `yaml:"standby"`
	PrimaryPasswordEnv    string        `yaml:"primary_password_env"`
	StandbyPasswordEnv    string        `yaml:"standby_password_env"`
	Slot                  string        `yaml:"slot"`
	Subscription          string        `yaml:"subscription"`
	NoProc                bool          `yaml:"no_proc"`
	Window                time.Duration `yaml:"window"`
	Step                  time.Duration `yaml:"step"`
}

// validName is what a pair's name may be: it becomes a label value and
// appears in logs, so it stays short and plain.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$`)

// ReadConfig reads and checks a pairs file.
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read --config: %w", err)
	}
	return ParseConfig(b)
}

// ParseConfig parses a pairs file; unknown fields are errors (a typo must
// not silently drop a setting).
func ParseConfig(b []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("pairs file: %s (see 'lagscope exporter --help' for the format)", oneLine(pg.Redact(err.Error())))
	}
	if len(c.Pairs) == 0 {
		return Config{}, fmt.Errorf("pairs file: no pairs: list at least one under 'pairs:' (name, publisher, subscriber)")
	}
	return c, nil
}

// Monitors turns the file into the monitors' options, checked. getenv
// reads the *_password_env variables (os.Getenv outside tests).
func (c Config) Monitors(getenv func(string) string) ([]monitor.Options, error) {
	out, err := c.monitors(getenv)
	if err != nil {
		// The connection strings hold the passwords from the environment
		// by now: no error shows them.
		return nil, pg.RedactErr(err)
	}
	return out, nil
}

func (c Config) monitors(getenv func(string) string) ([]monitor.Options, error) {
	seen := map[string]bool{}
	var out []monitor.Options
	for i, p := range c.Pairs {
		if !validName.MatchString(p.Name) {
			return nil, fmt.Errorf("pair %d: name %q: use 1-63 letters, digits, '_', '.', ':' or '-'", i+1, p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("pair %s: the name is used twice: every pair needs its own", p.Name)
		}
		seen[p.Name] = true
		pub, err := withPassword(p.Name, "publisher", p.Publisher, p.PublisherPasswordEnv, getenv)
		if err != nil {
			return nil, err
		}
		sub, err := withPassword(p.Name, "subscriber", p.Subscriber, p.SubscriberPasswordEnv, getenv)
		if err != nil {
			return nil, err
		}
		if err := p.checkKind(); err != nil {
			return nil, err
		}
		prim, err := withPassword(p.Name, "primary", p.Primary, p.PrimaryPasswordEnv, getenv)
		if err != nil {
			return nil, err
		}
		stby, err := withPassword(p.Name, "standby", p.Standby, p.StandbyPasswordEnv, getenv)
		if err != nil {
			return nil, err
		}
		o := monitor.Options{Pair: p.Name, Window: first(p.Window, c.Window), Step: first(p.Step, c.Step),
			Diagnose: diagnose.Options{Publisher: pub, Subscriber: sub, Slot: p.Slot, Subscription: p.Subscription,
				Primary: prim, Standby: stby, NoProc: p.NoProc, ProbeHz: c.ProbeHz}}
		if err := o.Validate(); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// checkKind says, in one line, what is wrong with a pair that is neither
// logical nor physical, or both.
func (p PairConfig) checkKind() error {
	logical := p.Publisher != "" || p.Subscriber != "" || p.Slot != "" || p.Subscription != ""
	physical := p.Primary != "" || p.Standby != ""
	switch {
	case logical && physical:
		return fmt.Errorf("pair %s: give publisher/subscriber (a logical pair) or primary/standby (a physical standby), not both: make them two pairs", p.Name)
	case !physical && (p.PrimaryPasswordEnv != "" || p.StandbyPasswordEnv != ""):
		return fmt.Errorf("pair %s: primary_password_env or standby_password_env without primary or standby", p.Name)
	case physical && (p.PublisherPasswordEnv != "" || p.SubscriberPasswordEnv != ""):
		return fmt.Errorf("pair %s: publisher_password_env or subscriber_password_env on a physical pair: use primary_password_env and standby_password_env", p.Name)
	}
	return nil
}

// withPassword checks that dsn holds no password and adds the one from the
// environment variable env names, if any.
func withPassword(pair, side, dsn, env string, getenv func(string) string) (string, error) {
	if dsn == "" {
		return "", nil
	}
	pg.Remember(dsn)
	if _, err := pgx.ParseConfig(dsn); err != nil {
		return "", fmt.Errorf("pair %s: %s connection string does not parse: use 'host=... dbname=... user=...' or postgres://host/db", pair, side)
	}
	if hasPassword(dsn) {
		return "", fmt.Errorf("pair %s: the %s connection string holds a password or sslpassword: put a password in ~/.pgpass or in a variable named by %s_password_env, a key's passphrase in PGSSLPASSWORD", pair, side, side)
	}
	if env == "" {
		return dsn, nil
	}
	pw := getenv(env)
	pg.Remember("password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'")
	if pw == "" {
		return "", fmt.Errorf("pair %s: %s_password_env names %s, which is not set", pair, side, env)
	}
	if strings.Contains(dsn, "://") {
		return "", fmt.Errorf("pair %s: %s_password_env needs a keyword/value connection string ('host=... dbname=...'), not a URI", pair, side)
	}
	return dsn + " password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'", nil
}

// hasPassword says whether dsn itself spells a password or an sslpassword
// (the client key's passphrase, as secret as a password): PGPASSWORD,
// PGSSLPASSWORD and .pgpass are fine, they are not in the file.
func hasPassword(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return true // cannot tell: refuse rather than risk it
		}
		_, set := u.User.Password()
		return set || u.Query().Has("password") || u.Query().Has("sslpassword")
	}
	return kvPassword.MatchString(dsn)
}

// kvPassword finds a password or sslpassword keyword in a keyword/value
// string.
var kvPassword = regexp.MustCompile(`(^|\s)(ssl)?password\s*=`)

func first(d ...time.Duration) time.Duration {
	for _, v := range d {
		if v != 0 {
			return v
		}
	}
	return 0
}

// oneLine joins a multi-line parser error into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "unmarshal errors:", "")), " ")
}
