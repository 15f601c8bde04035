package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// TemplatesEnv names the environment variable holding the directory where
// Create keeps a template data directory per server installation: the first
// cluster of an installation runs initdb there once, every later one (in
// this process or another) copies it, which takes a tenth of initdb's time.
// Unset (the default) means initdb for every cluster. The test suite sets it
// (scripts/test.sh) and removes the directory at its end; the templates
// belong to the server's account, like any data directory of the lab.
const TemplatesEnv = "LAGSCOPE_LAB_TEMPLATES"

// initdbArgs are initdb's options for every lab cluster after -D: trust on
// the socket, whose directory only the server's account (and root) can
// enter; a password over TCP, where every local user can connect.
var initdbArgs = []string{"-U", Superuser, "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"}

// initdb runs bin's initdb as the lab's account into dataDir (an empty
// directory of that account), from workDir.
func (l *Lab) initdb(ctx context.Context, bin, dataDir, workDir, name string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), append([]string{"-D", dataDir}, initdbArgs...)...)
	cmd.SysProcAttr = l.Owner.sysProcAttr(syscall.SIGKILL)
	cmd.Dir = workDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb for %s: %w: %s", name, err, lastLines(string(out), 3))
	}
	return nil
}

// fromTemplate fills c's empty data directory with a copy of the template
// data directory of o.Bin's installation under root, making the template
// first when there is none.
func (l *Lab) fromTemplate(ctx context.Context, root string, c *Cluster, o Options) error {
	tmpl, err := l.template(ctx, root, o.Bin)
	if err != nil {
		return err
	}
	// cp as the server's account: the copy is that account's, with the
	// template's modes, and root reads nothing the account could plant.
	cp := exec.CommandContext(ctx, "cp", "-a", "--", tmpl+"/.", c.DataDir)
	cp.SysProcAttr = l.Owner.sysProcAttr(syscall.SIGKILL)
	cp.Dir = c.Dir
	if out, err := cp.CombinedOutput(); err != nil {
		return fmt.Errorf("copy the template data directory for %s: %w: %s", o.Name, err, lastLines(string(out), 3))
	}
	return nil
}

// template returns the template data directory of bin's installation under
// root, running initdb for it when missing. A template is made in a
// directory of its own and renamed into place once complete, so a process
// that finds one finds it whole; two processes making one at once keep the
// first.
func (l *Lab) template(ctx context.Context, root, bin string) (string, error) {
	key, err := templateKey(bin, l.Owner)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "initdb-"+key)
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err == nil {
		return data, nil
	}
	if err := os.MkdirAll(root, 0o711); err != nil {
		return "", fmt.Errorf("make the template directory %s: %w", root, err)
	}
	if err := l.Owner.canTraverse(root); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, "initdb-"+key+".new-")
	if err != nil {
		return "", fmt.Errorf("make a template under %s: %w", root, err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := os.Chmod(tmp, 0o711); err != nil {
		return "", fmt.Errorf("protect %s: %w", tmp, err)
	}
	tdata := filepath.Join(tmp, "data")
	if err := os.Mkdir(tdata, 0o700); err != nil {
		return "", fmt.Errorf("make %s: %w", tdata, err)
	}
	if err := l.Owner.Give(tdata); err != nil {
		return "", err
	}
	if err := l.initdb(ctx, bin, tdata, tmp, "the template"); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(data, "PG_VERSION")); serr == nil {
			return data, nil // another process made it first
		}
		return "", fmt.Errorf("put the template in place: %w", err)
	}
	return data, nil
}

// templateKey names bin's installation for the server account o: its
// initdb's path, size and modification time, initdb's options and the
// account, hashed (a reinstalled or upgraded server gets a new template).
func templateKey(bin string, o Owner) (string, error) {
	abs, err := filepath.Abs(filepath.Join(bin, "initdb"))
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("initdb: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%q\x00%d:%d", abs, fi.Size(), fi.ModTime().UnixNano(), initdbArgs, o.UID, o.GID)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
