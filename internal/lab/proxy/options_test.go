package proxy

import (
	"strings"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		wantErr string // "" = valid
	}{
		{"a loopback listen and upstream are valid", Options{Listen: "127.0.0.1:6432", Upstream: "127.0.0.1:5432"}, ""},
		{"listening on all interfaces and any port is valid with AllowRemote", Options{Listen: ":0", Upstream: "db.example:5432", Rate: 8_000_000, AllowRemote: true}, ""},
		{"listening on all interfaces without AllowRemote is refused", Options{Listen: ":6432", Upstream: "db.example:5432"}, "--allow-remote"},
		{"a non-loopback address without AllowRemote is refused", Options{Listen: "10.0.0.5:6432", Upstream: "db.example:5432"}, "reachable from other machines"},
		{"a host name other than localhost without AllowRemote is refused", Options{Listen: "proxy.example:6432", Upstream: "db.example:5432"}, "--allow-remote"},
		{"localhost is loopback", Options{Listen: "localhost:6432", Upstream: "db.example:5432"}, ""},
		{"IPv6 loopback is loopback", Options{Listen: "[::1]:6432", Upstream: "db.example:5432"}, ""},
		{"another 127/8 address is loopback", Options{Listen: "127.0.0.2:6432", Upstream: "db.example:5432"}, ""},
		{"a unix socket is local", Options{Listen: "/tmp/link/.s.PGSQL.5432", Upstream: "/run/postgresql/.s.PGSQL.5432"}, ""},
		{"a missing listen address is rejected", Options{Upstream: "127.0.0.1:5432"}, "listen address is empty"},
		{"a missing upstream is rejected", Options{Listen: ":6432"}, "upstream address is empty"},
		{"an address without a port is rejected", Options{Listen: ":6432", Upstream: "127.0.0.1"}, "missing port"},
		{"an upstream without a host is rejected", Options{Listen: ":6432", Upstream: ":5432"}, "has no host"},
		{"an upstream on port 0 is rejected", Options{Listen: ":6432", Upstream: "h:0"}, "not a port number"},
		{"a named port is rejected", Options{Listen: ":6432", Upstream: "h:postgres"}, "not a port number"},
		{"relaying to itself is rejected", Options{Listen: "127.0.0.1:5432", Upstream: "127.0.0.1:5432"}, "relay to itself"},
		{"a negative rate is rejected", Options{Listen: ":6432", Upstream: "h:5432", Rate: -1}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Validate() = nil, want an error mentioning %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Validate() = %q, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}
