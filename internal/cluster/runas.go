package cluster

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// Owner is the unprivileged account servers run as. A zero Owner means "the
// current user" (lagscope is not root).
type Owner struct {
	Name     string
	UID, GID uint32
}

// IsZero reports whether o means "run as the current user".
func (o Owner) IsZero() bool { return o.Name == "" }

// DefaultOwner picks the account servers run as: the current user when not
// root, otherwise "postgres" if it exists, otherwise "nobody".
func DefaultOwner() (Owner, error) {
	if os.Geteuid() != 0 {
		return Owner{}, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return Owner{Name: name, UID: uint32(uid), GID: uint32(gid)}, nil
	}
	return Owner{}, fmt.Errorf("running as root but no 'postgres' or 'nobody' account exists to run PostgreSQL as: create one (useradd -r postgres) or run lagscope as an ordinary user")
}

// sysProcAttr returns process attributes that run a child as o and deliver
// deathSig to it when lagscope dies (0 = none).
func (o Owner) sysProcAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: deathSig, Setpgid: true}
	if !o.IsZero() {
		a.Credential = &syscall.Credential{Uid: o.UID, Gid: o.GID, NoSetGroups: true}
	}
	return a
}

// chown gives path to o (no-op for the zero Owner).
func (o Owner) chown(path string) error {
	if o.IsZero() {
		return nil
	}
	if err := os.Chown(path, int(o.UID), int(o.GID)); err != nil {
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
