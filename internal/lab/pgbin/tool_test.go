package pgbin

import (
	"strings"
	"testing"
)

func TestFindTool(t *testing.T) {
	root := t.TempDir()
	fakeBin(t, root+"/full/bin", "16.14", "postgres", "initdb", "pg_ctl", "pgbench")
	fakeBin(t, root+"/npm/bin", "18.4")
	fakeBin(t, root+"/distro/15/bin", "15.18", "pgbench", "psql")
	fakeBin(t, root+"/distro/13/bin", "13.23", "pgbench", "psql", "oid2name")
	fakeBin(t, root+"/path", "0", "vacuumlo")
	lookPath := func(name string) (string, error) {
		if name == "vacuumlo" {
			return root + "/path/vacuumlo", nil
		}
		return noPath(name)
	}

	tests := []struct {
		name, tool, bin, want string
		wantErr               []string
	}{
		{name: "A tool in the bin directory itself comes first", tool: "pgbench", bin: root + "/full/bin", want: root + "/full/bin/pgbench"},
		{name: "A tool the npm build lacks comes from the newest distro directory", tool: "pgbench", bin: root + "/npm/bin", want: root + "/distro/15/bin/pgbench"},
		{name: "Older distro directories are searched after newer ones", tool: "oid2name", bin: root + "/npm/bin", want: root + "/distro/13/bin/oid2name"},
		{name: "PATH is the last resort", tool: "vacuumlo", bin: root + "/npm/bin", want: root + "/path/vacuumlo"},
		{name: "A tool found nowhere is an error saying how to install it", tool: "pg_dump", bin: root + "/npm/bin",
			wantErr: []string{"pg_dump not found", root + "/npm/bin", "apt-get install postgresql"}},
		{name: "A path instead of a name is refused", tool: "../pgbench", bin: root + "/npm/bin", wantErr: []string{"not a program name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findTool(tt.tool, tt.bin, root+"/distro", lookPath)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("findTool(%q) = %q, want an error", tt.tool, got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("findTool(%q) = %q, %v; want %q", tt.tool, got, err, tt.want)
			}
		})
	}
}
