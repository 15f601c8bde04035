package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// LabAccount is the system account lab servers run as when lagscope runs as
// root. It is not "postgres", which owns the machine's real clusters: a lab
// server (trust on its own socket) must not be a way into them, nor they
// into it.
const LabAccount = "lagscope-lab"

// Owner is the unprivileged account servers run as. A zero Owner means "the
// current user" (lagscope is not root).
type Owner struct {
	Name     string
	UID, GID uint32
}

// IsZero reports whether o means "run as the current user".
func (o Owner) IsZero() bool { return o.Name == "" }

// DefaultOwner picks the account servers run as: the current user when not
// root, otherwise LabAccount, which it creates (a system account with no
// home and no login shell) when it is missing.
func DefaultOwner() (Owner, error) {
	if os.Geteuid() != 0 {
		return Owner{}, nil
	}
	if o, err := lookupOwner(LabAccount); err == nil {
		return o, nil
	}
	if err := createLabAccount(); err != nil {
		return Owner{}, err
	}
	o, err := lookupOwner(LabAccount)
	if err != nil {
		return Owner{}, fmt.Errorf("account %s: %w (create it: useradd --system --no-create-home --shell /usr/sbin/nologin %s)", LabAccount, err, LabAccount)
	}
	return o, nil
}

// lookupOwner reads an account's ids.
func lookupOwner(name string) (Owner, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return Owner{}, err
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return Owner{}, fmt.Errorf("account %s has ids %s:%s: %w", name, u.Uid, u.Gid, err)
	}
	if uid == 0 {
		return Owner{}, fmt.Errorf("account %s has uid 0: give it an unprivileged uid", name)
	}
	return Owner{Name: name, UID: uint32(uid), GID: uint32(gid)}, nil
}

// createLabAccount adds LabAccount with useradd. Another lagscope creating
// it at the same time is not an error (the caller looks it up again).
func createLabAccount() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nologin := "/usr/sbin/nologin"
	if _, err := os.Stat(nologin); err != nil {
		nologin = "/bin/false"
	}
	out, err := exec.CommandContext(ctx, "useradd", "--system", "--no-create-home", "--user-group",
		"--home-dir", "/nonexistent", "--shell", nologin, LabAccount).CombinedOutput()
	if err != nil {
		if _, lerr := lookupOwner(LabAccount); lerr == nil {
			return nil
		}
		return fmt.Errorf("lab servers run as account %s, and useradd could not create it: %v: %s "+
			"(create it: useradd --system --no-create-home --shell /usr/sbin/nologin %s)", LabAccount, err, lastLines(string(out), 2), LabAccount)
	}
	return nil
}

// sysProcAttr returns process attributes that run a child as o, with no
// supplementary groups (none of root's), and deliver deathSig to it when
// lagscope dies (0 = none).
func (o Owner) sysProcAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: deathSig, Setpgid: true}
	if !o.IsZero() {
		a.Credential = &syscall.Credential{Uid: o.UID, Gid: o.GID, Groups: []uint32{}}
	}
	return a
}

// Give hands path to o without following a symlink (no-op for the zero
// Owner). Only call it on a path in a directory no other account can write
// to (one lagscope made), so that path is what lagscope made.
func (o Owner) Give(path string) error {
	if o.IsZero() {
		return nil
	}
	if err := os.Lchown(path, int(o.UID), int(o.GID)); err != nil {
		return fmt.Errorf("give %s to user %s: %w", path, o.Name, err)
	}
	return nil
}

// canTraverse checks that o can reach files below dir: every ancestor must be
// searchable by "others" when servers run as another account.
func (o Owner) canTraverse(dir string) error {
	if o.IsZero() {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("lab directory %s: %w", d, err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("the lab runs PostgreSQL as user %s, who cannot enter %s: set LAGSCOPE_LAB_DIR to a directory every user can traverse (e.g. /tmp)", o.Name, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
